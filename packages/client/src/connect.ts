import type { AnyGameTypes, AnyMessages, AnyNotices, EventOf, InputOf, MessagesOf, NoticesOf, StateOf } from "@tikron/protocol";
import type { ConnectOptions, GameConnectOptions } from "./connectOptions";
import type { JoinError } from "./joinError";
import { RoomConnection } from "./roomConnection";

export { RoomConnection };

/**
 * Joins room `room` of kind `kind` on the server at `url` (e.g. `wss://game.example.com`) and
 * returns the live connection at once; listen for `welcome` (or await `whenJoined()`).
 *
 * After the socket opens, hello is sent (binary, or JSON with `json: jsonDialect`), carrying the
 * reconnect token on rejoins. Unexpected drops reconnect with jittered, bounded backoff and keep
 * the seat; `join_throttled` is retried no sooner than the server asks; refused joins
 * (`unauthorized`, `forbidden`, `not_found`, `room_full`, ...), closes that mean "do not come
 * back" (replaced, bad hello, room closed, ...) and {@link RoomConnection.close} end the
 * connection, and `whenJoined()` rejects with a {@link JoinError} naming the close.
 *
 * With `game` (a game's `GameTypes` declaration) the kind, JSON mode and state decoder come from
 * it, and the connection is typed by it: `sendInput` takes the game's input (its codec encodes
 * it), `event` bodies are its decoded events (the schema's declared ones), `state` its view,
 * its room messages (`send` / `request`, given by `withMessages`) and `notice` events its notices. With `startClosed: true` the
 * connection waits for {@link RoomConnection.open}.
 *
 * @example
 * ```ts
 * const room = connect("wss://play.example.com", { game: tagGame, room: "r1" });
 * room.sendInput({ dx: 1, dy: 0 });
 * room.on("event", (e) => { if (e.body.kind === "youAre") me = e.body.entity; });
 * ```
 * @throws Error when no WebSocket implementation is available (pass `WebSocketImpl`).
 */
export function connect<G extends AnyGameTypes>(url: string, options: GameConnectOptions<G>): RoomConnection<StateOf<G>, InputOf<G>, EventOf<G>, MessagesOf<G>, NoticesOf<G>>;
/** Joins with an explicit `kind` and `decoder` (raw input payloads and event bodies). */
export function connect<S = unknown>(url: string, options: ConnectOptions<S>): RoomConnection<S, unknown, unknown, AnyMessages, AnyNotices>;
export function connect(url: string, options: ConnectOptions | GameConnectOptions<AnyGameTypes>): RoomConnection<unknown, unknown, unknown, AnyMessages, AnyNotices> {
  return new RoomConnection<unknown, unknown, unknown, AnyMessages, AnyNotices>(url, options);
}
