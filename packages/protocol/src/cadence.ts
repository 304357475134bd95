/**
 * The state-frame cadence, in one place: the room flushes on tick boundaries, and a client's
 * `syncIntervalMs` is a minimum gap between two frames. The room, the welcome it sends and
 * every client that judges arrival gaps (the load tool, the SDK) derive the cadence from here;
 * so do the ranges a room's rates may take (a DEV_MODE join override, or a game changing them
 * at run time: the CADENCE message tells its clients).
 */

/** An inclusive range of whole milliseconds. */
export interface MsRange {
  /** Least value. */
  readonly min: number;
  /** Greatest value. */
  readonly max: number;
}

/** The tick lengths a room may run at (ms). */
export const TICK_MS_RANGE: MsRange = { min: 5, max: 1000 };

/** The sync intervals a room may be asked for (ms; the room rounds up to whole ticks). */
export const SYNC_INTERVAL_MS_RANGE: MsRange = { min: 5, max: 5000 };

/** A room's two rates: how often it ticks, and the least gap between two state frames. */
export interface RoomRates {
  /** Simulation tick length (ms). */
  tickMs: number;
  /** Least ms between two state frames to one client (effective: whole ticks). */
  syncIntervalMs: number;
}

/**
 * Null when `rates` is a whole-ms tick length and sync interval inside {@link TICK_MS_RANGE} and
 * {@link SYNC_INTERVAL_MS_RANGE}; otherwise what is wrong, in words.
 */
export function ratesProblem(rates: RoomRates): string | null {
  for (const [key, range] of [["tickMs", TICK_MS_RANGE], ["syncIntervalMs", SYNC_INTERVAL_MS_RANGE]] as const) {
    const v = rates[key];
    if (!Number.isInteger(v) || v < range.min || v > range.max) return `${key} must be a whole number of ms in ${range.min}..${range.max} (got ${String(v)})`;
  }
  return null;
}

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
