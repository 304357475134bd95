/**
 * The tick scheduler against a naive twin: ticks on an absolute grid, and a tick length changed
 * at any moment (from outside the loop or from inside a tick) moves the grid to "one new tick
 * after now", with indexes that go on counting and never more than one timer pending.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock, TickScheduler } from "../src";

/** A step of the script: let time pass, or change the tick length (from outside or inside a tick). */
type Step = { wait: number } | { setTo: number; inside: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ wait: fc.integer({ min: 0, max: 400 }) }),
  fc.record({ setTo: fc.integer({ min: 5, max: 120 }), inside: fc.boolean() }),
);

describe("TickScheduler", () => {
  it("keeps to its grid across tick-length changes, as a naive model of deadlines does", () =>
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 120 }), fc.array(step, { maxLength: 30 }), (first, steps) => {
        const clock = new FakeClock(0);
        const fired: [number, number][] = [];
        // A change asked "inside" waits for the next tick and is made from within it.
        let insideChange: number | null = null;
        const scheduler: TickScheduler = new TickScheduler(clock, first, (k, now) => {
          fired.push([k, now]);
          if (insideChange !== null) {
            scheduler.setTickMs(insideChange);
            insideChange = null;
          }
        });
        // The model: the next deadline and the length, moved to "now + new length" on a change.
        const model = {
          length: first,
          next: first,
          k: 0,
          set(length: number, now: number) {
            this.length = length;
            this.next = now + length;
          },
        };
        const expected: [number, number][] = [];
        const runModelUntil = (t: number) => {
          while (model.next <= t) {
            model.k++;
            expected.push([model.k, model.next]);
            const at = model.next;
            model.next += model.length;
            if (pendingInside !== null) {
              model.set(pendingInside, at);
              pendingInside = null;
            }
          }
        };
        let pendingInside: number | null = null;
        scheduler.start();
        for (const s of steps) {
          if ("wait" in s) {
            runModelUntil(clock.now() + s.wait);
            clock.advance(s.wait);
          } else if (s.inside) {
            insideChange = s.setTo;
            pendingInside = s.setTo;
          } else {
            scheduler.setTickMs(s.setTo);
            model.set(s.setTo, clock.now());
          }
          expect(clock.pending).toBe(1);
        }
        expect(fired).toEqual(expected);
        scheduler.stop();
        expect(clock.pending).toBe(0);
      }),
    ));

  it("stopped, a new length only applies from the next start", () => {
    const clock = new FakeClock(0);
    const at: number[] = [];
    const s = new TickScheduler(clock, 50, (_k, now) => at.push(now));
    s.setTickMs(20);
    expect(clock.pending).toBe(0);
    s.start();
    clock.advance(60);
    expect(at).toEqual([20, 40, 60]);
    s.stop();
  });
});
