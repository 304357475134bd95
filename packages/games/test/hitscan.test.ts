import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rayCircle, rayExitSquare, segmentPointDist2 } from "../src/fps/hitscan";

const coord = fc.double({ min: -500, max: 500, noNaN: true });

describe("hitscan geometry", () => {
  it("rayCircle finds the first crossing a fine march along the ray finds", () => {
    fc.assert(
      fc.property(coord, coord, fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }), coord, coord, fc.double({ min: 1, max: 60, noNaN: true }), (ox, oy, a, cx, cy, r) => {
        const dx = Math.cos(a);
        const dy = Math.sin(a);
        const maxT = 1000;
        const got = rayCircle(ox, oy, dx, dy, cx, cy, r, maxT);
        // Naive: march in 0.05 steps; find the first point inside the circle.
        let naive = -1;
        for (let t = 0; t <= maxT; t += 0.05) {
          const x = ox + dx * t - cx;
          const y = oy + dy * t - cy;
          if (x * x + y * y <= r * r) {
            naive = t;
            break;
          }
        }
        if (naive < 0) {
          // A miss, or a graze thinner than the march step.
          if (got >= 0) {
            const x = ox + dx * got - cx;
            const y = oy + dy * got - cy;
            expect(Math.sqrt(x * x + y * y)).toBeCloseTo(r, 3);
          }
        } else {
          expect(got).toBeGreaterThanOrEqual(0);
          expect(Math.abs(got - naive)).toBeLessThanOrEqual(0.06);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("rayCircle: point-blank is 0, behind is a miss, beyond maxT is a miss", () => {
    expect(rayCircle(0, 0, 1, 0, 5, 0, 10, 100)).toBe(0);
    expect(rayCircle(0, 0, 1, 0, -50, 0, 10, 100)).toBe(-1);
    expect(rayCircle(0, 0, 1, 0, 50, 0, 10, 100)).toBeCloseTo(40, 9);
    expect(rayCircle(0, 0, 1, 0, 50, 0, 10, 39)).toBe(-1);
  });

  it("rayExitSquare stops at the wall", () => {
    expect(rayExitSquare(10, 10, 1, 0, 0, 100)).toBe(90);
    expect(rayExitSquare(10, 10, 0, -1, 0, 100)).toBe(10);
    expect(rayExitSquare(50, 50, Math.SQRT1_2, Math.SQRT1_2, 0, 100)).toBeCloseTo(50 * Math.SQRT2, 9);
  });

  it("segmentPointDist2 agrees with sampling the segment", () => {
    fc.assert(
      fc.property(coord, coord, coord, coord, coord, coord, (ax, ay, bx, by, px, py) => {
        let best = Infinity;
        for (let i = 0; i <= 2000; i++) {
          const u = i / 2000;
          const x = ax + (bx - ax) * u - px;
          const y = ay + (by - ay) * u - py;
          best = Math.min(best, Math.sqrt(x * x + y * y));
        }
        const got = Math.sqrt(segmentPointDist2(ax, ay, bx, by, px, py));
        expect(got).toBeLessThanOrEqual(best + 1e-9);
        // Sampling overestimates by at most half a sample spacing.
        expect(best - got).toBeLessThanOrEqual(Math.hypot(bx - ax, by - ay) / 4000 + 1e-9);
      }),
      { numRuns: 300 },
    );
  });
});
