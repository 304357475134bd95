/**
 * The demo games' stillness (`Game.still`, what lets a room's loop sleep: core room/roomSleep.ts).
 * The contract, for agar and movement after any joins, leaves, drops, returns, steering (boosts
 * with the stick at rest, sticks into a wall) and ticks: when `still()` says true, a tick changes
 * no record and draws no randomness. And whole rooms: an agar and a movement room that sleep
 * send every player the same frames, byte for byte, as the same room whose game never says still.
 */
import { testPlayer, TestRoom, type TestClient } from "@tikron/core/testing";
import { Kind, type AnyGameTypes } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgarGame } from "../src/agar/agarGame";
import { MovementGame } from "../src/movement/movementGame";
import { agarTypes, movementTypes } from "../src/schemas";

type Op =
  | { k: "join" | "leave" | "drop" | "back"; pid: number }
  | { k: "steer"; pid: number; dx: number; dy: number; boost: boolean }
  | { k: "ticks"; n: number };

const pid = fc.integer({ min: 1, max: 4 });
const stick = fc.oneof(fc.constant(0), fc.constant(1), fc.constant(-1), fc.double({ min: -1, max: 1, noNaN: true }));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ k: fc.constantFrom("join" as const, "leave" as const, "drop" as const, "back" as const), pid }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("steer" as const), pid, dx: stick, dy: stick, boost: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("ticks" as const), n: fc.integer({ min: 1, max: 80 }) }) },
);

type Stilled = AgarGame | MovementGame;

/** Every live entity of the game's world (id, type, record) and its generator's state, as text. */
function stateText(game: Stilled): string {
  const out: string[] = [JSON.stringify((game as unknown as { rng: unknown }).rng)];
  const world = game.world as AgarGame["world"];
  for (let id = 0; id < world.capacity; id++) {
    const type = world.typeOfEntity(id);
    if (type) out.push(`${id}:${type}:${JSON.stringify(world.record(id, type))}`);
  }
  return out.join("\n");
}

/** Runs `ops` on `game`; before every tick where `still()` says true, checks that the tick changes nothing. Returns how often it was still. */
function checkStill(game: Stilled, ops: readonly Op[]): number {
  const seated = new Set<number>();
  const away = new Set<number>();
  let t = 0;
  let still = 0;
  for (const op of ops) {
    switch (op.k) {
      case "join":
        if (!seated.has(op.pid)) seated.add(op.pid), game.join(testPlayer(op.pid, `p${op.pid}`));
        break;
      case "leave":
        if (seated.delete(op.pid)) away.delete(op.pid), game.leave(op.pid);
        break;
      case "drop":
        if (seated.has(op.pid) && !away.has(op.pid)) away.add(op.pid), game.disconnected(op.pid);
        break;
      case "back":
        if (away.delete(op.pid)) game.reconnected(testPlayer(op.pid, `p${op.pid}`));
        break;
      case "steer":
        if (!seated.has(op.pid)) break;
        if (game instanceof AgarGame) game.applyInput(op.pid, { dx: op.dx, dy: op.dy, boost: op.boost });
        else game.applyInput(op.pid, { dx: op.dx, dy: op.dy, sprint: op.boost });
        break;
      case "ticks":
        for (let i = 0; i < op.n; i++) {
          const before = game.still() ? stateText(game) : null;
          t += 50;
          game.tick(t, 50);
          if (before === null) continue;
          still++;
          expect(stateText(game)).toBe(before);
          expect(game.still()).toBe(true);
        }
    }
  }
  return still;
}

describe("Game.still: a tick it calls still changes nothing", () => {
  it("agar, in a small crowded arena (cells at walls, eating orbs and each other, boosting)", () => {
    let still = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.array(opArb, { minLength: 1, maxLength: 40 }), (seed, ops) => {
        still += checkStill(new AgarGame({ world: 200, aoiRadius: 150, orbs: 30, seed }), ops);
      }),
      { numRuns: 120 },
    );
    expect(still).toBeGreaterThan(100);
  }, 60_000);

  it("movement, sticks into the walls included", () => {
    let still = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.array(opArb, { minLength: 1, maxLength: 40 }), (seed, ops) => {
        still += checkStill(new MovementGame({ world: 200, seed }), ops);
      }),
      { numRuns: 120 },
    );
    expect(still).toBeGreaterThan(100);
  }, 60_000);

  it("not before the first tick, nor while a cell boosts at rest (it burns mass)", () => {
    const game = new AgarGame({ world: 1000, orbs: 0, seed: 3 });
    game.join(testPlayer(1, "a"));
    expect(game.still()).toBe(false);
    game.tick(50, 50);
    expect(game.still()).toBe(true);
    (game.cellOf(1) as { r: number }).r = 40;
    game.applyInput(1, { dx: 0, dy: 0, boost: true });
    expect(game.still()).toBe(false);
  });
});

/** A room around `game` (its `still` hidden when not `sleepy`), a script's players and their frames. */
function roomOf<G extends AnyGameTypes>(game: Stilled, types: G, sleepy: boolean) {
  if (!sleepy) Object.defineProperty(game, "still", { value: undefined });
  return new TestRoom(game, types, { seed: 1, overrides: { maxUnreceiptedMessages: 1e9 } });
}

type RoomOp = { wait: number } | { join: true } | { steer: number; dx: number; dy: number } | { leave: number } | { drop: number };
const roomOpArb: fc.Arbitrary<RoomOp> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ wait: fc.integer({ min: 0, max: 1500 }) }) },
  { weight: 1, arbitrary: fc.constant({ join: true as const }) },
  { weight: 4, arbitrary: fc.record({ steer: fc.nat(7), dx: fc.constantFrom(0, 0, 1, -1, 0.5), dy: fc.constantFrom(0, 0, 1, -0.5) }) },
  { weight: 1, arbitrary: fc.record({ leave: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ drop: fc.nat(7) }) },
);

describe("a sleeping room of a demo game sends what it sends awake", () => {
  for (const kind of ["agar", "movement"] as const) {
    it(`${kind}: the same frames per player and the same world, whatever the players do (property)`, () => {
      let sleeps = 0;
      fc.assert(
        fc.property(fc.array(roomOpArb, { minLength: 1, maxLength: 25 }), (ops) => {
          const make = (sleepy: boolean) =>
            kind === "agar" ? roomOf(new AgarGame({ world: 400, aoiRadius: 200, orbs: 30, seed: 9 }), agarTypes, sleepy) : roomOf(new MovementGame({ world: 400, seed: 9 }), movementTypes, sleepy);
          const rooms = [make(true), make(false)];
          const players: TestClient<AnyGameTypes>[][] = [[], []];
          rooms.forEach((r, i) => players[i]!.push(r.join("p0") as TestClient<AnyGameTypes>));
          for (const op of ops) {
            rooms.forEach((r, i) => {
              const ps = players[i]!;
              const p = (n: number) => ps[n % ps.length]!;
              if ("wait" in op) r.advance(op.wait);
              else if ("join" in op) ps.push(r.join(`p${ps.length}`) as TestClient<AnyGameTypes>);
              else if ("steer" in op) !p(op.steer).closed && p(op.steer).input(kind === "agar" ? { dx: op.dx, dy: op.dy, boost: false } : { dx: op.dx, dy: op.dy, sprint: false });
              else if ("leave" in op) !p(op.leave).closed && p(op.leave).leave();
              else p(op.drop).drop();
            });
            const frames = (i: number, n: number) => players[i]![n]!.raw.filter((d) => typeof d !== "string" && d[0] === Kind.Frame);
            for (let n = 0; n < players[1]!.length; n++) expect(frames(0, n)).toEqual(frames(1, n));
            expect(stateText(rooms[0]!.game as Stilled)).toBe(stateText(rooms[1]!.game as Stilled));
          }
          expect(rooms[1]!.stats().sleep).toBeUndefined();
          sleeps += rooms[0]!.stats().sleep!.sleeps;
        }),
        { numRuns: 40 },
      );
      expect(sleeps).toBeGreaterThan(10);
    }, 60_000);
  }
});
