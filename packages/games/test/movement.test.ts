import type { RoomOptions } from "@tikron/core";
import { TestRoom, type TestClient } from "@tikron/core/testing";
import { BinaryWriter, ErrorCode, readInput } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gameDefinitions } from "../src/gameDefinitions";
import { MovementGame } from "../src/movement/movementGame";
import { movementInputs } from "../src/movement/movementInput";
import { MOVEMENT_RULES } from "../src/movement/movementRules";
import { Random } from "../src/random";
import { agarInputs, movementTypes } from "../src/schemas";

const w = new BinaryWriter();
const steer = (dx: number, dy: number, sprint = false) => ({ dx, dy, sprint });
type Player = TestClient<typeof movementTypes>;

function movementRoom(overrides: Partial<RoomOptions> = {}, world?: number) {
  const t = new TestRoom(gameDefinitions.movement!, movementTypes, { overrides, params: { world } });
  return { t, game: t.game as MovementGame };
}

describe("movement: flush throttle under full fan-out", () => {
  // The regression this room exists for: however inputs arrive, each client gets at most one
  // frame per sync interval, and each frame carries everyone.
  it.each([
    { name: "defaults (20 Hz tick, 20 Hz sync)", options: {} },
    { name: "100 Hz tick, 20 Hz sync", options: { tickMs: 10, syncIntervalMs: 50 } },
  ])("64 players × 20 Hz inputs → ≤ 1 frame per client per sync interval: $name", ({ options }) => {
    const { t, game } = movementRoom(options);
    const players = 64;
    const clients: Player[] = [];
    // Joins paced at the default join admission rate (20/s).
    for (let i = 0; i < players; i++) {
      clients.push(t.join(`p${i}`));
      t.advance(50);
    }
    expect(clients.every((c) => c.welcome !== undefined)).toBe(true);
    expect(t.room.connectedCount).toBe(players);
    const syncMs = t.stats().syncIntervalMs;
    expect(syncMs).toBe(50);

    // 3 s of inputs: every player every 50 ms, each with its own phase and up to 15 ms jitter.
    const rng = new Random(42);
    const windowMs = 3000;
    const start = t.clock.now();
    const arrivals: { at: number; client: Player; dx: number; dy: number }[] = [];
    for (const client of clients) {
      const phase = rng.range(0, 50);
      for (let k = 0; phase + k * 50 < windowMs - 20; k++) {
        const a = rng.range(0, 2 * Math.PI);
        arrivals.push({ at: start + phase + k * 50 + rng.range(0, 15), client, dx: Math.cos(a), dy: Math.sin(a) });
      }
    }
    arrivals.sort((a, b) => a.at - b.at);
    const framesBefore = clients.map((c) => c.frames.length);
    for (const a of arrivals) {
      t.advance(a.at - t.clock.now());
      a.client.input(steer(a.dx, a.dy));
    }
    t.advance(start + windowMs - t.clock.now());

    const intervals = windowMs / syncMs;
    for (const [i, c] of clients.entries()) {
      const frames = c.frames;
      const inWindow = frames.length - framesBefore[i]!;
      expect(inWindow).toBeLessThanOrEqual(intervals);
      // Everyone moves, so every flush has news for every client: the bound is met, not dodged.
      expect(inWindow).toBeGreaterThanOrEqual(intervals - 1);
      for (let k = 1; k < frames.length; k++) expect(frames[k]!.time - frames[k - 1]!.time).toBeGreaterThanOrEqual(syncMs);
    }
    const s = t.stats();
    expect(s.inputs.received).toBe(arrivals.length);
    expect(s.inputs.rejected).toBe(0);

    // No AOI: every client holds all 64 players, where the server has them.
    for (const c of [clients[0]!, clients[31]!, clients[63]!]) expect(c.state.size).toBe(players);
    const view = clients[5]!.state;
    for (const c of clients) {
      const rec = game.playerOf(c.playerId)!;
      const seen = [...view.values()].find((e) => e.type === "player" && e.record.name === rec.name)!;
      expect(Math.abs(seen.record.x - rec.x)).toBeLessThanOrEqual(1 / 32);
      expect(Math.abs(seen.record.y - rec.y)).toBeLessThanOrEqual(1 / 32);
    }
  });
});

describe("movement: rules", () => {
  it("walks at the rule speed in the steered direction, sprint is 1.5×, latest input wins", () => {
    const { t, game } = movementRoom();
    const a = t.join("a");
    const b = t.join("b");
    const pa = game.playerOf(a.playerId)!;
    const pb = game.playerOf(b.playerId)!;
    // Park both away from the walls so 1 s of walking cannot hit one.
    Object.assign(pa, { x: 1000, y: 1000 });
    Object.assign(pb, { x: 1000, y: 1000 });
    t.advance(50);
    a.input(steer(0, 1), steer(1, 0)); // the second wins
    b.input(steer(-1, 0, true));
    t.advance(50); // applied at this tick, which also moves them once
    t.advance(950);
    expect(pa.x).toBeCloseTo(1000 + MOVEMENT_RULES.speed, 6);
    expect(pa.y).toBeCloseTo(1000, 6);
    expect(pb.x).toBeCloseTo(1000 - MOVEMENT_RULES.speed * MOVEMENT_RULES.sprintFactor, 6);
  });

  it("keeps every player inside the world whatever it steers", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.boolean()), { minLength: 1, maxLength: 30 }),
        (steps) => {
          const { t, game } = movementRoom({}, 300);
          const a = t.join("a");
          for (const [dx, dy, sprint] of steps) {
            a.input(steer(dx, dy, sprint));
            t.advance(250);
            const p = game.playerOf(a.playerId)!;
            expect(p.x).toBeGreaterThanOrEqual(MOVEMENT_RULES.margin);
            expect(p.x).toBeLessThanOrEqual(300 - MOVEMENT_RULES.margin);
            expect(p.y).toBeGreaterThanOrEqual(MOVEMENT_RULES.margin);
            expect(p.y).toBeLessThanOrEqual(300 - MOVEMENT_RULES.margin);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("freezes a player while its seat is held and frees the entity when it leaves", () => {
    const { t, game } = movementRoom({ reconnectWindowMs: 1000 });
    const a = t.join("a");
    const b = t.join("b");
    a.input(steer(1, 0));
    t.advance(100);
    const p = game.playerOf(a.playerId)!;
    a.drop();
    const x = p.x;
    t.advance(500);
    expect(p.x).toBe(x);
    t.advance(600); // window over: seat freed
    expect(game.playerOf(a.playerId)).toBeUndefined();
    t.advance(50);
    expect(b.state.size).toBe(1);
  });

  it("speaks agar's steering layout byte for byte", () => {
    const m = movementInputs.encode({ dx: 0.6, dy: -0.8, sprint: true }, w);
    const a = agarInputs.encode({ dx: 0.6, dy: -0.8, boost: true }, new BinaryWriter());
    expect(m).toEqual(a);
    expect(m.length).toBe(3);
    expect(readInput(movementInputs, m)).toEqual({ dx: expect.closeTo(0.6, 2), dy: expect.closeTo(-0.8, 2), sprint: true });
  });

  it("moves a stick longer than 1 (a quantized diagonal) no faster than a full stick", () => {
    const { t, game } = movementRoom();
    const a = t.join("a");
    const b = t.join("b");
    const pa = game.playerOf(a.playerId)!;
    const pb = game.playerOf(b.playerId)!;
    // Away from the walls: 1 s of walking cannot reach one.
    Object.assign(pa, { x: 1000, y: 1000 });
    Object.assign(pb, { x: 1000, y: 1000 });
    t.advance(50);
    a.input(steer(1, 1)); // length √2 on the wire
    b.input(steer(Math.SQRT1_2, Math.SQRT1_2)); // 90/127 per axis: length 1.002
    t.advance(1000);
    const walked = MOVEMENT_RULES.speed;
    for (const p of [pa, pb]) {
      expect(p.x).toBeCloseTo(1000 + walked * Math.SQRT1_2, 6);
      expect(p.y).toBeCloseTo(1000 + walked * Math.SQRT1_2, 6);
    }
  });

  it("refuses malformed inputs as bad_input and counts them", () => {
    const { t } = movementRoom();
    const a = t.join("a");
    // The old 9-byte float layout, a stick axis past its 255 levels, a sprint flag of 2, too short.
    const floats = new BinaryWriter().f32(0).f32(0).u8(0).toBytes();
    a.inputPayloads(floats, new Uint8Array([127, 255, 0]), new Uint8Array([127, 127, 2]), new Uint8Array(2));
    t.advance(50);
    expect(a.errors.map((e) => e.code)).toEqual([ErrorCode.bad_input]);
    expect(a.errors[0]!.reason).toBe("4 inputs refused; first: input: 9 bytes where the declaration reads 3");
    expect(t.stats().inputs.rejectedByCode).toEqual({ bad_input: 4 });
    expect(readInput(movementInputs, "text")).toMatchObject({ rejected: true, code: "bad_input" });
  });
});
