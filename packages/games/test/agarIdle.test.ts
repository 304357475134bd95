/**
 * agar skips its eating pass while nothing could have changed what the last pass found (an idle
 * room). Against its naive twin, the same game made to look at every tick: after any sequence of
 * joins, leaves, drops, returns, steering (boosts with the stick at rest included) and idle
 * ticks, both worlds hold the same records, entity for entity.
 */
import { testPlayer } from "@tikron/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgarGame } from "../src/agar/agarGame";

type Op =
  | { k: "join" | "leave" | "drop" | "back"; pid: number }
  | { k: "steer"; pid: number; dx: number; dy: number; boost: boolean }
  | { k: "ticks"; n: number };

const pid = fc.integer({ min: 1, max: 5 });
const stick = fc.oneof(fc.constant(0), fc.double({ min: -1, max: 1, noNaN: true }));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ k: fc.constantFrom("join" as const, "leave" as const, "drop" as const, "back" as const), pid }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("steer" as const), pid, dx: stick, dy: stick, boost: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("ticks" as const), n: fc.integer({ min: 1, max: 30 }) }) },
);

/** Every live entity of the game's world: id, type and record, as comparable text. */
function worldText(game: AgarGame): string {
  const out: string[] = [];
  for (let id = 0; id < game.world.capacity; id++) {
    const type = game.world.typeOfEntity(id);
    if (type) out.push(`${id}:${type}:${JSON.stringify(game.world.record(id, type))}`);
  }
  return out.join("\n");
}

class Twins {
  readonly fast: AgarGame;
  readonly naive: AgarGame;
  private readonly seated = new Set<number>();
  private readonly away = new Set<number>();
  private t = 0;
  queriesFast = 0;
  queriesNaive = 0;

  constructor(seed: number) {
    // A small crowded world: cells eat orbs and one another often.
    const config = { world: 300, aoiRadius: 200, orbs: 40, seed };
    this.fast = new AgarGame(config);
    this.naive = new AgarGame(config);
    const count = (game: AgarGame, bump: () => void): void => {
      const query = game.world.queryCircle.bind(game.world);
      game.world.queryCircle = (...args) => (bump(), query(...args));
    };
    count(this.fast, () => this.queriesFast++);
    count(this.naive, () => this.queriesNaive++);
  }

  apply(op: Op): void {
    const both = (f: (g: AgarGame) => void): void => {
      f(this.fast);
      f(this.naive);
    };
    switch (op.k) {
      case "join":
        if (this.seated.has(op.pid)) return;
        this.seated.add(op.pid);
        return both((g) => g.join(testPlayer(op.pid, `p${op.pid}`)));
      case "leave":
        if (!this.seated.delete(op.pid)) return;
        this.away.delete(op.pid);
        return both((g) => g.leave(op.pid));
      case "drop":
        if (!this.seated.has(op.pid) || this.away.has(op.pid)) return;
        this.away.add(op.pid);
        return both((g) => g.disconnected(op.pid));
      case "back":
        if (!this.away.delete(op.pid)) return;
        return both((g) => g.reconnected(testPlayer(op.pid, `p${op.pid}`)));
      case "steer":
        if (!this.seated.has(op.pid)) return;
        return both((g) => g.applyInput(op.pid, { dx: op.dx, dy: op.dy, boost: op.boost }));
      case "ticks":
        for (let i = 0; i < op.n; i++) {
          this.t += 50;
          // The twin never skips: its pass always looks.
          (this.naive as unknown as { eatQuietAt: number }).eatQuietAt = -1;
          both((g) => g.tick(this.t, 50));
          expect(worldText(this.fast)).toBe(worldText(this.naive));
        }
    }
  }
}

describe("agar: an idle room skips its eating pass", () => {
  it("leaves the world as the pass that looks every tick does, after any joins, leaves, drops, steering and idle ticks", () => {
    let fast = 0;
    let naive = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.array(opArb, { minLength: 1, maxLength: 60 }), (seed, ops) => {
        const t = new Twins(seed);
        for (const op of ops) t.apply(op);
        fast += t.queriesFast;
        naive += t.queriesNaive;
      }),
      { numRuns: 150 },
    );
    // The shortcut was taken (idle stretches are common in these scenarios).
    expect(fast).toBeLessThan(naive);
  }, 60_000);

  /** Puts entity `id`'s record of both twins at (x, y) with radius `r` (a cell's) and tells their worlds. */
  function place(t: Twins, id: number, x: number, y: number, r?: number): void {
    for (const g of [t.fast, t.naive]) {
      const rec = (g.world.record(id, "player") ?? g.world.record(id, "orb")) as { x: number; y: number; r?: number };
      rec.x = x;
      rec.y = y;
      if (r !== undefined) rec.r = r;
      g.world.moved(id);
    }
  }
  const cellId = (g: AgarGame, playerId: number): number => {
    for (let id = 0; id < g.world.capacity; id++) if (g.world.record(id, "player")?.pid === playerId) return id;
    throw new Error(`no cell for ${playerId}`);
  };

  it("a cell that burns mass standing still can be eaten by the one that could not eat it before", () => {
    const t = new Twins(7);
    t.apply({ k: "join", pid: 1 });
    t.apply({ k: "join", pid: 2 });
    // Both cells of radius 60 on one spot, away from the orbs: neither is large enough to eat the other.
    for (const g of [t.fast, t.naive]) for (let id = 0; id < g.world.capacity; id++) if (g.world.record(id, "orb")) place(t, id, 290, 290);
    place(t, cellId(t.fast, 1), 100, 100, 60);
    place(t, cellId(t.fast, 2), 100, 100, 60);
    t.apply({ k: "ticks", n: 2 });
    // Cell 1 boosts with its stick at rest: it shrinks in place until cell 2 can eat it.
    t.apply({ k: "steer", pid: 1, dx: 0, dy: 0, boost: true });
    t.apply({ k: "ticks", n: 60 });
    expect(t.fast.cellOf(2)!.score).toBeGreaterThan(0);
  });

  it("a cell back from a drop eats the orb placed under it while it was away", () => {
    const t = new Twins(11);
    t.apply({ k: "join", pid: 1 });
    for (const g of [t.fast, t.naive]) for (let id = 0; id < g.world.capacity; id++) if (g.world.record(id, "orb")) place(t, id, 290, 290);
    place(t, cellId(t.fast, 1), 100, 100, 40);
    t.apply({ k: "ticks", n: 2 });
    t.apply({ k: "drop", pid: 1 });
    let orb = -1;
    for (let id = 0; id < t.fast.world.capacity && orb < 0; id++) if (t.fast.world.record(id, "orb")) orb = id;
    place(t, orb, 100, 100);
    t.apply({ k: "ticks", n: 2 });
    t.apply({ k: "back", pid: 1 });
    t.apply({ k: "ticks", n: 2 });
    expect(t.fast.cellOf(1)!.score).toBe(1);
  });
});
