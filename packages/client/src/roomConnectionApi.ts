/**
 * What a game reads and calls on its room connection ({@link RoomConnection}, made by
 * `connect`): its status and seat, the state, inputs, and the ways to leave, come back or move
 * on. How the connection works behind it: roomConnection.ts.
 */
import type { ConnectOptions } from "./connectOptions";
import type { StateDecoder } from "./decoder";
import type { ConnectionStatus } from "./roomEvents";
import type { ConnectionStats } from "./stats";
import type { WelcomeInfo } from "./wire";

/**
 * A room connection as a game sees it: `S` is the state `state` events carry, `I` what
 * {@link sendInput} takes. {@link RoomConnection} is the one implementation.
 */
export interface RoomConnectionApi<S = unknown, I = unknown> {
  /** The server the connection was opened against (`connect`'s `url`). */
  readonly baseUrl: string;

  /** The state decoder in use. */
  readonly decoder: StateDecoder<S>;

  /** Lifecycle status: `idle`, `connecting`, `joined`, `reconnecting` or `closed`. */
  readonly status: ConnectionStatus;

  /**
   * The decoded state now (the decoder's `state`). With a schema it is the live `ClientView`:
   * `room.state.onAdd(...)`, `onRemove(...)` and `onChange("field", (e, value, previous) => ...)`
   * report what each frame changed.
   */
  readonly state: S;

  /** The room id joined (or being joined): `connect`'s `room`, or the last {@link switchTo}'s. */
  readonly room: string;

  /** The room kind joined (or being joined). */
  readonly kind: string;

  /** The latest welcome (null before the first); its `tickMs` and `syncIntervalMs` follow later CADENCE messages. */
  readonly welcome: WelcomeInfo | null;

  /** Our player id in the room (-1 before the first welcome). */
  readonly playerId: number;

  /** The reconnect token; persist it to reclaim the seat after a page reload (pass as `token`). */
  readonly token: string;

  /**
   * The connection's traffic counters, live (the same object on every read). The round trip is
   * the `clock`'s, the interpolation delay its buffer's, the prediction error its predictor's.
   */
  readonly stats: ConnectionStats;

  /**
   * Resolves with the next welcome, or at once when joined; rejects with a {@link JoinError} when
   * the connection ends for good first (or has ended): a refused join (`unauthorized`,
   * `room_full`, `not_found`, …) at once, since those are not retried; a throttled join or a
   * drop once the retries are used up; `closed` after {@link close}.
   */
  whenJoined(): Promise<WelcomeInfo>;

  /**
   * Sends one input and returns its sequence number (strictly increasing for the life of the
   * connection, across reconnects). Connected with a `game`, it takes the game's input type and
   * the game's codec encodes it; otherwise binary rooms take a `Uint8Array`, JSON rooms any JSON
   * value. Returns -1, sending nothing, while not joined: an input held back over a drop would
   * be replayed against a state that has moved on.
   *
   * With `batchInputs` the first input after a quiet interval goes out at once and later ones
   * wait and leave together in one INPUT frame, at most once per interval (the payload is copied:
   * callers may reuse their buffer).
   *
   * @throws TypeError or RangeError when the payload cannot be sent (not bytes in a binary room,
   * too large); no sequence number is used then.
   */
  sendInput(input: I): number;

  /**
   * Closes for good; no reconnect follows. By default a `leave` is sent first so the seat is
   * freed at once; `{ leave: false }` keeps it for the room's reconnection window (resume with
   * {@link token}).
   */
  close(options?: { leave?: boolean }): void;

  /**
   * Leaves the room for good: sends `leave` (the seat is freed at once) and closes. The same
   * connection can join another room afterwards with {@link switchTo}.
   */
  leave(): void;

  /**
   * Connects: the first attempt of a connection made with `startClosed`, or, once closed, the
   * same as {@link reconnect}. Does nothing while connecting or joined.
   */
  open(): void;

  /**
   * Drops the current socket, if any, and connects again at once with the held {@link token}, so
   * the room gives back the seat while it still holds it: after the retries gave up, after
   * `close({ leave: false })`, or when the link looks stuck. Starts a fresh backoff. A `close`
   * event (`deliberate`, `willReconnect`) reports the dropped socket (none without one).
   */
  reconnect(): void;

  /**
   * Leaves the current room (the seat is freed at once) and joins room `room` on this same
   * connection: listeners, the decoder, views and stats carry over; the next welcome resets the
   * decoder and starts a fresh state and a fresh clock, and interpolation buffers are cleared. Works from
   * any status, including after {@link leave} or {@link close}. `kind` switches the room kind
   * too (a game connection keeps its game's types), `ticket` replaces the admission ticket, and
   * `token` reclaims a seat held in the new room.
   */
  switchTo(room: string, options?: { kind?: string; ticket?: ConnectOptions["ticket"]; token?: string }): void;
}
