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
