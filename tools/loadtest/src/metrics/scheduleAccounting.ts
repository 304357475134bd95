import type { Histogram } from "hdr-histogram-js";
import { newHistogram, recordMs } from "./histogram";

/**
 * An input counts as sent on schedule when it leaves at most this long after its scheduled
 * time. Node timers have 1 ms granularity and wake ~1 ms late on an idle loop, so 5 ms (10% of a
 * 20 Hz period) separates normal timer slack from a generator that is falling behind.
 */
export const ON_SCHEDULE_TOLERANCE_MS = 5;

/** A run below this share of on-schedule inputs measured the generator, not the server. */
export const MIN_ON_SCHEDULE_PCT = 99;

/** Counts how late each input left relative to its fixed schedule. */
export class ScheduleAccounting {
  sent = 0;
  onSchedule = 0;
  readonly lag: Histogram = newHistogram();

  /** `lagMs` = actual send time − scheduled time. */
  record(lagMs: number): void {
    this.sent++;
    if (lagMs <= ON_SCHEDULE_TOLERANCE_MS) this.onSchedule++;
    recordMs(this.lag, lagMs);
  }
}

/** Percentage of inputs sent on schedule; 100 when nothing was sent (nothing was late). */
export function onSchedulePct(sent: number, onSchedule: number): number {
  if (sent === 0) return 100;
  return (onSchedule / sent) * 100;
}
