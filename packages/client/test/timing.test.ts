import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { approach, WindowMin } from "../src/timing";

describe("WindowMin", () => {
  it("matches a scan of every sample still in the window (by span and by capacity)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 50 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: -5, max: 5 }), fc.boolean()), { minLength: 1, maxLength: 80 }),
        (capacity, span, steps) => {
          const w = new WindowMin(capacity, span);
          const all: { at: number; key: number }[] = [];
          let at = 0;
          steps.forEach(([advance, key, clear]) => {
            if (clear) {
              w.clear();
              all.length = 0;
              expect(w.min).toBe(Infinity);
            }
            at += advance;
            w.add(at, key);
            all.push({ at, key });
            // Naive: the newest `capacity` samples, those at most `span` before the newest.
            const kept = all.slice(-capacity).filter((s) => at - s.at <= span);
            const min = Math.min(...kept.map((s) => s.key));
            const newestAtMin = kept.filter((s) => s.key === min).at(-1)!;
            expect(w.min).toBe(min);
            expect(w.minAt).toBe(newestAtMin.at);
          });
        },
      ),
    );
  });
});

describe("WindowMin.shift", () => {
  it("is a window of the same samples, every one moved (a scan of them, shifted, agrees before and after the next add)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 50 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: -5, max: 5 }), fc.option(fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 })))), {
          minLength: 1,
          maxLength: 80,
        }),
        (capacity, span, steps) => {
          const w = new WindowMin(capacity, span);
          const all: { at: number; key: number }[] = [];
          let at = 0;
          const check = () => {
            const kept = all.slice(-capacity).filter((s) => at - s.at <= span);
            const min = Math.min(...kept.map((s) => s.key));
            expect(w.min).toBe(min);
            expect(w.minAt).toBe(kept.filter((s) => s.key === min).at(-1)!.at);
          };
          for (const [advance, key, shift] of steps) {
            at += advance;
            w.add(at, key);
            all.push({ at, key });
            check();
            if (shift) {
              const [dAt, dKey] = shift;
              w.shift(dAt, dKey);
              for (const s of all) {
                s.at += dAt;
                s.key += dKey;
              }
              at += dAt;
              check();
            }
          }
        },
      ),
    );
  });
});

describe("approach", () => {
  it("moves by at most the step and lands exactly on the target", () => {
    fc.assert(
      // Integers, so the expected sums are exact.
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 0, max: 1e4 }), (from, to, step) => {
        const next = approach(from, to, step);
        if (Math.abs(to - from) <= step) expect(next).toBe(to);
        else expect(next).toBe(to > from ? from + step : from - step);
      }),
    );
  });
});
