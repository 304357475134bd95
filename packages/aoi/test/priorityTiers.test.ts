import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PriorityTiers } from "../src/index";

const tierList = fc
  .array(fc.record({ radius: fc.double({ min: 0, max: 1000, noNaN: true }), every: fc.integer({ min: 1, max: 8 }) }), {
    minLength: 1,
    maxLength: 4,
  });

describe("PriorityTiers", () => {
  it("puts a distance in the first (innermost) tier that contains it, inclusive", () => {
    fc.assert(
      fc.property(tierList, fc.double({ min: 0, max: 1200, noNaN: true }), (tiers, d) => {
        const p = new PriorityTiers(tiers);
        const sorted = [...tiers].sort((a, b) => a.radius - b.radius);
        const expected = sorted.findIndex((t) => d * d <= t.radius * t.radius);
        expect(p.tierOf(d * d)).toBe(expected);
        expect(p.radius).toBe(sorted[sorted.length - 1].radius);
        if (expected >= 0) expect(p.everyOf(expected)).toBe(sorted[expected].every);
      }),
    );
  });

  it("makes a tier due exactly once in every window of `every` consecutive flushes, for any phase", () => {
    fc.assert(
      fc.property(tierList, fc.nat(1_000_000), fc.nat(1_000_000), (tiers, phase, start) => {
        const p = new PriorityTiers(tiers);
        for (let t = 0; t < p.tiers.length; t++) {
          const every = p.everyOf(t);
          let due = 0;
          for (let f = start; f < start + every; f++) if (p.isDue(t, f, phase)) due++;
          expect(due).toBe(1);
          // isDueAt agrees with tierOf + isDue.
          const d2 = p.tiers[t].radius ** 2;
          expect(p.isDueAt(d2, start, phase)).toBe(p.isDue(p.tierOf(d2), start, phase));
        }
        expect(p.isDueAt(Infinity, start, phase)).toBe(false);
      }),
    );
  });

  it("spreads phases over viewers", () => {
    const seen = new Set<number>();
    for (let id = 0; id < 64; id++) seen.add(PriorityTiers.phaseFor(id) % 4);
    expect(seen.size).toBe(4);
  });

  it("rejects malformed tiers", () => {
    expect(() => new PriorityTiers([])).toThrow();
    expect(() => new PriorityTiers([{ radius: 10, every: 0 }])).toThrow();
    expect(() => new PriorityTiers([{ radius: NaN, every: 1 }])).toThrow();
  });
});
