/**
 * State-frame cadence. The server flushes on tick boundaries no more often than
 * `syncIntervalMs`, so the gap a client should see is the sync interval rounded up to whole ticks.
 */
export function expectedGapMs(tickMs: number, syncIntervalMs: number): number {
  if (!(tickMs > 0)) return syncIntervalMs;
  const sync = Math.max(syncIntervalMs, tickMs);
  return Math.ceil(sync / tickMs - 1e-9) * tickMs;
}

/** Deviation of one observed gap from the expected cadence: |gap − expected|. */
export function jitterMs(gapMs: number, expectedMs: number): number {
  return Math.abs(gapMs - expectedMs);
}
