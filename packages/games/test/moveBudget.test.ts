import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FPS_RULES } from "../src/fps/fpsRules";
import { MoveBudget } from "../src/fps/moveBudget";

const SPEED = FPS_RULES.moveSpeed;
const BURST = (SPEED * FPS_RULES.budgetBurstMs) / 1000;

function budget(now = 0): MoveBudget {
  return new MoveBudget(SPEED, BURST, now, FPS_RULES.budgetSlack);
}

/** Arrival times of packets sent at `sends` with per-packet extra latency: ordered, like TCP. */
function arrivals(sends: number[], jitter: number[], baseLatency: number): number[] {
  const out: number[] = [];
  let last = -Infinity;
  for (let i = 0; i < sends.length; i++) {
    last = Math.max(last, sends[i]! + baseLatency + jitter[i]!);
    out.push(last);
  }
  return out;
}

describe("MoveBudget", () => {
  it("starts full, refills at speed × slack up to the burst, and a refusal spends nothing", () => {
    const b = budget(1000);
    expect(b.available(1000)).toBe(BURST);
    expect(b.take(BURST, 1000)).toBe(true);
    expect(b.available(1000)).toBe(0);
    expect(b.take(1, 1000)).toBe(false);
    expect(b.available(1100)).toBeCloseTo(SPEED * FPS_RULES.budgetSlack * 0.1, 9);
    expect(b.take(SPEED, 1100)).toBe(false);
    expect(b.available(1100)).toBeCloseTo(SPEED * FPS_RULES.budgetSlack * 0.1, 9);
    expect(b.available(100_000)).toBe(BURST);
    // A clock step back is read as no time passing.
    expect(b.take(BURST, 90_000)).toBe(true);
    expect(b.available(90_000)).toBe(0);
  });

  it("accepts every honest move whatever the arrival jitter (bursts after stalls), up to 200 ms", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: FPS_RULES.maxStepMs }), fc.integer({ min: 0, max: 200 }), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: 50,
          maxLength: 400,
        }),
        fc.integer({ min: 0, max: 300 }),
        (steps, baseLatency) => {
          // The client steps from time 0 (it joined then) and sends each step when it ends.
          const sends: number[] = [];
          let clock = 0;
          for (const [dt] of steps) sends.push((clock += dt));
          const at = arrivals(
            sends,
            steps.map((s) => s[1]),
            baseLatency,
          );
          const b = budget(0);
          for (let i = 0; i < steps.length; i++) {
            const [dt, , throttle] = steps[i]!;
            const distance = (throttle * SPEED * dt) / 1000;
            if (!b.take(distance, at[i]!)) return false;
          }
          return true;
        },
      ),
      // A failure found by a random seed before the burst counted the step: a 181 ms stall
      // delivered 250 ms of movement (a 77 ms step, then 95 + 79) at once, 1e-9 over a 250 ms burst.
      { numRuns: 300, examples: [[[...Array.from({ length: 16 }, () => [1, 0, 0] as [number, number, number]), [77, 181, 0.9870129870720221], [95, 0, 0.9999999999999987], [1, 0, 0], [79, 0, 0.9999999999999983], ...Array.from({ length: 30 }, () => [1, 0, 0] as [number, number, number])], 0]] },
    );
  });

  it("accepts a long stall followed by every move at once", () => {
    const b = budget(0);
    // 200 ms of 16 ms steps all held back by a stall and delivered together.
    let ok = true;
    for (let i = 1; i <= 12; i++) ok &&= b.take((SPEED * 16) / 1000, 200);
    expect(ok).toBe(true);
  });

  it("refuses a sustained 1.5× speed whatever the jitter, and never lets through more than speed × slack × time + burst", () => {
    let runs = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 64 }),
        (dt, jitterPattern) => {
          // Each move claims dt ms of movement but is sent every dt / 1.5 ms, for 10 s.
          const n = Math.floor(10_000 / (dt / 1.5));
          const sends = Array.from({ length: n }, (_, i) => ((i + 1) * dt) / 1.5);
          const at = arrivals(
            sends,
            sends.map((_, i) => jitterPattern[i % jitterPattern.length]!),
            40,
          );
          const b = budget(0);
          const step = (SPEED * dt) / 1000;
          let accepted = 0;
          for (let i = 0; i < n; i++) {
            if (b.take(step, at[i]!)) accepted += step;
            // The bucket's invariant, at every point in time.
            expect(accepted).toBeLessThanOrEqual(BURST + SPEED * FPS_RULES.budgetSlack * (at[i]! / 1000) + 1e-6);
          }
          const requested = n * step;
          // About a third of a 1.5× cheat is refused (1 - 1.05/1.5 = 0.3), minus the burst.
          expect(1 - accepted / requested).toBeGreaterThan(0.25);
          runs++;
        },
      ),
      { numRuns: 100 },
    );
    expect(runs).toBe(100);
  });
});
