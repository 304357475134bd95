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
  private readonly timers: PendingTimer[] = [];

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
    const i = this.timers.findIndex((x) => x.id === handle);
    if (i >= 0) this.removeAt(i);
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
    const i = this.firstDue(Infinity);
    if (i < 0) return false;
    this.fire(i);
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
    for (let i = this.firstDue(end); i >= 0; i = this.firstDue(end)) this.fire(i);
    this.t = end;
  }

  // Index loops, no iterators or filtered copies: a benchmark on this clock (the room's
  // allocation per flush) then measures the room, not the clock.

  /** The index of the timer due first at or before `end` (ties in creation order), or -1. */
  private firstDue(end: number): number {
    const timers = this.timers;
    let best = -1;
    for (let i = 0; i < timers.length; i++) {
      const x = timers[i]!;
      if (x.at > end) continue;
      if (best < 0 || x.at < timers[best]!.at || (x.at === timers[best]!.at && x.id < timers[best]!.id)) best = i;
    }
    return best;
  }

  private fire(i: number): void {
    const next = this.timers[i]!;
    this.removeAt(i);
    this.t = Math.max(this.t, next.at);
    next.fn();
  }

  private removeAt(i: number): void {
    const timers = this.timers;
    for (let j = i + 1; j < timers.length; j++) timers[j - 1] = timers[j]!;
    timers.length--;
  }
}