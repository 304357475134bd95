import type { ClockSync } from "./clockSync";
import type { PredictionHooks } from "./connectOptions";
import type { SnapshotBuffer } from "./snapshotBuffer";

/**
 * Live numbers of one connection, for debug overlays and telemetry. The object returned by
 * `RoomConnection.stats` is refreshed on each read and reused, so reading it allocates nothing.
 */
export interface ConnectionStats {
  /** Smoothed round-trip time of the connection's `clock` (ms; 0 without one). */
  rttMs: number;
  /** Lowest round-trip time in the clock-sync window (ms; 0 without a `clock`). */
  minRttMs: number;
  /** Applied clock offset, server − local (ms; 0 without a `clock`). */
  clockOffsetMs: number;
  /** Interpolation delay of the attached snapshot buffer (ms; 0 without one). */
  interpolationDelayMs: number;
  /** Starvation episodes of the attached snapshot buffer. */
  starvations: number;
  /** Prediction error at the latest reconciliation of the attached predictor. */
  predictionError: number;
  /** Largest prediction error of the attached predictor. */
  predictionErrorMax: number;
  /** Inputs sent but not yet acknowledged (per the attached predictor). */
  pendingInputs: number;
  /** Payload bytes received / sent (WebSocket message bodies, all sockets). */
  bytesIn: number;
  /** Payload bytes sent. */
  bytesOut: number;
  /** Messages received / sent. */
  messagesIn: number;
  /** Messages sent. */
  messagesOut: number;
  /** State frames received. */
  frames: number;
  /** Inputs sent. */
  inputsSent: number;
  /** Highest input seq the server acknowledged (-1 before any). */
  lastAck: number;
  /** Successful rejoins after a drop. */
  reconnects: number;
  /** Server messages that failed to decode. */
  decodeErrors: number;
}

/** A stats object with its traffic counters at zero; the other numbers are copied in by {@link refreshStats}. */
export function createStats(): ConnectionStats {
  return { bytesIn: 0, bytesOut: 0, messagesIn: 0, messagesOut: 0, frames: 0, inputsSent: 0, lastAck: -1, reconnects: 0, decodeErrors: 0 } as ConnectionStats;
}

/** Copies the clock's, the snapshot buffer's and the predictor's current numbers into `stats` (0 for those not given). */
export function refreshStats(stats: ConnectionStats, clock: ClockSync | undefined, snapshots: SnapshotBuffer | undefined, predictor: PredictionHooks | undefined): ConnectionStats {
  stats.rttMs = clock ? clock.rttMs : 0;
  stats.minRttMs = clock ? clock.minRttMs : 0;
  // 0 until the first sample (the clock starts, and restarts, with no offset).
  stats.clockOffsetMs = clock ? clock.offsetMs : 0;
  stats.interpolationDelayMs = snapshots ? snapshots.delayMs : 0;
  stats.starvations = snapshots ? snapshots.starvations : 0;
  stats.predictionError = predictor ? predictor.lastError : 0;
  stats.predictionErrorMax = predictor ? predictor.maxError : 0;
  stats.pendingInputs = predictor ? predictor.pending : 0;
  return stats;
}
