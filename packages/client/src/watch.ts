/**
 * Watching a room as a spectator: {@link watch}. An entry of its own (`@tikron/client/watch`), so
 * a page that only plays bundles none of it, and the SDK's main entry stays within its budget.
 *
 * @module @tikron/client/watch
 */
import {
  FOLLOW_MESSAGE,
  requestsOf,
  spectateQuery,
  type AnyGameTypes,
  type AnyMessages,
  type AnyNotices,
  type EventOf,
  type SpectateTarget,
  type StateOf,
} from "@tikron/protocol";
import { playOutBundles } from "./bundlePlayout";
import type { ConnectOptions, GameConnectOptions } from "./connectOptions";
import { RoomConnection } from "./roomConnection";
import type { WebSocketConstructor } from "./socket";

/** What a spectator watches: a player (by player id) or a point of the world. */
export type WatchTarget =
  | number
  | {
      /** The point's x, in world units. */
      x: number;
      /** The point's y, in world units. */
      y: number;
    };

/** What a spectator asks for beside the connection's options. */
export interface WatchExtras {
  /** Whom to watch: a player id (see as that player sees) or a point; none: someone playing. */
  follow?: WatchTarget;
  /** Seconds behind the live match (whole seconds; the room may hold a longer least delay). */
  delay?: number;
}

/** How to watch with a game's declaration: {@link GameConnectOptions} (room, game, clock, …) and {@link WatchExtras}. */
export type WatchOptions<G extends AnyGameTypes> = Omit<GameConnectOptions<G>, "joinOptions" | "predictor"> & WatchExtras;

/** A spectator's connection: a room connection without a seat, that can switch target. */
export type WatchConnection<S, E = unknown> = RoomConnection<S, never, E, AnyMessages, AnyNotices> & {
  /**
   * Watches another player or point; false, sending nothing, while not joined. The room then
   * sends a welcome (the view clears) and the new target's whole view; a target it refuses
   * comes back as an `error` event (`spectating`). A reconnect watches the target last
   * followed (or the one given to {@link watch}).
   */
  follow(target: WatchTarget): boolean;
};

const toTarget = (t: WatchTarget): SpectateTarget => (typeof t === "number" ? { player: t } : { x: t.x, y: t.y });

/**
 * Watches room `room` on the server at `url` as a spectator: no seat (the room's cap does not
 * count it; its own spectator cap refuses one too many with `spectators_full`), no inputs (one
 * sent is refused with `spectating`), optionally `delay` seconds behind the live match. The
 * connection decodes state as a player's does (`state` events, `whenJoined()`, the same
 * view), its welcome has player id 0. Opt-in: a page that only connects does not bundle it.
 *
 * A delayed spectator gets the frames of a few flushes in one message (a bundle: a tenth of the
 * delay, at most 250 ms; none without a delay): the connection splits it and plays its frames
 * out at their room times, so `state` events come one per frame, spaced as the room made them.
 *
 * @example
 * ```ts
 * const view = watch("wss://play.example.com", { game: agarGame, room: "r1", follow: 3, delay: 2 });
 * view.on("state", (f) => draw(f.state));
 * view.follow({ x: 500, y: 500 });
 * ```
 */
export function watch<G extends AnyGameTypes>(url: string, options: WatchOptions<G>): WatchConnection<StateOf<G>, EventOf<G>>;
/** Watches with an explicit `kind` and `decoder` (see `connect`). */
export function watch<S = unknown>(url: string, options: Omit<ConnectOptions<S>, "joinOptions" | "predictor"> & WatchExtras): WatchConnection<S>;
export function watch(url: string, options: (WatchOptions<AnyGameTypes> | ConnectOptions) & WatchExtras): WatchConnection<unknown> {
  const [, head, query] = /^([^?#]*)\??([^#]*)/.exec(url)!;
  const delaySec = options.delay ?? 0;
  const urlFor = (target: SpectateTarget | null) => `${head}?${query ? query + "&" : ""}${spectateQuery({ target, delaySec })}`;
  const Impl = options.WebSocketImpl ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  const socket = Impl && playOutBundles(Impl, options.now ?? (() => performance.now()));
  const conn = new RoomConnection(urlFor(options.follow === undefined ? null : toTarget(options.follow)), { ...options, WebSocketImpl: socket } as ConnectOptions) as unknown as WatchConnection<unknown>;
  conn.follow = (target) => {
    const t = toTarget(target);
    const sent = conn._send((d) => requestsOf(d).message(0, FOLLOW_MESSAGE, JSON.stringify(t)));
    // A reconnect joins with this URL: it watches what it watched last, not what it began with.
    if (sent) (conn as { baseUrl: string }).baseUrl = urlFor(t);
    return sent;
  };
  return conn;
}
