/**
 * The room's idle beat: which flushes send a settled client its header-only frame. One rule for
 * the flusher that sends them and the sleeping loop that wakes for them (room/roomSleep.ts).
 */

/**
 * Whether the flush of tick `tick` is an idle beat: the first flush at or after each multiple of
 * `idleMs` of tick time (`tick * tickMs`) with flushes `everyTicks` ticks apart. Every settled
 * client gets its idle frame on the same flushes, so a still room wakes once per beat for all
 * of them, not once per client; a client still hears from its room at least every `idleMs`
 * rounded up to whole flushes. Never with `idleMs` 0 (idle frames off).
 */
export function isIdleBeat(tick: number, tickMs: number, everyTicks: number, idleMs: number): boolean {
  if (!(idleMs > 0)) return false;
  return Math.floor((tick * tickMs) / idleMs) !== Math.floor(((tick - everyTicks) * tickMs) / idleMs);
}

/** The first flush tick after flush tick `tick` that is an idle beat (Infinity with `idleMs` 0). */
export function nextIdleBeat(tick: number, tickMs: number, everyTicks: number, idleMs: number): number {
  if (!(idleMs > 0)) return Infinity;
  // The next multiple of idleMs after this flush's tick time, then the first flush at or after it.
  const boundary = (Math.floor((tick * tickMs) / idleMs) + 1) * idleMs;
  const first = Math.ceil(boundary / tickMs - 1e-9);
  let k = Math.max(tick + everyTicks, Math.ceil(first / everyTicks) * everyTicks);
  // Floating point at the edges: step on until the rule itself says beat (a few steps at most).
  while (!isIdleBeat(k, tickMs, everyTicks, idleMs)) k += everyTicks;
  return k;
}
