import { systemClock, type Clock } from "@tikron/core";

/**
 * The Node host's room clock: the system clock, with `setImmediate` for a room's next task (the
 * later slices of a big flush). It runs in the event loop's check phase, right after the poll
 * phase has handed over the socket data waiting, so inputs get in between two slices, and it
 * has none of a zero-delay timer's 1 ms floor.
 */
export const nodeClock: Clock = {
  ...systemClock,
  nextTask: (fn) => void setImmediate(fn),
};
