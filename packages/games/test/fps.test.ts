import { TestRoom, type TestClient } from "@tikron/core/testing";
import { BinaryWriter, ErrorCode, FrameWriter, writeEvent } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FPS_RULES } from "../src/fps/fpsRules";
import { segmentPointDist2 } from "../src/fps/hitscan";
import { FpsGame, type FpsConfig } from "../src/fps/fpsGame";
import { FPS_PRESETS, fpsEvents, fpsTypes, type FpsInput, type FpsPresetName, type FpsTracerEvent } from "../src/schemas";
import { eventsSectionBytes, handWrittenFpsEvent } from "./support/fpsEventsBefore";

const w = new BinaryWriter();
const move = (dx: number, dy: number, dtMs: number, aim = 0): FpsInput => ({ kind: "move", dx, dy, dtMs, aim });
const shot = (time: number, aim: number): FpsInput => ({ kind: "shot", time, aim });

type Spawns = Record<number, { x: number; y: number }>;

function fpsRoom(preset: FpsPresetName, spawns: Spawns | null, config: Partial<FpsConfig> = {}) {
  const options = { ...FPS_PRESETS[preset], cap: 100 };
  const game = new FpsGame({
    world: 2400,
    aoiRadius: 600,
    tickMs: options.tickMs,
    seed: 7,
    ...(spawns ? { spawnPoint: (pid: number) => spawns[pid] ?? { x: 1200, y: 1200 } } : {}),
    ...config,
  });
  return new TestRoom(game, fpsTypes, { overrides: options });
}

const tracers = (c: TestClient<typeof fpsTypes>, from = 0) => c.events.slice(from).filter((e): e is FpsTracerEvent => e.kind === "tracer");

describe("fps: lag-compensated shots", () => {
  // 60 Hz preset: frames every 16 ms. The target stands on the shooter's line of fire (east),
  // then takes one 100 ms step north, out of the line (22 units > its 16-unit radius).
  function setup() {
    const t = fpsRoom("hz60", { 1: { x: 500, y: 500 }, 2: { x: 700, y: 500 } });
    const shooter = t.join("shooter");
    const target = t.join("target");
    t.advance(320);
    target.input(move(0, 1, 100));
    t.advance(16);
    const movedAt = t.time;
    expect(t.game.playerOf(target.playerId)!.y).toBeCloseTo(522, 6);
    return { t, shooter, target, movedAt, seenAt: movedAt - 16 };
  }

  it("hits a target that moved away 100 ms ago when the shooter's view is rewound", () => {
    const { t, shooter, target, movedAt, seenAt } = setup();
    t.advance(96);
    // The shooter's view still showed the target on the line (the last frame before the move).
    shooter.input(shot(seenAt, 0));
    t.advance(16);
    expect(t.time - movedAt).toBeGreaterThanOrEqual(100);
    expect(t.time - seenAt).toBeLessThanOrEqual(FPS_RULES.rewindCapMs);
    expect(t.game.playerOf(target.playerId)!.hp).toBe(FPS_RULES.maxHp - FPS_RULES.damage);
    const [tr] = tracers(shooter);
    expect(tr).toMatchObject({ shooter: shooter.playerId, hit: target.playerId });
    // The tracer stops at the rewound target's edge: 200 units east, minus the radius.
    expect(tr!.x1).toBeCloseTo(700 - FPS_RULES.playerRadius, 1);
    expect(t.stats().game).toMatchObject({ shots: 1, hits: 1 });
  });

  it("the same shot without rewind (timed now) misses", () => {
    const { t, shooter, target } = setup();
    t.advance(96);
    shooter.input(shot(t.time, 0));
    t.advance(16);
    expect(t.game.playerOf(target.playerId)!.hp).toBe(FPS_RULES.maxHp);
    expect(tracers(shooter)[0]).toMatchObject({ hit: 0 });
  });

  it("misses beyond the 200 ms cap even while older frames are still kept", () => {
    const { t, shooter, target, movedAt, seenAt } = setup();
    // Resolved 208 ms after the move: the shot's time (224 ms back) is still in the history,
    // but the cap (200 ms back) lands after the move.
    t.advance(192);
    shooter.input(shot(seenAt, 0));
    t.advance(16);
    expect(t.time - movedAt).toBe(208);
    expect(t.time - seenAt).toBeLessThan(FPS_RULES.rewindCapMs + 16 * 2);
    expect(t.game.playerOf(target.playerId)!.hp).toBe(FPS_RULES.maxHp);
    expect(tracers(shooter)[0]).toMatchObject({ hit: 0 });
  });

  it("misses beyond the 200 ms cap: a target that left 300 ms ago is not rewound to", () => {
    const { t, shooter, target, seenAt } = setup();
    t.advance(288);
    shooter.input(shot(seenAt, 0));
    t.advance(16);
    expect(t.time - seenAt).toBeGreaterThan(FPS_RULES.rewindCapMs);
    expect(t.game.playerOf(target.playerId)!.hp).toBe(FPS_RULES.maxHp);
    expect(tracers(shooter)[0]).toMatchObject({ hit: 0 });
    expect(shooter.errors).toEqual([]);
  });

  it("resolves a shot older than the cap at the cap, not refused and no further back", () => {
    const { t, shooter, target, movedAt } = setup();
    // Resolved 176 ms after the move: the cap (200 ms back) still sees the target on the line.
    t.advance(160);
    shooter.input(shot(0, 0));
    t.advance(16);
    expect(t.time - movedAt).toBe(176);
    expect(t.game.playerOf(target.playerId)!.hp).toBe(FPS_RULES.maxHp - FPS_RULES.damage);
    expect(shooter.errors).toEqual([]);
  });

  it("clamps a future timestamp to now", () => {
    const t = fpsRoom("hz30", { 1: { x: 500, y: 500 }, 2: { x: 700, y: 500 } });
    const shooter = t.join("shooter");
    const target = t.join("target");
    t.advance(330);
    target.input(move(0, 1, 100)); // now off the line
    t.advance(33);
    shooter.input(shot(t.time + 60_000, 0));
    t.advance(33);
    expect(t.game.playerOf(target.playerId)!.hp).toBe(FPS_RULES.maxHp);
    shooter.input(shot(t.time + 60_000, Math.atan2(22, 200)));
    t.advance(33);
    expect(t.game.playerOf(target.playerId)!.hp).toBe(FPS_RULES.maxHp - FPS_RULES.damage);
  });

  it("does not hit a newcomer with the history of the player whose slot it reuses", () => {
    const t = fpsRoom("hz20", { 1: { x: 500, y: 500 }, 2: { x: 700, y: 500 }, 3: { x: 700, y: 900 } });
    const shooter = t.join("shooter");
    const leaver = t.join("leaver");
    t.advance(300);
    leaver.leave();
    t.advance(50);
    const newcomer = t.join("newcomer");
    t.advance(50);
    // Aimed where the leaver stood, timed when it still stood there.
    shooter.input(shot(t.time - 110, 0));
    t.advance(50);
    expect(tracers(shooter)[0]).toMatchObject({ hit: 0 });
    expect(t.game.playerOf(newcomer.playerId)!.hp).toBe(FPS_RULES.maxHp);
  });
});

describe("fps: move budget in the room", () => {
  it("refuses a sustained 1.5× speed hack with speed_violation (counted), never a bursty honest player", () => {
    const t = fpsRoom("hz30", { 1: { x: 1000, y: 300 }, 2: { x: 1400, y: 300 } });
    const honest = t.join("honest");
    const cheat = t.join("cheat");
    const start = t.clock.now();
    for (let k = 1; k <= 90; k++) {
      // The cheat claims 50 ms of movement every 33 ms tick.
      cheat.input(move(0, 1, 50));
      // The honest player's moves arrive six at a time after ~200 ms stalls.
      if (k % 6 === 0) honest.input(...Array.from({ length: 6 }, () => move(0, 1, 33)));
      t.advance(33);
    }
    const elapsed = t.clock.now() - start;
    expect(honest.errors).toEqual([]);
    const honestY = t.game.playerOf(honest.playerId)!.y;
    expect(honestY - 300).toBeCloseTo((90 * 33 * FPS_RULES.moveSpeed) / 1000, 6);

    const violations = cheat.errors.filter((e) => e.code === ErrorCode.speed_violation);
    expect(violations.length).toBeGreaterThan(15);
    expect(t.stats().inputs.rejectedByCode.speed_violation).toBe(violations.length);
    const cheatTravel = t.game.playerOf(cheat.playerId)!.y - 300;
    const burst = (FPS_RULES.moveSpeed * FPS_RULES.budgetBurstMs) / 1000;
    expect(cheatTravel).toBeLessThanOrEqual(burst + (FPS_RULES.moveSpeed * FPS_RULES.budgetSlack * elapsed) / 1000 + 1e-6);
    // Refused moves are still acked, so the cheat's client stops predicting them.
    expect(cheat.frames.at(-1)!.ackSeq).toBe(cheat.seq);
  });

  it("refuses malformed moves and shots as bad_input through the room", () => {
    const t = fpsRoom("hz30", null);
    const a = t.join("a");
    // Bytes by hand (the SDK's writer clamps or refuses these): move = tag 0, dx, dy, dtMs, u16 aim;
    // shot = tag 1, f64 time, u16 aim.
    a.inputPayloads(
      new Uint8Array([0, 127, 127, 200, 0, 0]),
      new Uint8Array([0, 254, 255, 16, 0, 0]),
      new BinaryWriter().u8(1).f64(Infinity).u16(0).toBytes(),
      new BinaryWriter().u8(1).f64(-5).u16(0).toBytes(),
      new BinaryWriter().u8(1).f64(NaN).u16(0).toBytes(),
      new Uint8Array([42]),
    );
    t.advance(33);
    // One error frame for the whole batch, carrying the count and the first refusal, its field named.
    expect(a.errors.map((e) => e.code)).toEqual([ErrorCode.bad_input]);
    expect(a.errors[0]!.reason).toMatch(/^6 inputs refused; first: input move.dtMs: level 200/);
    expect(t.stats().inputs.rejectedByCode).toEqual({ bad_input: 6 });
  });

  it("limits the fire rate (burst 3) with illegal_move", () => {
    const t = fpsRoom("hz30", null);
    const a = t.join("a");
    t.advance(33);
    a.input(...Array.from({ length: 5 }, (_, i) => shot(t.time, i)));
    t.advance(33);
    expect(tracers(a)).toHaveLength(FPS_RULES.fireBurst);
    expect(a.errors.map((e) => e.code)).toEqual([ErrorCode.illegal_move]);
    expect(a.errors[0]!.reason).toMatch(/^2 inputs refused/);
    expect(t.stats().inputs.rejectedByCode).toMatchObject({ illegal_move: 2 });
  });
});

describe("fps: tracer audience", () => {
  it("delivers each tracer to exactly the clients whose AOI circle the shot's segment touches", () => {
    let included = 0;
    let excluded = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 9 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 6282 }), { minLength: 1, maxLength: 3 }),
        (seed, shooterIndex, aimsMilli) => {
          const t = fpsRoom("hz20", null, { seed });
          const clients = Array.from({ length: 10 }, (_, i) => t.join(`p${i}`));
          t.advance(50);
          const shooter = clients[shooterIndex]!;
          const before = clients.map((c) => c.events.length);
          shooter.input(...aimsMilli.map((m) => shot(t.time, m / 1000)));
          t.advance(50);
          const fired = tracers(shooter, before[shooterIndex]);
          expect(fired).toHaveLength(aimsMilli.length);
          const R = 600;
          for (const [i, c] of clients.entries()) {
            const got = new Set(c.events.slice(before[i]).map((e) => JSON.stringify(e)));
            const pos = t.game.playerOf(c.playerId)!;
            for (const tr of fired) {
              // Naive: walk the segment in small steps and look for a point within R.
              let near = Infinity;
              for (let k = 0; k <= 4000; k++) {
                const u = k / 4000;
                near = Math.min(near, Math.hypot(tr.x0 + (tr.x1 - tr.x0) * u - pos.x, tr.y0 + (tr.y1 - tr.y0) * u - pos.y));
              }
              // Skip the ambiguous rim (quantized endpoints, sampling) rather than guess.
              const exact = Math.sqrt(segmentPointDist2(tr.x0, tr.y0, tr.x1, tr.y1, pos.x, pos.y));
              if (Math.abs(exact - R) < 1 || Math.abs(near - R) < 1) continue;
              const expected = near <= R;
              expect(got.has(JSON.stringify(tr))).toBe(expected);
              if (c !== shooter) expected ? included++ : excluded++;
            }
          }
        },
      ),
      { numRuns: 40 },
    );
    // The random worlds exercised both sides of the rule.
    expect(included).toBeGreaterThan(20);
    expect(excluded).toBeGreaterThan(20);
  });
});

describe("fps: combat, death, respawn, scoreboard, AOI", () => {
  it("kills after four hits, counts the scoreboard, ignores the dead, respawns after the delay", () => {
    const t = fpsRoom("hz20", { 1: { x: 500, y: 500 }, 2: { x: 600, y: 500 }, 3: { x: 2000, y: 2000 } });
    const shooter = t.join("shooter");
    const target = t.join("target");
    const far = t.join("far");
    t.advance(100);
    for (let i = 0; i < 4; i++) {
      shooter.input(shot(t.time, 0));
      t.advance(150);
    }
    const victim = t.game.playerOf(target.playerId)!;
    expect(victim.hp).toBe(0);
    const kill = { kind: "kill", killer: shooter.playerId, victim: target.playerId };
    for (const c of [shooter, target, far]) expect(c.events.filter((e) => e.kind === "kill")).toEqual([kill]);
    // Tracers stay local: the far player saw none of the four.
    expect(tracers(target)).toHaveLength(4);
    expect(tracers(far)).toHaveLength(0);

    // The dead neither walk nor shoot, and are not hit again.
    const before = tracers(shooter).length;
    target.input(move(1, 0, 50), shot(t.time, Math.PI));
    shooter.input(shot(t.time, 0));
    t.advance(100);
    expect(victim.x).toBe(600);
    expect(tracers(shooter).slice(before)).toEqual([expect.objectContaining({ shooter: shooter.playerId, hit: 0 })]);
    expect(target.errors).toEqual([]);

    const view = shooter.state;
    const board = [...view.values()].find((e) => e.type === "scoreboard")!.record as { kills: Map<number, number>; deaths: Map<number, number> };
    expect(board.kills).toEqual(new Map([[shooter.playerId, 1], [target.playerId, 0], [far.playerId, 0]]));
    expect(board.deaths).toEqual(new Map([[shooter.playerId, 0], [target.playerId, 1], [far.playerId, 0]]));
    const seenVictim = [...view.values()].find((e) => e.type === "player" && e.record.pid === target.playerId)!;
    expect(seenVictim.record).toMatchObject({ hp: 0 });

    t.advance(FPS_RULES.respawnMs);
    expect(victim.hp).toBe(FPS_RULES.maxHp);
    expect(t.stats().game).toEqual({ shots: 5, hits: 4, kills: 1, respawns: 1 });
    expect(shooter.state.get(seenVictim.id)!.record).toMatchObject({ hp: FPS_RULES.maxHp });

    // The far player holds the scoreboard (global) but not the fighters (beyond its AOI).
    const farView = far.state;
    expect([...farView.values()].map((e) => e.type).sort()).toEqual(["player", "scoreboard"]);
    const farBoard = [...farView.values()].find((e) => e.type === "scoreboard")!.record as { kills: Map<number, number> };
    expect(farBoard.kills.get(shooter.playerId)).toBe(1);
  });

  it("removes a leaving player from the world and the scoreboard", () => {
    const t = fpsRoom("hz20", { 1: { x: 500, y: 500 }, 2: { x: 600, y: 500 } });
    const a = t.join("a");
    const b = t.join("b");
    t.advance(100);
    expect(a.state.size).toBe(3);
    b.leave();
    t.advance(100);
    const view = a.state;
    expect(view.size).toBe(2);
    expect(t.game.scoreboard.kills.has(b.playerId)).toBe(false);
    const board = [...view.values()].find((e) => e.type === "scoreboard")!.record as { kills: Map<number, number> };
    expect([...board.kills.keys()]).toEqual([a.playerId]);
  });
});

describe("fps: event bytes on the wire", () => {
  it("a scripted match's frames carry exactly the event bytes the hand-written codec sent", () => {
    // Eight players in a ring, each firing at the next: tracers to the AOI audience, kills to all.
    const ring: Spawns = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [i + 1, { x: 1200 + 150 * Math.cos((i * Math.PI) / 4), y: 1200 + 150 * Math.sin((i * Math.PI) / 4) }]));
    const t = fpsRoom("hz30", ring);
    const players = Array.from({ length: 8 }, (_, i) => t.join(`p${i}`));
    t.advance(99);
    for (let round = 0; round < 30; round++) {
      players.forEach((p, i) => {
        const me = ring[p.playerId]!;
        const next = ring[players[(i + 1) % 8]!.playerId]!;
        p.input(shot(t.time, Math.atan2(next.y - me.y, next.x - me.x)));
      });
      t.advance(132);
    }
    let declared = 0;
    let before = 0;
    let frames = 0;
    for (const p of players) {
      for (const f of p.frames) {
        frames++;
        declared += eventsSectionBytes(f.events.map((e) => writeEvent(new FrameWriter(), fpsEvents, e).toBytes().length));
        before += eventsSectionBytes(f.events.map((e) => handWrittenFpsEvent(e).length));
      }
    }
    expect(t.stats().game).toMatchObject({ kills: expect.any(Number) });
    expect(before).toBeGreaterThan(frames);
    expect(declared).toBe(before);
  });
});
