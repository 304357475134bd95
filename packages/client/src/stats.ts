/**
 * Live numbers of one connection, for debug overlays and telemetry. The object returned by
 * `RoomConnection.stats` is refreshed on each read and reused, so reading it allocates nothing.
 */
export interface ConnectionStats {
  /** Smoothed round-trip time (ms). */
  rttMs: number;
  /** Lowest round-trip time in the clock-sync window (ms). */
  minRttMs: number;
  /** Applied clock offset, server − local (ms). */
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
