/** The spectators' counters (their shapes are `tk:stats`'s, in roomStats.ts). */
import type { SpectatorCounters } from "../roomStats";

export type { SpectatorCounters, SpectatorStats } from "../roomStats";

/** Counters at zero. */
export function newSpectatorCounters(): SpectatorCounters {
  return { frames: 0, sends: 0, keyframes: 0, encodes: 0, bytesOut: 0, skipped: 0, refused: 0, refusedFull: 0, streamErrors: 0, helloTimeouts: 0 };
}
