/**
 * The state-frame cadence, in one place: the room flushes on tick boundaries, and a client's
 * `syncIntervalMs` is a minimum gap between two frames. The room, the welcome it sends and
 * every client that judges arrival gaps (the load tool, the SDK) derive the cadence from here.
 */

/**
 * Ticks between two flushes: the sync interval rounded **up** to whole ticks, so two frames to
 * one client are never closer than `syncIntervalMs` (a `tickMs` of 50 with a sync interval of
 * 60 flushes every 2 ticks, 100 ms). At least 1; a non-positive `tickMs` counts as one tick.
 * The epsilon keeps float noise (e.g. 0.1 + 0.2) from adding a whole tick.
 */
export function flushEveryTicks(syncIntervalMs: number, tickMs: number): number {
  if (!(tickMs > 0)) return 1;
  return Math.max(1, Math.ceil(syncIntervalMs / tickMs - 1e-9));
}

/**
 * The sync interval a room really runs at: {@link flushEveryTicks} whole ticks. Rooms announce
 * this value in their welcome; a client that knows only the requested interval gets the same
 * number from here. A non-positive `tickMs` (no tick grid) leaves the interval as asked.
 */
export function flushIntervalMs(syncIntervalMs: number, tickMs: number): number {
  if (!(tickMs > 0)) return syncIntervalMs;
  return flushEveryTicks(syncIntervalMs, tickMs) * tickMs;
}
