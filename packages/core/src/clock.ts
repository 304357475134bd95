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
}

/** The real clock: `Date.now()` + `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, delayMs) => setTimeout(fn, Math.max(0, delayMs)),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
