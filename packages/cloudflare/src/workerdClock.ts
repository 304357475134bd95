import type { Clock } from "@tikron/core";

/**
 * The clock of every object this package makes: `Date.now()` and `setTimeout`. A room's next task
 * (the later slices of a big flush) is a zero-delay `setTimeout`: workerd runs it as an event of
 * its own, after the WebSocket messages and timers already waiting, which is the point; a
 * microtask would run before them. It exists under every compatibility date, where
 * `setImmediate` needs Node.js compatibility (on by default only from the 2026-08-04 date, and a
 * game's own Worker may be older) and `MessageChannel` was long missing from Workers. Whether
 * one of those gets back to the room sooner under load is for a profile to say, not assumed.
 */
export const workerdClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, delayMs) => setTimeout(fn, Math.max(0, delayMs)),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  nextTask: (fn) => void setTimeout(fn, 0),
};
