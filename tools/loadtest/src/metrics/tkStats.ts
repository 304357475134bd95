/**
 * Reading the room's own `tk:stats` snapshot. The tool does not own that schema, so every figure
 * is looked up at a short list of documented paths; when none matches the figure is reported as
 * missing (and a gate that needs it fails), never guessed.
 */

/** Paths (dot-separated, milliseconds) where the flush-duration p99 may live. */
export const FLUSH_P99_PATHS = ["flush.p99", "flushMs.p99", "flush.p99Ms"] as const;
/** Paths (dot-separated, milliseconds) where the tick-duration p99 may live. */
export const TICK_P99_PATHS = ["tick.p99", "tickMs.p99", "tick.p99Ms"] as const;

/** Paths (dot-separated, milliseconds) where the p99 of a flush's longest slice (task) may live. */
export const FLUSH_SLICE_P99_PATHS = ["flushSlice.p99"] as const;

/** Paths (dot-separated, milliseconds) where the tick timer's lateness p99 may live. */
export const TIMER_LATE_P99_PATHS = ["timerLate.p99"] as const;

/** The value at a dot path, or undefined. */
export function at(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split(".")) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** The first finite number found at any of `paths`, or null. */
export function firstNumber(obj: unknown, paths: readonly string[]): number | null {
  for (const p of paths) {
    const v = at(obj, p);
    if (typeof v === "number" && Number.isFinite(v)) return v;
  }
  return null;
}

/** Flush-duration p99 (ms) from a tk:stats snapshot, or null when the snapshot lacks it. */
export function flushP99Ms(stats: unknown): number | null {
  return firstNumber(stats, FLUSH_P99_PATHS);
}

/**
 * The p99 of each flush's longest slice (ms): how long a flush held the room's thread at once
 * (the room sends a big flush in slices; `flush` spans them all). Null from a room without slices.
 */
export function flushSliceP99Ms(stats: unknown): number | null {
  return firstNumber(stats, FLUSH_SLICE_P99_PATHS);
}

/** Tick-duration p99 (ms) from a tk:stats snapshot, or null when the snapshot lacks it. */
export function tickP99Ms(stats: unknown): number | null {
  return firstNumber(stats, TICK_P99_PATHS);
}

/** Tick-timer lateness p99 (ms) from a tk:stats snapshot, or null when the snapshot lacks it. */
export function timerLateP99Ms(stats: unknown): number | null {
  return firstNumber(stats, TIMER_LATE_P99_PATHS);
}

/**
 * The room object's own time as a % of one thread (tk:stats `busy.share` × 100: the part of the
 * room's last 10 s spent inside the object, core busyMeter.ts), or null from a server that does
 * not meter it. In a relayed room it is the simulation's alone. Under `wrangler dev` every object
 * shares one workerd thread, so this, not the process CPU, tells a simulation from its relays.
 */
export function busyPct(stats: unknown): number | null {
  const share = firstNumber(stats, ["busy.share"]);
  return share === null ? null : Math.round(share * 1e4) / 100;
}

/**
 * A relayed room's relays' own time, summed, as a % of one thread (each relay's last report in
 * tk:stats `relays[]`); null from a room without relays or relays that do not meter it.
 */
export function relaysBusyPct(stats: unknown): number | null {
  const relays = at(stats, "relays");
  if (!Array.isArray(relays) || relays.length === 0) return null;
  let sum = 0;
  for (const r of relays) {
    const pct = busyPct(r);
    if (pct === null) return null;
    sum += pct;
  }
  return Math.round(sum * 100) / 100;
}

/** How many relays a relayed room's tk:stats lists (0 for a single room). */
export function relayCount(stats: unknown): number {
  const relays = at(stats, "relays");
  return Array.isArray(relays) ? relays.length : 0;
}
