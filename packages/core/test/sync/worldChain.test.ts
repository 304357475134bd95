/**
 * A world kept as a chain of checkpoint pieces (`WorldChain`) against its naive twin, the whole
 * checkpoint: whenever a piece is taken, the chain read back whole holds exactly what a whole
 * checkpoint taken at the same moment holds, through spawns, despawns, reused slots, field and
 * map changes, with pieces taken between flushes too and chains started over by their limits.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SyncWorld, WorldChain, checkpointWorld, findWorldPiece, joinWorldChain, readWorldCheckpoint, type WorldCheckpoint } from "../../src/sync/index";
import { SyncScenario, opArb, testSchema, type Op } from "./syncHarness";

/** Through JSON, as a host stores it. */
const stored = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** What a world checkpoint holds, comparable: entities by id with type and record. */
function contents(cp: WorldCheckpoint): [number, string, unknown][] {
  return [...readWorldCheckpoint(testSchema, stored(cp)).values()].map((e) => [e.id, e.type, e.record] as [number, string, unknown]).sort((a, b) => a[0] - b[0]);
}

/** Takes the chain's next piece as a room does: the chain is on the world only while the game checkpoints. */
function takePiece(world: SyncWorld<typeof testSchema.decl>, chain: WorldChain): WorldCheckpoint {
  world.chain = chain;
  try {
    return checkpointWorld(world);
  } finally {
    world.chain = null;
  }
}

const step = fc.oneof({ weight: 6, arbitrary: opArb.map((op) => ({ op })) }, { weight: 1, arbitrary: fc.constant({ take: true as const }) });

describe("a world's checkpoint chain", () => {
  it("read back whole equals a whole checkpoint taken at the same moment (property, pieces between flushes too)", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 200, size: "large" }), fc.integer({ min: 2, max: 8 }), (steps, maxPieces) => {
        const s = new SyncScenario([{ radius: 300, every: 1 }]);
        const chain = new WorldChain({ maxPieces, maxChangeRatio: 3 });
        let pieces: WorldCheckpoint[] = [];
        const check = () => {
          const piece = stored(takePiece(s.world, chain));
          if (piece.piece === 0) pieces = [];
          pieces.push(piece);
          expect(contents(joinWorldChain(pieces))).toEqual(contents(checkpointWorld(s.world)));
        };
        for (const x of steps) {
          if ("take" in x) check();
          else s.apply(x.op as Op);
        }
        s.flush();
        check();
      }),
      { numRuns: 120 },
    );
  }, 120_000);

  it("starts with a base, holds only what changed after it, and starts over at its piece limit", () => {
    const world = new SyncWorld(testSchema, { tiers: [{ radius: 300, every: 1 }] });
    const orbs = Array.from({ length: 20 }, (_, i) => ({ x: i, y: i, color: 1, lit: false }));
    const ids = orbs.map((o) => world.spawn("orb", o));
    world.quantizeAll();
    const chain = new WorldChain({ maxPieces: 3, maxChangeRatio: 100 });
    const base = takePiece(world, chain);
    expect(base.piece).toBe(0);
    expect(chain.lastPiece).toBe(0);
    // Nothing changed: an empty piece.
    expect(takePiece(world, chain)).toEqual({ schema: testSchema.hash, entities: "", piece: 1 });
    orbs[3]!.x = 500;
    world.despawn(ids[7]!);
    world.quantizeAll();
    const change = takePiece(world, chain);
    expect(change.piece).toBe(2);
    expect(change.entities.length).toBeLessThan(base.entities.length / 5);
    expect(takePiece(world, chain).piece).toBe(0);
    expect(chain.taken).toBe(4);
  });

  it("starts over with a base once the changes outweigh the base, and when told to", () => {
    const world = new SyncWorld(testSchema, { tiers: [{ radius: 300, every: 1 }] });
    const orbs = Array.from({ length: 10 }, (_, i) => ({ x: i, y: i, color: 1, lit: false }));
    for (const o of orbs) world.spawn("orb", o);
    const chain = new WorldChain({ maxPieces: 100, maxChangeRatio: 1 });
    const pieceAfterMovingAll = () => {
      for (const o of orbs) o.x += 3;
      world.quantizeAll();
      return takePiece(world, chain).piece;
    };
    expect(takePiece(world, chain).piece).toBe(0);
    // Every orb changes each time: the changes weigh about a base apiece.
    expect([pieceAfterMovingAll(), pieceAfterMovingAll(), pieceAfterMovingAll()]).toEqual([1, 2, 0]);
    chain.rebase();
    expect(takePiece(world, chain).piece).toBe(0);
  });

  it("is refused piece by piece: a later piece alone, or pieces that are not one chain", () => {
    const world = new SyncWorld(testSchema, { tiers: [{ radius: 300, every: 1 }] });
    const orb = { x: 1, y: 1, color: 1, lit: false };
    world.spawn("orb", orb);
    const chain = new WorldChain();
    const base = takePiece(world, chain);
    orb.x = 9;
    world.quantizeAll();
    const next = takePiece(world, chain);
    expect(() => readWorldCheckpoint(testSchema, next)).toThrow(/piece 1/);
    expect(() => joinWorldChain([next])).toThrow(/starts with a base/);
    expect(() => joinWorldChain([base, { ...next, piece: 2 }])).toThrow(/piece 1 is not the next/);
    expect(readWorldCheckpoint(testSchema, joinWorldChain([base, next])).values().next().value?.record).toMatchObject({ x: 9 });
  });

  it("is found in a game's checkpoint wherever the game put it", () => {
    const piece: WorldCheckpoint = { schema: 1, entities: "", piece: 3 };
    expect(findWorldPiece({ v: 1, world: piece, players: [1, 2] })).toBe(piece);
    expect(findWorldPiece({ a: [{ b: piece }] })).toBe(piece);
    expect(findWorldPiece({ v: 1, world: { schema: 1, entities: "" } })).toBeNull();
    expect(findWorldPiece(null)).toBeNull();
  });
});
