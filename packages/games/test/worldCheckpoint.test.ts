import type { RoomCheckpoint, RoomOptions } from "@tikron/core";
import { TestRoom, type TestClient } from "@tikron/core/testing";
import type { AnyGameTypes } from "@tikron/protocol";
import { describe, expect, it, vi } from "vitest";
import { AgarGame } from "../src/agar/agarGame";
import { FpsGame } from "../src/fps/fpsGame";
import { FPS_RULES } from "../src/fps/fpsRules";
import { MovementGame } from "../src/movement/movementGame";
import { Random } from "../src/random";
import { agarTypes, FPS_PRESETS, fpsTypes, movementTypes } from "../src/schemas";

/** A checkpoint as a host keeps it: through JSON (Durable Object storage, a file). */
function stored(room: TestRoom<AnyGameTypes>): RoomCheckpoint {
  return JSON.parse(JSON.stringify(room.room.checkpoint()));
}

/**
 * A restart: the checkpoint of `before` restored into `after` (a fresh room of the same game),
 * then each player reconnecting with its token, as a client does once the runtime is back.
 */
function restart<G extends AnyGameTypes>(before: TestRoom<G>, after: TestRoom<G>, players: TestClient<G>[]): TestClient<G>[] {
  const cp = stored(before);
  expect(cp.game).toBeDefined();
  expect(after.room.restoreCheckpoint(cp)).toBe(true);
  expect(after.stats().errors).not.toHaveProperty("checkpoint_refused");
  const back = players.map((p) => after.join(p.name, { token: p.token }));
  for (const [i, c] of back.entries()) expect(c.welcome).toMatchObject({ reconnected: true, playerId: players[i]!.playerId });
  return back;
}

/** The entity a client sees as its own (the schema's `pid` names it): its id and record. */
function ownEntity(c: TestClient<AnyGameTypes>): ({ id: number } & Record<string, any>) | undefined {
  for (const e of c.state.values()) if ((e.record as { pid?: number }).pid === c.playerId) return { id: e.id, ...(e.record as object) };
  return undefined;
}

/** Everyone steers somewhere new every 250 ms, for `ms`. */
function play<G extends AnyGameTypes>(room: TestRoom<G>, players: TestClient<G>[], ms: number, input: (rng: Random) => Parameters<TestClient<G>["input"]>[0]): void {
  const rng = new Random(11);
  for (let t = 0; t < ms; t += 50) {
    if (t % 250 === 0) for (const p of players) p.input(input(rng));
    room.advance(50);
  }
}

const steer = (rng: Random) => {
  const a = rng.range(0, 2 * Math.PI);
  return { dx: Math.cos(a), dy: Math.sin(a), boost: false, sprint: false };
};

describe("ticking games continue from their checkpoint after a restart", () => {
  it("agar: every cell's position, radius and score, every orb, entity ids kept; play goes on from there", () => {
    const make = () => new TestRoom(new AgarGame({ world: 800, seed: 5 }), agarTypes);
    const a = make();
    const players = ["ann", "bob", "cy"].map((n) => a.join(n));
    play(a, players, 6000, steer);
    const before = players.map((p) => ownEntity(p)!);
    // Worth checking: cells moved and ate.
    expect(before.some((c) => c.score > 0)).toBe(true);
    const cp = stored(a);

    const b = make();
    const back = restart(a, b, players);
    // The world is the one saved, whole: the restored game checkpoints the same value.
    expect(JSON.parse(JSON.stringify((b.game as AgarGame).checkpoint()))).toEqual(cp.game);
    b.advance(50);
    for (const [i, c] of back.entries()) expect(ownEntity(c)).toEqual(before[i]);
    const x0 = ownEntity(back[0]!)!.x;
    back[0]!.input({ dx: 1, dy: 0, boost: false });
    b.advance(500);
    expect(ownEntity(back[0]!)!.x).toBeGreaterThan(x0);
  });

  it("movement: every walker where it was, ids kept (the schema has no owner field: the entity id says whose)", () => {
    const make = () => new TestRoom(new MovementGame({ world: 1000, seed: 3 }), movementTypes);
    const a = make();
    const players = ["ann", "bob"].map((n) => a.join(n));
    play(a, players, 3000, steer);
    const game = a.game as MovementGame;
    const before = players.map((p) => ({ ...game.playerOf(p.playerId)! }));
    const b = make();
    const back = restart(a, b, players);
    b.advance(50);
    for (const [i, p] of back.entries()) {
      const rec = (b.game as MovementGame).playerOf(p.playerId)!;
      // Quantized to the schema's 1/16 unit, as the players were last shown.
      expect(rec.x).toBeCloseTo(before[i]!.x, 1);
      expect(rec.y).toBeCloseTo(before[i]!.y, 1);
      expect(rec.name).toBe(before[i]!.name);
    }
  });

  it("fps: positions, facing, hp and the scoreboard's kills and deaths; a player saved dead respawns", () => {
    const spawns: Record<number, { x: number; y: number }> = { 1: { x: 500, y: 500 }, 2: { x: 600, y: 500 }, 3: { x: 500, y: 900 } };
    const make = () =>
      new TestRoom(new FpsGame({ world: 2400, tickMs: FPS_PRESETS.hz30.tickMs, seed: 7, spawnPoint: (pid) => spawns[pid] ?? { x: 1200, y: 1200 } }), fpsTypes, {
        overrides: { ...FPS_PRESETS.hz30, cap: 10 },
      });
    const a = make();
    const [shooter, target, walker] = ["shooter", "target", "walker"].map((n) => a.join(n)) as TestClient<typeof fpsTypes>[];
    a.advance(200);
    walker!.input({ kind: "move", dx: 1, dy: 0, dtMs: 100, aim: 1 });
    // The shooter kills the target (east of it) with as many shots as its hp takes, paced under the fire rate.
    for (let i = 0; i < FPS_RULES.maxHp / FPS_RULES.damage; i++) {
      shooter!.input({ kind: "shot", time: a.time, aim: 0 });
      a.advance(1000 / FPS_RULES.fireRatePerSec + 34);
    }
    const game = a.game as FpsGame;
    expect(game.playerOf(target!.playerId)!.hp).toBe(0);
    expect(game.scoreboard.kills.get(shooter!.playerId)).toBe(1);
    const before = [shooter!, target!, walker!].map((p) => ownEntity(p)!);

    const b = make();
    const back = restart(a, b, [shooter!, target!, walker!]);
    b.advance(FPS_PRESETS.hz30.tickMs);
    for (const [i, c] of back.entries()) expect(ownEntity(c)).toEqual(before[i]);
    const restored = b.game as FpsGame;
    expect(restored.scoreboard.kills.get(shooter!.playerId)).toBe(1);
    expect(restored.scoreboard.deaths.get(target!.playerId)).toBe(1);
    b.advance(FPS_RULES.respawnMs + 100);
    expect(restored.playerOf(target!.playerId)!.hp).toBe(FPS_RULES.maxHp);
  });

  it("with checkpointMs 0 the world is not saved: restored players get a fresh entity", () => {
    const options: Partial<RoomOptions> = { checkpointMs: 0 };
    const make = () => new TestRoom(new AgarGame({ world: 800, seed: 5 }), agarTypes, { overrides: options });
    const a = make();
    const players = ["ann", "bob"].map((n) => a.join(n));
    play(a, players, 6000, steer);
    expect(players.some((p) => ownEntity(p)!.score > 0)).toBe(true);
    const cp = stored(a);
    expect(cp.game).toBeUndefined();
    const b = make();
    expect(b.room.restoreCheckpoint(cp)).toBe(true);
    const back = players.map((p) => b.join(p.name, { token: p.token }));
    b.advance(50);
    for (const c of back) expect(ownEntity(c)).toMatchObject({ score: 0 });
  });

  it("a checkpoint the game cannot use starts it fresh and says so; the seats come back all the same", () => {
    const a = new TestRoom(new AgarGame({ world: 800, seed: 5 }), agarTypes);
    const players = ["ann", "bob"].map((n) => a.join(n));
    a.advance(100);
    const cp = stored(a);
    const broken = { ...cp, game: { ...(cp.game as object), players: [1, 9999] } };
    const b = new TestRoom(new AgarGame({ world: 800, seed: 5 }), agarTypes);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(b.room.restoreCheckpoint(broken)).toBe(true);
    expect(String(logged.mock.calls[0]?.[1])).toMatch(/no player entity 9999/);
    logged.mockRestore();
    expect(b.stats().errors).toMatchObject({ checkpoint_refused: 1 });
    const back = players.map((p) => b.join(p.name, { token: p.token }));
    b.advance(50);
    for (const [i, c] of back.entries()) {
      expect(c.welcome).toMatchObject({ reconnected: true, playerId: players[i]!.playerId });
      expect(ownEntity(c)).toMatchObject({ score: 0 });
    }
  });
});

describe("checkpoint size (the value goes to Durable Object storage: 2 MB a value with SQLite, 128 KiB with the legacy KV backend)", () => {
  function crowded(make: () => TestRoom<AnyGameTypes>, players: number) {
    const t = make();
    for (let i = 0; i < players; i++) t.join(`player${i}`);
    t.advance(1000);
    const cp = JSON.stringify(t.room.checkpoint());
    return { whole: cp.length, game: JSON.stringify(t.room.checkpoint().game).length };
  }
  const busy: Partial<RoomOptions> = { cap: 300, joinRatePerSec: 10_000, joinBurst: 10_000 };

  it.each([100, 300])("agar with %i players (and 300 orbs) stays far below 128 KiB", (n) => {
    const size = crowded(() => new TestRoom(new AgarGame({ seed: 1 }), agarTypes, { overrides: busy }), n);
    // Seats are most of it (token, name, identity per seat); the world is ~20 bytes a cell, ~10 an orb, in base64.
    expect(size.game).toBeLessThan(n * 40 + 300 * 20);
    expect(size.whole).toBeLessThan(64 * 1024);
  });

  it.each([100, 300])("fps with %i players stays far below 128 KiB", (n) => {
    const size = crowded(() => new TestRoom(new FpsGame({ seed: 1, slots: n }), fpsTypes, { overrides: { ...busy, ...FPS_PRESETS.hz30 } }), n);
    expect(size.game).toBeLessThan(n * 40 + 2000);
    expect(size.whole).toBeLessThan(64 * 1024);
  });
});
