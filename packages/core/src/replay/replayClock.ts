/**
 * The clock a replayed room runs on (`ReplayClock`): time is set by the replay, record by
 * record, to the times its log holds, and nothing fires by itself. The room's tick timer and a
 * flush's later slices run when the log says they ran (its `tick` and `slice` records); its
 * other timers (a seat's reconnection window, a socket's hello deadline) never fire: a replay
 * frees seats as its log says, and says hello at once.
 */
import type { Clock, TimerHandle } from "../clock";

interface HeldTimer {
  id: number;
  at: number;
  fn: () => void;
}

/** A clock whose time the replay sets and whose timers run only when told (see the module comment). */
export class ReplayClock implements Clock {
  #t: number;
  #nextId = 1;
  readonly #timers: HeldTimer[] = [];
  readonly #tasks: (() => void)[] = [];

  /** A clock at `start` (the recorded room's epoch). */
  constructor(start: number) {
    this.#t = start;
  }

  now(): number {
    return this.#t;
  }

  /** Moves time to `t` (never back: a log's times only go forward). */
  set(t: number): void {
    if (t > this.#t) this.#t = t;
  }

  setTimer(fn: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.#nextId++, at: this.#t + Math.max(0, delayMs), fn };
    this.#timers.push(timer);
    return timer.id;
  }

  clearTimer(handle: TimerHandle): void {
    const i = this.#timers.findIndex((x) => x.id === handle);
    if (i >= 0) this.#timers.splice(i, 1);
  }

  nextTask(fn: () => void): void {
    this.#tasks.push(fn);
  }

  /**
   * Runs the timer due first (ties in the order they were set): in a replayed room, whose only
   * other timers are a reconnection window it lifted far out and hello deadlines it cleared at
   * once, that is its tick. False when none is set.
   */
  fireTimer(): boolean {
    let best = -1;
    const timers = this.#timers;
    for (let i = 0; i < timers.length; i++) {
      if (best < 0 || timers[i]!.at < timers[best]!.at || (timers[i]!.at === timers[best]!.at && timers[i]!.id < timers[best]!.id)) best = i;
    }
    if (best < 0) return false;
    const [timer] = timers.splice(best, 1);
    timer!.fn();
    return true;
  }

  /** Runs the task queued first (a flush's next slice). False when none is queued. */
  runTask(): boolean {
    const fn = this.#tasks.shift();
    if (!fn) return false;
    fn();
    return true;
  }
}
