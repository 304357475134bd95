import type { WelcomeInfo } from "./wire";

/**
 * What a {@link RoomConnection} tells its listeners: lifecycle status and the payload of every
 * event. Kept apart from the connection so code that only listens (overlays, tools) depends on
 * shapes, not on the socket machinery.
 */

/**
 * Connection lifecycle, read as `RoomConnection.status`: `connecting` until the first welcome,
 * `joined` while seated, `reconnecting` between a drop and the next welcome, `closed` for good.
 */
export type ConnectionStatus = "connecting" | "joined" | "reconnecting" | "closed";

/** One state frame as delivered to listeners. */
export interface StateEvent<S> {
  tick: number;
  /** Room time (ms since `roomEpoch`) the tick was simulated at. */
  time: number;
  /** Highest input seq the server processed, or -1 when this frame carries no ack. */
  ackSeq: number;
  /** False when the frame carried no state section (only an ack or events): state is unchanged. */
  changed: boolean;
  /** The decoder's state after this frame. */
  state: S;
  /** Local time (ms, the connection's clock) the frame was received. */
  receivedAt: number;
}

/** One game event from a frame. */
export interface GameEvent {
  tick: number;
  time: number;
  /** Decoded by `decoder.decodeEvent` when present; else bytes (binary) or a JSON value. */
  body: unknown;
}

/** An ERROR from the server, or a problem found locally (`local: true`). */
export interface RoomError {
  code: number;
  /** Symbolic name, e.g. `join_throttled`, `illegal_move`, or a local one such as `schema_mismatch`. */
  name: string;
  reason: string;
  /** When > 0, how long the server asked us to wait before trying again (ms). */
  retryAfterMs: number;
  local: boolean;
}

/** A socket closed. */
export interface CloseInfo {
  /** The WebSocket close code (the server's application code where it sent one). */
  code: number;
  reason: string;
  /** True when a reconnect is scheduled (a `reconnecting` event follows). */
  willReconnect: boolean;
  /** True when {@link RoomConnection.close} caused it. */
  deliberate: boolean;
}

/** A reconnect attempt is scheduled. */
export interface ReconnectingInfo {
  /** 1 for the first retry after a stable connection. */
  attempt: number;
  delayMs: number;
  /** The close that caused it. */
  code: number;
  reason: string;
}

/** Events of a {@link RoomConnection}. */
export interface RoomEvents<S> {
  welcome: WelcomeInfo;
  state: StateEvent<S>;
  event: GameEvent;
  error: RoomError;
  close: CloseInfo;
  reconnecting: ReconnectingInfo;
}
