import { defineSchema, quant, u8 } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_RESTORED_ENTITY_ID, SyncWorld, checkpointWorld, readWorldCheckpoint, type SavedEntity } from "../../src/sync/index";
import { toBase64Url } from "../../src/base64url";
import { SyncScenario, expectedRecord, opArb, testSchema } from "./syncHarness";

const ops = fc.array(opArb, { minLength: 1, maxLength: 150, size: "large" });
/** Through JSON, as a host stores it. */
const stored = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** A fresh world holding `saved` again, every entity under its own id (as a game's restore does). */
function respawn(saved: Map<number, SavedEntity<typeof testSchema.decl>>): SyncWorld<typeof testSchema.decl> {
  const world = new SyncWorld(testSchema, { tiers: [{ radius: 300, every: 1 }] });
  for (const e of saved.values()) world.spawn(e.type, { ...e.record } as never, { id: e.id });
  return world;
}

describe("a world's checkpoint", () => {
  it("holds every live entity, id and type kept, each field as quantized at the last flush (against the field codecs)", () => {
    fc.assert(
      fc.property(ops, (list) => {
        const s = new SyncScenario([{ radius: 300, every: 1 }]);
        for (const op of list) s.apply(op);
        s.flush();
        const saved = readWorldCheckpoint(testSchema, stored(checkpointWorld(s.world)));
        expect([...saved.keys()].sort((a, b) => a - b)).toEqual(s.entities.map((e) => e.id).sort((a, b) => a - b));
        for (const e of s.entities) {
          const got = saved.get(e.id)!;
          expect(got.type).toBe(e.type);
          expect(got.record).toEqual(expectedRecord(e.type, e.rec));
        }
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("restores into a world that checkpoints the same bytes, and whose next spawns take only free ids", () => {
    fc.assert(
      fc.property(ops, fc.integer({ min: 1, max: 40 }), (list, more) => {
        const s = new SyncScenario([{ radius: 300, every: 1 }]);
        for (const op of list) s.apply(op);
        s.flush();
        const cp = checkpointWorld(s.world);
        const saved = readWorldCheckpoint(testSchema, stored(cp));
        const again = respawn(saved);
        expect(checkpointWorld(again)).toEqual(cp);
        const ids = new Set(saved.keys());
        const highWater = Math.max(-1, ...ids) + 1;
        const holes = highWater - ids.size;
        let beyond = 0;
        for (let i = 0; i < more; i++) {
          const id = again.spawn("orb", { x: 0, y: 0, color: 1, lit: false });
          expect(ids.has(id)).toBe(false);
          ids.add(id);
          if (id >= highWater) beyond++;
        }
        // The ids a checkpoint skipped are used before new ones: the world stays dense.
        expect(beyond).toBe(Math.max(0, more - holes));
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("of an empty world is empty and reads back as nothing", () => {
    const world = new SyncWorld(testSchema, { tiers: [{ radius: 300, every: 1 }] });
    const cp = checkpointWorld(world);
    expect(cp).toEqual({ schema: testSchema.hash, entities: "" });
    expect(readWorldCheckpoint(testSchema, cp).size).toBe(0);
  });

  it("is refused whole, with a reason, when it is not one of this schema's", () => {
    const world = new SyncWorld(testSchema, { tiers: [{ radius: 300, every: 1 }] });
    world.spawn("orb", { x: 1, y: 2, color: 3, lit: true });
    const cp = checkpointWorld(world);
    const other = defineSchema({ orb: { x: quant(0, 10, 1), y: quant(0, 10, 1), color: u8() } });
    expect(() => readWorldCheckpoint(other, cp)).toThrow(/schema/);
    expect(() => readWorldCheckpoint(testSchema, null)).toThrow(/not a world checkpoint/);
    expect(() => readWorldCheckpoint(testSchema, { ...cp, entities: "not base64!" })).toThrow(/base64url/);
    expect(() => readWorldCheckpoint(testSchema, { ...cp, entities: cp.entities.slice(0, -3) })).toThrow(/does not decode/);
    // An id past what a world restores would cost a slot per id below it.
    const far = new Uint8Array([2, 1, ...varuint(MAX_RESTORED_ENTITY_ID + 1), 1, 0, 0, 0, 0]);
    expect(() => readWorldCheckpoint(testSchema, { ...cp, entities: toBase64Url(far) })).toThrow(/out of range/);
  });

  it("spawns refuse an id that is taken or out of range", () => {
    const world = new SyncWorld(testSchema, { tiers: [{ radius: 300, every: 1 }] });
    const id = world.spawn("orb", { x: 0, y: 0, color: 0, lit: false });
    expect(() => world.spawn("orb", { x: 0, y: 0, color: 0, lit: false }, { id })).toThrow(/taken/);
    expect(() => world.spawn("orb", { x: 0, y: 0, color: 0, lit: false }, { id: MAX_RESTORED_ENTITY_ID + 1 })).toThrow(/cannot be restored/);
    expect(() => world.spawn("orb", { x: 0, y: 0, color: 0, lit: false }, { id: 1.5 })).toThrow(/cannot be restored/);
    expect(world.size).toBe(1);
  });
});

function varuint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
