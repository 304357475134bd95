import type { Clock } from "@tikron/core";

/**
 * The clock of every object this package makes: `Date.now()` and `setTimeout`. A room's next task
 * (the later slices of a big flush) is a zero-delay `setTimeout`: workerd runs it as an event of
 * its own, after the WebSocket messages and timers already waiting, which is the point; a
 * microtask would run before them. (`setImmediate` needs the Node compatibility flag, and
 * `MessageChannel` is no cheaper a way to the same event loop.)
 */
export const workerdClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, delayMs) => setTimeout(fn, Math.max(0, delayMs)),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  nextTask: (fn) => void setTimeout(fn, 0),
};
