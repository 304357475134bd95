import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RoomMetrics } from "../src/metrics/roomMetrics";
import { ON_SCHEDULE_TOLERANCE_MS, ScheduleAccounting, onSchedulePct } from "../src/metrics/scheduleAccounting";
import { FixedScheduler, type Scheduled, type SchedulerClock } from "../src/players/schedule";

/** Deterministic clock: timers fire only when the test advances time (possibly late). */
class FakeClock implements SchedulerClock {
  t = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  now = (): number => this.t;
  setTimer = (fn: () => void, ms: number): unknown => {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimer = (h: unknown): void => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  /** Moves time to `to`, firing due timers at their time (or at `to` when `late`). */
  advanceTo(to: number, late = false): void {
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > to) break;
      this.timers.shift();
      this.t = late ? to : Math.max(this.t, next.at);
      next.fn();
    }
    this.t = to;
  }
}

class Item implements Scheduled {
  dueAt = 0;
  heapIndex = -1;
  fired: { first: number; count: number; at: number }[] = [];
  constructor(readonly periodMs: number) {}
  fire(first: number, count: number, now: number): void {
    this.fired.push({ first, count, at: now });
  }
  scheduledTimes(): number[] {
    return this.fired.flatMap((f) => Array.from({ length: f.count }, (_, k) => f.first + k * this.periodMs));
  }
}

describe("FixedScheduler", () => {
  it("fires each input at t0 + k*period, never at or after the end", () => {
    const clock = new FakeClock();
    const s = new FixedScheduler(1000, clock);
    const a = new Item(50);
    s.add(a, 10);
    s.start();
    clock.advanceTo(2000);
    expect(a.scheduledTimes()).toEqual(Array.from({ length: 20 }, (_, k) => 10 + k * 50));
    expect(a.fired.every((f) => f.count === 1 && f.at === f.first)).toBe(true);
    expect(s.size).toBe(0);
  });

  it("a late wake-up fires every missed input with its original scheduled time (no drift, no skipping)", () => {
    const clock = new FakeClock();
    const s = new FixedScheduler(10_000, clock);
    const a = new Item(50);
    s.add(a, 0);
    s.start();
    clock.advanceTo(0);
    clock.advanceTo(175, true); // loop stalled: 50, 100, 150 all due at once
    expect(a.fired.at(-1)).toEqual({ first: 50, count: 3, at: 175 });
    clock.advanceTo(250);
    expect(a.scheduledTimes()).toEqual([0, 50, 100, 150, 200, 250]);
  });

  it("a one-shot entry (period Infinity) fires once, late or not, and can be re-added", () => {
    const clock = new FakeClock();
    const s = new FixedScheduler(1000, clock);
    const a = new Item(Infinity);
    s.add(a, 100);
    s.start();
    clock.advanceTo(400, true); // woken 300 ms late: still one input, with its scheduled time
    expect(a.fired).toEqual([{ first: 100, count: 1, at: 400 }]);
    expect(s.size).toBe(0);
    s.add(a, 600);
    clock.advanceTo(2000);
    expect(a.fired.map((f) => [f.first, f.count])).toEqual([
      [100, 1],
      [600, 1],
    ]);
    s.add(a, 1000); // at the end of the schedule: refused like any input
    expect(s.size).toBe(0);
  });

  it("interleaves many items in due order and removal stops an item", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 5, max: 100 })), { minLength: 1, maxLength: 30 }), (specs) => {
        const clock = new FakeClock();
        const s = new FixedScheduler(500, clock);
        const items = specs.map(([, p]) => new Item(p));
        specs.forEach(([first], i) => s.add(items[i], first));
        s.start();
        clock.advanceTo(250);
        s.remove(items[0]);
        const before = items[0].fired.length;
        clock.advanceTo(1000);
        expect(items[0].fired.length).toBe(before);
        items.slice(1).forEach((it, j) => {
          const [first, p] = specs[j + 1];
          const want: number[] = [];
          for (let t = first; t < 500; t += p) want.push(t);
          expect(it.scheduledTimes()).toEqual(want);
        });
      }),
      { numRuns: 60 },
    );
  });
});

describe("schedule accounting", () => {
  it("counts an input on schedule up to the tolerance and not beyond", () => {
    const a = new ScheduleAccounting();
    a.record(0);
    a.record(ON_SCHEDULE_TOLERANCE_MS);
    a.record(ON_SCHEDULE_TOLERANCE_MS + 0.01);
    a.record(40);
    expect(a.sent).toBe(4);
    expect(a.onSchedule).toBe(2);
    expect(onSchedulePct(a.sent, a.onSchedule)).toBe(50);
    expect(a.lag.totalCount).toBe(4);
  });

  it("room metrics apply the same tolerance", () => {
    const r = new RoomMetrics("r");
    for (const lag of [0.5, 1, 4.9, 5, 5.1, 12, 300]) r.inputSent(lag);
    expect(r.counters.inputsSent).toBe(7);
    expect(r.counters.inputsOnSchedule).toBe(4);
  });

  it("99 of 100 on time is exactly 99%", () => {
    expect(onSchedulePct(100, 99)).toBe(99);
    expect(onSchedulePct(0, 0)).toBe(100);
  });
});
