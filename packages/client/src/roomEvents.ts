import type { AnyNotices, Notice } from "@tikron/protocol";
import type { WelcomeInfo } from "./wire";

/**
 * What a {@link RoomConnection} tells its listeners: lifecycle status and the payload of every
 * event. Kept apart from the connection so code that only listens (overlays, tools) depends on
 * shapes, not on the socket machinery.
 */

/**
 * Connection lifecycle, read as `RoomConnection.status`: `idle` until `open()` when created with
 * `startClosed`, `connecting` until the first welcome,
 * `joined` while seated, `reconnecting` between a drop and the next welcome, `closed` for good.
 */
export type ConnectionStatus = "idle" | "connecting" | "joined" | "reconnecting" | "closed";

/** One state frame as delivered to listeners. */
export interface StateEvent<S> {
  /** The room's tick number the frame was flushed at. */
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

/** One game event from a frame; `E` is the game's event type when connected with a `game`. */
export interface GameEvent<E = unknown> {
  /** Tick of the frame that carried the event. */
  tick: number;
  /** Room time (ms since `roomEpoch`) of that tick. */
  time: number;
  /**
   * The event: decoded by the game's `decodeEvent` (or `decoder.decodeEvent`) when present; else
   * bytes (binary) or a JSON value.
   */
  body: E;
}

/**
 * An ERROR from the server, or a problem found locally (`local: true`). Print one with its name:
 * `e.name ?? errorName(e.code)`.
 */
export interface RoomError {
  /**
   * Numeric error code (`ErrorCode`, the table in docs/architecture/refusals.md; `errorName(code)` names it, e.g.
   * `join_throttled`, `illegal_move`); 0 for local problems.
   */
  code: number;
  /**
   * Local problems only: what went wrong (`schema_mismatch`, `version_mismatch`, `bad_frame`,
   * `ticket_failed`, `bad_url`). A room's error carries its code alone, so a page that never
   * prints the names bundles no table of them.
   */
  name?: string;
  /** Human-readable detail, for logs. */
  reason: string;
  /** When > 0, how long the server asked us to wait before trying again (ms). */
  retryAfterMs: number;
  /** True when found on this side (undecodable frame, schema mismatch, ticket fetch failed). */
  local: boolean;
}

/** A socket closed. */
export interface CloseInfo {
  /** The WebSocket close code (the server's application code where it sent one). */
  code: number;
  /** The close reason (may be empty). */
  reason: string;
  /** True when a reconnect is scheduled (a `reconnecting` event follows). */
  willReconnect: boolean;
  /** True when {@link RoomConnection.close} caused it. */
  deliberate: boolean;
}

/** The room's rates changed while seated (its game called `ctx.setRates`). */
export interface CadenceInfo {
  /** Simulation tick length (ms). */
  tickMs: number;
  /** Least ms between two state frames (the effective interval: whole ticks). */
  syncIntervalMs: number;
}

/** A reconnect attempt is scheduled. */
export interface ReconnectingInfo {
  /** 1 for the first retry after a stable connection. */
  attempt: number;
  /** Wait before the attempt (ms): jittered backoff, never sooner than the server asked. */
  delayMs: number;
  /** The close that caused it: code and reason. */
  code: number;
  /** The close reason. */
  reason: string;
}

/** Events of a {@link RoomConnection}; `E` is the game's event type, `N` its notice map. */
export interface RoomEvents<S, E = unknown, N = AnyNotices> {
  /** Seated (first join or rejoin); the decoder was just reset to an empty baseline. */
  welcome: WelcomeInfo;
  /** A FRAME was applied (state, ack, or both). */
  state: StateEvent<S>;
  /** A game event from a FRAME, once per event. */
  event: GameEvent<E>;
  /** A notice from the room's game (`ctx.send` / `ctx.broadcast`): its type and payload, typed by the game's `notices`. */
  notice: Notice<N>;
  /** The server refused something, or something went wrong locally. */
  error: RoomError;
  /** A socket closed; `willReconnect` says whether the connection lives on. */
  close: CloseInfo;
  /** A reconnect attempt is scheduled. */
  reconnecting: ReconnectingInfo;
  /**
   * The room's rates changed (CADENCE): `welcome.tickMs` / `syncIntervalMs` now say the new ones,
   * and attached snapshot buffers (interpolation) have adapted.
   */
  cadence: CadenceInfo;
}
