import type { AnyGameTypes, JoinOptionsOf, JsonDialect, StateOf } from "@tikron/protocol";
import type { ClockSync } from "./clockSync";
import type { InputBatching } from "./inputs";
import type { StateDecoder } from "./decoder";
import type { ReconnectOptions } from "./reconnect";
import type { WebSocketConstructor } from "./socket";

/** The prediction side the connection keeps in step with (a `Predictor` fits). */
export interface PredictionHooks {
  /** Called on every welcome: pending inputs are stale after a (re)join. */
  reset(lastSeq?: number): void;
}

/** Options of {@link connect}. */
export interface ConnectOptions<S = unknown> {
  /** Room id (the last path segment). */
  room: string;
  /** Room kind, e.g. `agar` or `ttt-json`. */
  kind: string;
  /**
   * Admission ticket appended as `?ticket=`. A function is called before every attempt, so
   * single-use tickets can be fetched fresh for each reconnect.
   */
  ticket?: string | (() => string | Promise<string>);
  /**
   * The player's sign-in token (a JWT) from the provider the game already uses, appended as
   * `?token=` when the server verifies such tokens (its `AUTH_*` vars). A function is called
   * before every attempt, so a short-lived token is fresh for each reconnect. Send this or a
   * `ticket`, not both.
   */
  authToken?: string | (() => string | Promise<string>);
  /**
   * A seat reservation from the matchmaker (`SeatReservation.reservation`), appended as
   * `?reservation=`: the join takes the seat held for it, and later attempts rejoin with it.
   * Set by {@link matchmaker}'s calls; rarely by hand.
   */
  reservation?: string;
  /** Display name sent in hello. */
  name?: string;
  /**
   * The player's join options (a team, a skin: what the game declares with `defineJoinOptions`),
   * sent in every hello as one JSON object of at most `MAX_JOIN_OPTIONS_BYTES` bytes. The room
   * checks them before a seat is taken: an unknown option, a wrong type, a value out of range or
   * options too large end the join with a `JoinError` `bad_request` whose reason names the option.
   * Typed by the game's declaration when connecting with `game`.
   */
  joinOptions?: object;
  /** Reconnect token of an earlier session (e.g. kept across a page reload) to reclaim its seat. */
  token?: string;
  /**
   * A JSON text-mode room (turn-based kinds such as `ttt-json`): pass the JSON dialect,
   * `json: jsonDialect`. Without it the connection speaks binary (and bundles no JSON decoding).
   */
  json?: JsonDialect;
  /** State decoder; defaults to the raw delta bytes (binary) or the JSON view (JSON rooms). */
  decoder?: StateDecoder<S>;
  /** WebSocket implementation; default `globalThis.WebSocket`. Pass `ws`'s class on older Node. */
  WebSocketImpl?: WebSocketConstructor;
  /** Reconnection and join pacing; `false` disables reconnecting. */
  reconnect?: ReconnectOptions | false;
  /** An attempt that has not been welcomed this long after it started is abandoned (ms). Default 10 000. */
  connectTimeoutMs?: number;
  /**
   * Keepalive period (ms): a ping in binary rooms (which keeps a `clock` synced), the fixed
   * keepalive in JSON rooms. Default 2000. With a `clock`, each welcome is followed by a quick
   * burst of 3 clock pings, 100 ms apart.
   */
  pingIntervalMs?: number;
  /**
   * Binary rooms: send inputs in batches, `inputBatching(ms)` (see there). Off by default: each
   * input goes out at once, and no batching code is bundled.
   */
  batchInputs?: InputBatching;
  /**
   * A clock to keep synced with the room's (`new ClockSync()`): its `serverNow()` and
   * `roomTime()` estimate the room's clocks. Without one the connection syncs no clock and
   * bundles none.
   */
  clock?: ClockSync;
  /** Predictor to reset on every (re)join. */
  predictor?: PredictionHooks;
  /** Local monotonic clock (ms). Default `performance.now()`. */
  now?: () => number;
  /**
   * Create the connection without connecting: its status stays `idle` until
   * `RoomConnection.open()`, so listeners and views can be set up first. Default false.
   */
  startClosed?: boolean;
}

/**
 * Options of {@link connect} with a game declaration (`GameTypes` from the game's client-facing
 * module): the kind, JSON mode, state decoder, input encoder and event decoder all come from
 * `game`, and the connection's inputs, events and state take its types.
 */
export type GameConnectOptions<G extends AnyGameTypes> = Omit<ConnectOptions<StateOf<G>>, "kind" | "json" | "decoder" | "joinOptions"> & {
  /** The game's client-facing declaration (see `defineGameTypes`). */
  game: G;
  /** The player's join options, as the game declares them (see {@link ConnectOptions.joinOptions}). */
  joinOptions?: JoinOptionsOf<G>;
  /** Room kind, when it differs from `game.kind` (one game hosted under several kinds). */
  kind?: string;
};
