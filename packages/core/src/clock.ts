/** Opaque timer handle returned by a {@link Clock}. */
export type TimerHandle = unknown;

/**
 * Time source and timer for the room core. The Cloudflare adapter passes the runtime's clock;
 * tests pass a {@link FakeClock} so tick cadence is deterministic.
 */
export interface Clock {
  /** Milliseconds, monotonic enough for scheduling (epoch ms in production). */
  now(): number;
  /** Calls `fn` once after `delayMs` (clamped to ≥ 0). */
  setTimer(fn: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer from {@link Clock.setTimer}; a no-op for one that already ran. */
  clearTimer(handle: TimerHandle): void;
  /**
   * Calls `fn` in a task of its own as soon as the runtime gets to it, after the socket events
   * and timers already waiting (a microtask would not let them in). The room runs the second
   * and later slices of a big flush through it. Absent: `setTimer(fn, 0)`.
   */
  nextTask?(fn: () => void): void;
}

/** `clock.nextTask(fn)`, or a zero-delay timer on a clock without one. */
export function runNextTask(clock: Clock, fn: () => void): void {
  if (clock.nextTask) clock.nextTask(fn);
  else clock.setTimer(fn, 0);
}

/**
 * The real clock: `Date.now()` + `setTimeout`; its next task is a zero-delay `setTimeout`, which
 * every runtime has (hosts that know better pass their own: the Node host's `setImmediate`).
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, delayMs) => setTimeout(fn, Math.max(0, delayMs)),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  nextTask: (fn) => void setTimeout(fn, 0),
};
