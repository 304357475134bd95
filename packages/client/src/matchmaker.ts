import { CloseCode, type AnyGameTypes, type MatchErrorCode, type MatchFilters, type MatchMode, type RoomListing, type SeatReservation } from "@tikron/protocol";
import { JoinError } from "./joinError";
import { joinSeat, type ConnectionOf, type JoinOptions, type MatchOptions } from "./seatJoin";

/** Options of {@link matchmaker}. */
export interface MatchmakerOptions {
  /**
   * The player's match ticket (production: minted by the game backend with room id `*`), sent as
   * `Authorization: Bearer`. A function is called before every request.
   */
  ticket?: string | (() => string | Promise<string>);
  /**
   * The player's sign-in token (a JWT) from the provider the game already uses, sent as
   * `Authorization: Bearer` when the server verifies such tokens. A function is called before
   * every request. Send this or a `ticket`, not both.
   */
  authToken?: string | (() => string | Promise<string>);
  /** `fetch` to use; default the global one. */
  fetch?: typeof fetch;
}

/** A queue request: the player's rating, and a signal to leave the queue. */
export interface QueueOptions {
  /** The player's rating. */
  rating: number;
  /** Aborting it leaves the queue (`DELETE /match/<kind>/queue/<id>`); the promise rejects `cancelled`. */
  signal?: AbortSignal;
}

/** Joins refused for reasons another room fixes: the client matches again instead of retrying. */
const REMATCH: readonly number[] = [CloseCode.room_full, CloseCode.reservation_invalid, CloseCode.room_locked];
/** Matchmaker refusals worth asking again for, after the wait they name. */
const RETRY: readonly string[] = ["unavailable", "rate_limited"];
/** Matches one call makes before it gives up (a refused join, a matchmaker restarting). */
const MAX_TRIES = 4;

/**
 * A client of a server's matchmaker (`base`: the server's URL, e.g. `https://play.example.com`; a
 * query on it, such as `?region=eu`, goes with every request).
 * Every call resolves to a joined {@link RoomConnection}, typed by the game declaration when one
 * is passed: the matchmaker reserves a seat, the connection joins with it, and a join a room
 * refuses (full, the reservation expired, locked) matches again, a bounded number of times,
 * instead of retrying the same room. Refusals reject with a {@link JoinError}: the matchmaker's
 * code (`no_room`, `bad_filter`, `unauthorized`, `rate_limited`, `queue_timeout`, `cancelled`, …,
 * with `closeCode` 0) or the room's refusal of the join after the last re-match.
 *
 * @example
 * ```ts
 * const mm = matchmaker("https://play.example.com");
 * const room = await mm.joinOrCreate(tagGame, { filters: { mode: "duel" }, name: "ann" });
 * const rooms = await mm.getAvailableRooms("tag");
 * const mine = await mm.create(tagGame, { private: true }); // share mine.roomId
 * const friend = await mm.joinById(tagGame, mine.roomId);
 * ```
 */
export function matchmaker(base: string, options: MatchmakerOptions = {}): MatchClient {
  return new MatchClient(base, options);
}

/** See {@link matchmaker}. */
export class MatchClient {
  readonly #base: string;
  /** The base URL's query (e.g. `region=eu`, or DEV_MODE room overrides), sent with every request. */
  readonly #query: string;
  readonly #opts: MatchmakerOptions;

  constructor(base: string, options: MatchmakerOptions) {
    const [, head, query] = /^([^?#]*)\??([^#]*)/.exec(base)!;
    this.#base = head!.replace(/^ws(s?):\/\//i, "http$1://").replace(/\/+$/, "");
    this.#query = query!;
    this.#opts = options;
  }

  /** A seat in the fullest open room that matches, or in a new one. */
  joinOrCreate<G extends AnyGameTypes | string>(game: G, options?: MatchOptions & JoinOptions<G>): Promise<ConnectionOf<G>> {
    return this.#match(game, "joinOrCreate", options);
  }

  /** A seat in a new room (`private: true` for a room others join by id). */
  create<G extends AnyGameTypes | string>(game: G, options?: MatchOptions & JoinOptions<G>): Promise<ConnectionOf<G>> {
    return this.#match(game, "create", options);
  }

  /** A seat in an existing open room that matches; rejects `no_room` when there is none. */
  join<G extends AnyGameTypes | string>(game: G, options?: MatchOptions & JoinOptions<G>): Promise<ConnectionOf<G>> {
    return this.#match(game, "join", options);
  }

  /** A seat in room `roomId` (private rooms too). */
  joinById<G extends AnyGameTypes | string>(game: G, roomId: string, options?: JoinOptions<G>): Promise<ConnectionOf<G>> {
    return this.#join(game, `/room/${encodeURIComponent(roomId)}`, () => ({}), options);
  }

  /**
   * Waits in the game's queue until the matchmaker groups the player with others of a near
   * rating, then joins the group's room. Rejects `queue_timeout` when no group formed in time.
   */
  queue<G extends AnyGameTypes | string>(game: G, options: QueueOptions & JoinOptions<G>): Promise<ConnectionOf<G>> {
    const queueId = Math.random().toString(36).slice(2) + Date.now().toString(36);
    const { rating, signal, ...join } = options;
    const leave = () => void this.#fetch(`/${encodeURIComponent(kindOf(game))}/queue/${queueId}`, "DELETE").catch(() => {});
    signal?.addEventListener("abort", leave, { once: true });
    return this.#join(game, "/queue", () => ({ rating, queueId }), join as unknown as JoinOptions<G>).finally(() => signal?.removeEventListener("abort", leave));
  }

  /**
   * Reserves a seat without joining it, for a page that makes its own connection (pass the
   * answer's `reservation` and `roomId` to `connect`): a match (`mode`, `filters`, …) or a room
   * by id (`{roomId}`). The seat is held for the game's reservation lifetime (10 s by default).
   */
  reserve(kind: string, request: ((MatchOptions & { mode?: MatchMode }) | { roomId: string }) & { joinOptions?: object }): Promise<SeatReservation> {
    const path = "roomId" in request ? `/room/${encodeURIComponent(request.roomId)}` : "";
    // A join by id reads only the join options of its body.
    return this.#fetch(`/${encodeURIComponent(kind)}${path}`, "POST", request) as Promise<SeatReservation>;
  }

  /**
   * One request to this server's matchmaking paths (`/match<path>`, the base URL's query added)
   * with this client's credentials: the JSON answer (null for 204), or a rejected `JoinError`
   * with the matchmaker's code. What opt-in parts such as {@link party} are built on.
   */
  request(path: string, method: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.#fetch(path, method, body, signal);
  }

  /** Public, unlocked rooms of `kind` with a free seat, fullest first; `filters` on their metadata. */
  async getAvailableRooms(kind: string, filters: MatchFilters = {}): Promise<RoomListing[]> {
    const q = new URLSearchParams();
    for (const [k, f] of Object.entries(filters)) {
      if (typeof f !== "object") q.set(k, String(f));
      else for (const [b, n] of Object.entries(f)) q.set(`${k}.${b}`, String(n));
    }
    return (await this.#fetch(`/${encodeURIComponent(kind)}/rooms?${q}`, "GET")) as RoomListing[];
  }

  #match<G extends AnyGameTypes | string>(game: G, mode: MatchMode, options: (MatchOptions & JoinOptions<G>) | undefined): Promise<ConnectionOf<G>> {
    const { filters, options: create, private: priv, ...join } = options ?? {};
    return this.#join(game, "", () => ({ mode, filters, options: create, private: priv }), join as JoinOptions<G>);
  }

  /**
   * Match (`POST /match/<kind><path>`), join with the seat; match again when the room refuses the
   * join. The player's join options go in the request too (the matchmaker refuses ones the room
   * would, `bad_request`, before it reserves anything) and in the connection's hellos.
   */
  async #join<G extends AnyGameTypes | string>(game: G, path: string, body: () => object, options: JoinOptions<G> | undefined): Promise<ConnectionOf<G>> {
    const kind = kindOf(game);
    // Left out of the body (JSON.stringify drops undefined) when there are none.
    const joinOptions = (options as { joinOptions?: object } | undefined)?.joinOptions;
    let last: unknown;
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      try {
        return await joinSeat(game, (await this.#fetch(`/${encodeURIComponent(kind)}${path}`, "POST", { ...body(), joinOptions })) as SeatReservation, options);
      } catch (e) {
        last = e;
        // A room that refused the join: another match. The matchmaker restarting or a rate limit:
        // the same request after the wait it named. Anything else is the answer.
        if (!(e instanceof JoinError) || !(REMATCH.includes(e.closeCode) || RETRY.includes(e.code))) throw e;
        if (e.retryAfterMs) await new Promise((r) => setTimeout(r, Math.min(e.retryAfterMs, 10_000)));
      }
    }
    throw last;
  }

  async #fetch(path: string, method: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const given = this.#opts.ticket ?? this.#opts.authToken;
    const ticket = typeof given === "function" ? await given() : given;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (ticket) headers.authorization = `Bearer ${ticket}`;
    const q = this.#query ? (path.includes("?") ? "&" : "?") + this.#query : "";
    const res = await (this.#opts.fetch ?? fetch)(`${this.#base}/match${path}${q}`, { method, headers, body: body === undefined ? null : JSON.stringify(body), signal: signal ?? null });
    if (res.status === 204) return null;
    const out = (await res.json().catch(() => ({}))) as { code?: string; reason?: string; retryAfterMs?: number };
    if (!res.ok) throw new JoinError((out.code ?? "unavailable") as MatchErrorCode, 0, out.reason ?? res.statusText, out.retryAfterMs);
    return out;
  }
}

function kindOf(game: AnyGameTypes | string): string {
  return typeof game === "string" ? game : game.kind;
}
