import type { ClockSync, ConnectionStats, RoomConnection, SnapshotBuffer } from "@tikron/client";

/**
 * What the overlay, the net graph and the debug handle show of a game: the connection's traffic
 * counters beside the numbers of the parts the page opted into (its clock, its interpolation
 * buffer, its predictor), each read off its owner.
 */
export interface SessionStats extends ConnectionStats {
  /** The clock's smoothed round trip (ms). */
  rttMs: number;
  /** The lowest round trip in the clock's window (ms). */
  minRttMs: number;
  /** The clock's applied offset, server − local (ms; 0 before the first sample). */
  clockOffsetMs: number;
  /** The interpolation delay of the remote entities (ms). */
  interpolationDelayMs: number;
  /** Starvation episodes of the interpolation buffer. */
  starvations: number;
  /** Prediction error at the latest reconciliation (0 without prediction). */
  predictionError: number;
  /** Largest prediction error so far. */
  predictionErrorMax: number;
  /** Inputs sent and not yet acknowledged, per the predictor. */
  pendingInputs: number;
}

/** The numbers of a predictor the page shows (a `Predictor` fits). */
export interface PredictionNumbers {
  readonly lastError: number;
  readonly maxError: number;
  readonly pending: number;
}

/** A reader of a session's {@link SessionStats}: one object, refreshed on every call, so reading allocates nothing. */
export function sessionStats(conn: RoomConnection<any>, clock: ClockSync, buffer: SnapshotBuffer, predictor?: PredictionNumbers): () => SessionStats {
  const s = {} as SessionStats;
  return () => {
    Object.assign(s, conn.stats);
    s.rttMs = clock.rttMs;
    s.minRttMs = clock.minRttMs;
    s.clockOffsetMs = clock.offsetMs;
    s.interpolationDelayMs = buffer.delayMs;
    s.starvations = buffer.starvations;
    s.predictionError = predictor ? predictor.lastError : 0;
    s.predictionErrorMax = predictor ? predictor.maxError : 0;
    s.pendingInputs = predictor ? predictor.pending : 0;
    return s;
  };
}
