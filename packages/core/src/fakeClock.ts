import type { Clock, TimerHandle } from "./clock";

interface PendingTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * Deterministic clock for tests: time moves only when {@link advance} is called, and timers fire
 * in deadline order (ties in creation order) as time passes them.
 */
export class FakeClock implements Clock {
  private t: number;
  private nextId = 1;
  private timers: PendingTimer[] = [];

  constructor(start = 1_000_000) {
    this.t = start;
  }

  /** The fake time (advanced only by the test). */
  now(): number {
    return this.t;
  }

  /** Schedules `fn` at `now() + delayMs` of the fake time. */
  setTimer(fn: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.t + Math.max(0, delayMs), fn };
    this.timers.push(timer);
    return timer.id;
  }

  /** A task of its own: a timer due now, so it runs at the next {@link advance} or {@link step}. */
  nextTask(fn: () => void): void {
    this.setTimer(fn, 0);
  }

  /** Cancels a scheduled timer. */
  clearTimer(handle: TimerHandle): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }

  /** Number of timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /**
   * Fires the one timer due first (moving time to its deadline if that is later), so a test can
   * stop between two tasks, e.g. between two slices of a flush. Returns false when none is pending.
   */
  step(): boolean {
    let next: PendingTimer | undefined;
    for (const x of this.timers) if (!next || x.at < next.at || (x.at === next.at && x.id < next.id)) next = x;
    if (!next) return false;
    this.timers = this.timers.filter((x) => x !== next);
    this.t = Math.max(this.t, next.at);
    next.fn();
    return true;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way.
   *
   * @throws RangeError for a negative or non-finite `ms` (time never runs backwards).
   */
  advance(ms: number): void {
    if (!(ms >= 0 && ms < Infinity)) throw new RangeError(`FakeClock.advance takes a finite ms >= 0, got ${ms}`);
    const end = this.t + ms;
    for (;;) {
      let next: PendingTimer | undefined;
      for (const x of this.timers) if (x.at <= end && (!next || x.at < next.at || (x.at === next.at && x.id < next.id))) next = x;
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
  }
}
