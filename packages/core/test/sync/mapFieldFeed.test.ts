import { BinaryReader, FrameWriter, varuint } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MapFieldState } from "../../src/sync/mapFieldState";

/** Everything a map state answers from, as bytes: equal bytes, equal answers to any baseline. */
function stateOf(m: MapFieldState): Uint8Array {
  const w = new FrameWriter();
  m.writeState(w);
  return w.toBytes();
}

// Key ranges wider than the cap and whole maps replaced at once: removals pile up, so old
// tombstones are forgotten, sometimes some of the same sync's own (the whole-state fallback).
const step = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.tuple(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 400 })), { maxLength: 60, size: "max" }) },
  { weight: 1, arbitrary: fc.constant([] as [number, number][]) },
);

describe("a map's change in the world feed", () => {
  it("replayed on a mirror, leaves it the sync's state exactly (keys in the same order, tombstones, horizon)", () => {
    let wholes = 0;
    let changes = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 48 }), (steps, maxKeys) => {
        const field = varuint();
        const sim = new MapFieldState(field, maxKeys);
        const mirror = new MapFieldState(field, maxKeys);
        const w = new FrameWriter();
        let epoch = 1;
        for (const entries of steps) {
          epoch++;
          if (!sim.sync(new Map(entries), epoch)) continue;
          sim.writeChangeOfLastSync(w.reset());
          if (w.peek()[0] === 0) wholes++;
          else changes++;
          mirror.readChange(new BinaryReader(w.toBytes()), epoch);
          expect(stateOf(mirror)).toEqual(stateOf(sim));
        }
      }),
      { numRuns: 300 },
    );
    // Both forms must have been exercised, or the property proved less than it says.
    expect(wholes).toBeGreaterThan(10);
    expect(changes).toBeGreaterThan(1000);
  });

  it("refuses a change that removes a key the mirror does not hold", () => {
    const sim = new MapFieldState(varuint(), 8);
    const mirror = new MapFieldState(varuint(), 8);
    sim.sync(new Map([[1, 1]]), 2);
    sim.sync(new Map(), 3);
    const w = new FrameWriter();
    sim.writeChangeOfLastSync(w);
    expect(() => mirror.readChange(new BinaryReader(w.toBytes()), 3)).toThrow(/missing key 1/);
  });
});
