import { agarInputs, fpsEvents, fpsInputs, movementInputs } from "@tikron/games/schemas";
import { FrameWriter, isRejection, readInput, writeEvent } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { Rng } from "../src/scenarios/rng";
import { agarScenario } from "../src/scenarios/agar";
import { fpsScenario } from "../src/scenarios/fps";
import { getScenario, isTextScenario, scenarios, tttJsonScenario, type Scenario } from "../src/scenarios/index";
import { movementScenario } from "../src/scenarios/movement";

/** Runs a scenario for n inputs and returns copies of the payloads. */
function payloads(s: Scenario, n: number, seed = 7, periodMs = 50): { bytes: Uint8Array[]; counters: Record<string, number> } {
  const rng = new Rng(seed);
  const p = s.createPlayer(rng, periodMs);
  s.onWelcome?.(p, { playerId: 3, tickMs: 33, roomEpoch: Date.now() - 60_000, clockOffsetMs: 0 });
  const w = new FrameWriter(16);
  const counters: Record<string, number> = {};
  const bytes = Array.from({ length: n }, () => {
    s.writeInput(p, rng, w.reset(), counters);
    return w.toBytes();
  });
  return { bytes, counters };
}

describe("agar scenario", () => {
  it("writes with the game's declared input: u8 dx, u8 dy (127 = 0, 1/127 steps), bool boost in 3 bytes", () => {
    const w = new FrameWriter(4).u8(7);
    agarInputs.write(w, { dx: 0.5, dy: -1, boost: true });
    // 0.5 → level round(1.5 × 127) = 191 (0xbf); −1 → level 0.
    expect([...w.peek()]).toEqual([7, 0xbf, 0, 1]);
  });

  it("every built-in payload fits the scenario's declared maxPayloadBytes", () => {
    const rng = new Rng(3);
    for (const s of [agarScenario, movementScenario, fpsScenario] as Scenario[]) {
      const p = s.createPlayer(rng, 33);
      const w = new FrameWriter(64);
      const counters: Record<string, number> = { shots_sent: 0 };
      for (let i = 0; i < 2_000; i++) {
        s.writeInput(p, rng, w.reset(), counters);
        expect(w.offset).toBeGreaterThan(0);
        expect(w.offset).toBeLessThanOrEqual(s.maxPayloadBytes);
      }
    }
  });

  it("every payload passes the agar room's own reader", () => {
    for (const b of payloads(agarScenario, 2000).bytes) {
      expect(b.length).toBe(3);
      const d = readInput(agarInputs, b);
      expect(d).toHaveProperty("dx");
    }
  });

  it("steers by a random walk of unit directions with small turns and occasional boost", () => {
    let prev: number | null = null;
    let boosts = 0;
    for (const b of payloads(agarScenario, 2000).bytes) {
      const d = readInput(agarInputs, b);
      if (isRejection(d)) throw new Error(d.reason);
      // Unit length to within the stick's step (1/127 per axis).
      expect(Math.abs(Math.hypot(d.dx, d.dy) - 1)).toBeLessThan(0.01);
      const a = Math.atan2(d.dy, d.dx);
      if (prev !== null) {
        let da = Math.abs(a - prev);
        if (da > Math.PI) da = 2 * Math.PI - da;
        expect(da).toBeLessThanOrEqual(0.35 + 0.02);
      }
      prev = a;
      boosts += d.boost ? 1 : 0;
    }
    expect(boosts).toBeGreaterThan(0);
    expect(boosts).toBeLessThan(300);
  });

  it("same seed, same inputs", () => {
    expect(payloads(agarScenario, 50, 99).bytes).toEqual(payloads(agarScenario, 50, 99).bytes);
    expect(payloads(agarScenario, 50, 99).bytes).not.toEqual(payloads(agarScenario, 50, 98).bytes);
  });
});

describe("movement scenario", () => {
  it("every payload passes the movement room's own validator", () => {
    for (const b of payloads(movementScenario, 1000).bytes) expect(readInput(movementInputs, b)).toHaveProperty("sprint");
  });
});

describe("fps scenario", () => {
  it("sends valid moves (step = input period, capped) and a valid shot every 15th input", () => {
    const { bytes, counters } = payloads(fpsScenario, 300, 5, 33.3);
    const decoded = bytes.map((b) => readInput(fpsInputs, b));
    for (const d of decoded) expect(d).toHaveProperty("kind");
    const shots = decoded.filter((d) => (d as { kind?: string }).kind === "shot");
    expect(shots).toHaveLength(20);
    expect(counters.shots_sent).toBe(20);
    const move = decoded.find((d) => (d as { kind?: string }).kind === "move") as { dtMs: number };
    expect(move.dtMs).toBe(33);
    // Declared sizes: a move 6 bytes (tag, stick, step, aim), a shot 11 (tag, f64 time, aim).
    expect(bytes.every((b) => (b[0] === 0 && b.length === 6) || (b[0] === 1 && b.length === 11))).toBe(true);
    // Shot time: room time (about 60 s after the epoch above) minus the interpolation delay.
    const t = (shots[0] as { time: number }).time;
    expect(t).toBeGreaterThan(59_000);
    expect(t).toBeLessThan(61_000);
    expect(payloads(fpsScenario, 10, 5, 1000).bytes.map((b) => readInput(fpsInputs, b))).not.toContainEqual(expect.objectContaining({ code: "bad_input" }));
  });

  it("counts tracers, its own tracers and kills from event bodies", () => {
    const rng = new Rng(1);
    const p = fpsScenario.createPlayer(rng, 33);
    fpsScenario.onWelcome!(p, { playerId: 300, tickMs: 33, roomEpoch: 0, clockOffsetMs: 0 });
    const w = new FrameWriter();
    const counters: Record<string, number> = {};
    const feed = (b: Uint8Array): void => {
      const framed = new Uint8Array(b.length + 4);
      framed.set(b, 2);
      fpsScenario.onEvent!(p, framed, 2, b.length, counters);
    };
    feed(writeEvent(w.reset(), fpsEvents, { kind: "tracer", shooter: 300, hit: 0, x0: 1, y0: 2, x1: 3, y1: 4 }).toBytes());
    feed(writeEvent(w.reset(), fpsEvents, { kind: "tracer", shooter: 12, hit: 300, x0: 1, y0: 2, x1: 3, y1: 4 }).toBytes());
    feed(writeEvent(w.reset(), fpsEvents, { kind: "kill", killer: 12, victim: 300 }).toBytes());
    expect(counters).toEqual({ tracers_received: 2, own_tracers_received: 1, kills_received: 1 });
  });
});

describe("registry", () => {
  it("every listed scenario resolves; unknown names are refused with the known list", () => {
    expect(scenarios.map((e) => [e.name, e.available])).toEqual([
      ["agar", true],
      ["movement", true],
      ["fps", true],
      ["ttt-json", true],
    ]);
    expect(getScenario("agar")).toBe(agarScenario);
    expect(getScenario("fps")).toBe(fpsScenario);
    expect(getScenario("ttt-json")).toBe(tttJsonScenario);
    expect(isTextScenario(getScenario("ttt-json"))).toBe(true);
    expect(isTextScenario(getScenario("agar"))).toBe(false);
    expect(() => getScenario("nope")).toThrow(/unknown scenario.*ttt-json/);
  });
});
