import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CellTable } from "../src/cellTable";

describe("CellTable", () => {
  it("behaves like a Map under any add/delete sequence, including probe runs that wrap", () => {
    // Few distinct keys drawn from a wide range plus dense runs: collisions and wrap-around
    // of probe runs at the end of the table both happen often.
    const key = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 0x3fffffff }), fc.integer({ min: 1000, max: 1100 }));
    const op = fc.tuple(fc.boolean(), key, fc.integer({ min: 0, max: 1000 }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 250, size: "large" }), (ops) => {
        const t = new CellTable();
        const m = new Map<number, number>();
        for (const [isAdd, k, v] of ops) {
          if (isAdd && !m.has(k)) {
            t.add(k, v);
            m.set(k, v);
          } else if (!isAdd) {
            t.delete(k);
            m.delete(k);
          }
          expect(t.size).toBe(m.size);
          for (const [mk, mv] of m) expect(t.get(mk)).toBe(mv);
          expect(t.get(k)).toBe(m.has(k) ? m.get(k) : -1);
        }
      }),
      { numRuns: 120 },
    );
  }, 60_000);
});
