/** What a room's spectators cost and did, counted by its hub (core/src/spectate). */
export interface SpectatorCounters {
  /** Frames sent to spectators (deltas and idle frames; each send counted). */
  frames: number;
  /** Keyframes sent (a join, a target switch, a spectator back from being behind). */
  keyframes: number;
  /** Encodes run: one per target group per flush, one per keyframe. The cost that does not grow with spectators. */
  encodes: number;
  /** Bytes sent to spectators. */
  bytesOut: number;
  /** Frames a spectator could not take (its socket behind): it gets a keyframe later. */
  skipped: number;
  /** Inputs and other seat-only messages refused from spectators (`spectating`). */
  refused: number;
  /** Spectator joins refused because the room held `maxSpectators`. */
  refusedFull: number;
  /** Stream messages a spectator mirror could not read (it then waits for a snapshot). */
  streamErrors: number;
}

/** The `spectators` section of `tk:stats`: one object's spectators. */
export interface SpectatorStats extends SpectatorCounters {
  /** Spectator sockets connected now. */
  connected: number;
  /** Delay lanes (one mirror each) and target groups (one encode each per flush) now. */
  lanes: number;
  groups: number;
}

/** Counters at zero. */
export function newSpectatorCounters(): SpectatorCounters {
  return { frames: 0, keyframes: 0, encodes: 0, bytesOut: 0, skipped: 0, refused: 0, refusedFull: 0, streamErrors: 0 };
}
