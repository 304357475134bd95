/**
 * The traffic numbers of one connection, for debug overlays and telemetry: one live object per
 * connection (`RoomConnection.stats`), counted as traffic happens, so reading it allocates
 * nothing. What other parts measure is read off them: the round trip and clock offset off the
 * `clock` (`ClockSync.rttMs`, `minRttMs`, `offsetMs`), the interpolation delay off its buffer
 * (`SnapshotBuffer.delayMs`, `starvations`), the prediction error off the `Predictor`
 * (`lastError`, `maxError`, `pending`).
 */
export interface ConnectionStats {
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

/** A stats object with every counter at zero. */
export function createStats(): ConnectionStats {
  return { bytesIn: 0, bytesOut: 0, messagesIn: 0, messagesOut: 0, frames: 0, inputsSent: 0, lastAck: -1, reconnects: 0, decodeErrors: 0 };
}
