import { flushIntervalMs } from "@tikron/protocol";

/**
 * State-frame cadence: the gap a client should see between frames, i.e. the interval the room
 * really flushes at (the protocol's `flushIntervalMs`: the sync interval rounded up to whole
 * ticks, the same rule the room runs on).
 */
export function expectedGapMs(tickMs: number, syncIntervalMs: number): number {
  return flushIntervalMs(syncIntervalMs, tickMs);
}

/** Deviation of one observed gap from the expected cadence: |gap − expected|. */
export function jitterMs(gapMs: number, expectedMs: number): number {
  return Math.abs(gapMs - expectedMs);
}
