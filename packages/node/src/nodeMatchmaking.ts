import type { IncomingMessage } from "node:http";
import { admissionAddress, resolveRoomOptions, systemClock, type GameDefinition, type ListingInit, type Room } from "@tikron/core";
import {
  Matchmaker,
  anonymousIdentity,
  listingQuery,
  matchOverrides,
  newRoomIdFor,
  randomId,
  resolveMatchmaking,
  seatReservationOf,
  type Caller,
  type RoomCreation,
  type SeatAnswer,
  type SeatRequest,
} from "@tikron/core/match";
import { ANY_ROOM, DEV_MODE_SECRET, mintRoomTicket, verifyRoomTicket } from "@tikron/core/ticket";
import { SIGN_IN_RETRY_MS, type NodeIdentity } from "./nodeIdentity";
import {
  MATCH_ERROR_STATUS,
  MAX_MATCH_BODY_CHARS,
  isMatchError,
  matchError,
  readMatchRequest,
  readQueueRequest,
  routeMatchPath,
  type MatchError,
} from "@tikron/protocol";

/** How long a reservation token stays good as its player's ticket back into the room (s). */
const SEAT_TICKET_TTL_SECONDS = 3600;

/** An HTTP answer: status, JSON body (or none), headers. */
export interface HttpAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** How a matchmaker asks the host to make a room: its DEV_MODE overrides and its listing. */
export interface RoomMaking {
  /** Overrides the room is made with. */
  creation: RoomCreation;
  /** Metadata, visibility and the overrides' key. */
  listing: ListingInit;
}

/** What the Node host's matchmaking needs from the server around it. */
export interface NodeMatchmakingDeps {
  games: Readonly<Record<string, GameDefinition>>;
  devMode: boolean;
  /** Secret of tickets and reservations; DEV_MODE without one signs with the public dev secret. */
  ticketSecret?: string;
  /** Who is calling (tickets, sign-in JWTs), by the host's one rule. */
  identity: NodeIdentity;
  /** The room of a kind and id, made (with `listing` and overrides) when asked to and absent. */
  room(kind: string, roomId: string, create?: RoomMaking): Room | undefined;
}

/**
 * The Node host's matchmakers: one core `Matchmaker` per kind in this process, whose rooms are
 * the host's own (a seat request is a method call), with the same HTTP paths and answers as the
 * Cloudflare gateway (`/match/…`). Rooms report with {@link reported}; joins naming a
 * reservation are checked with {@link verifyReservation}. Directories live in memory: the Node
 * host keeps no state across restarts.
 */
export class NodeMatchmaking {
  private readonly matchmakers = new Map<string, Matchmaker>();

  constructor(private readonly d: NodeMatchmakingDeps) {}

  /** The secret reservations are signed with, or null (production without a secret: none handed out). */
  get secret(): string | null {
    return this.d.ticketSecret ?? (this.d.devMode ? DEV_MODE_SECRET : null);
  }

  /** A room's status changed: its kind's matchmaker hears of it (the host defers this call). */
  reported(kind: string, room: Room): void {
    this.matchmakers.get(kind)?.report(room.status());
  }

  /**
   * Checks a join's `?reservation=`: its identity and reservation id, or why it is refused (the
   * room still decides whether it holds the seat).
   */
  async verifyReservation(token: string, kind: string, roomId: string): Promise<{ identity: string; reservation: string } | string> {
    const secret = this.secret;
    if (!secret) return "joins with a reservation are not configured on this host";
    const verdict = await verifyRoomTicket(token, { secret, kind, roomId });
    if (!verdict.ok) return `seat reservation refused: ${verdict.reason}`;
    if (verdict.claims.seat === undefined) return "seat reservation refused: a room ticket is not a reservation";
    return { identity: verdict.claims.playerId, reservation: verdict.claims.seat };
  }

  /** Serves one `/match/…` request; null when the path is not a match path. */
  async serve(req: IncomingMessage, url: URL, readBody: () => Promise<string>): Promise<HttpAnswer | null> {
    const route = routeMatchPath(url.pathname, req.method ?? "GET");
    if (route === null) return null;
    if ("method" in route) return { status: 405, body: matchError("bad_request", `use ${route.method}`), headers: { allow: route.method } };
    const refuse = (e: MatchError): HttpAnswer => ({
      status: MATCH_ERROR_STATUS[e.code],
      body: e,
      ...(e.retryAfterMs !== undefined ? { headers: { "retry-after": String(Math.max(1, Math.ceil(e.retryAfterMs / 1000))) } } : {}),
    });
    const mm = this.matchmaker(route.kind);
    if (!mm) return refuse(matchError("unknown_kind", `unknown room kind "${route.kind.slice(0, 32)}"`));
    const seat = (out: Awaited<ReturnType<Matchmaker["match"]>>): HttpAnswer =>
      isMatchError(out) ? refuse(out) : { status: 200, body: seatReservationOf(route.kind, out, `ws://${req.headers.host ?? "localhost"}`) };
    const body = async (): Promise<unknown> => {
      const text = await readBody();
      if (text.length > MAX_MATCH_BODY_CHARS) return matchError("bad_request", `the body is over ${MAX_MATCH_BODY_CHARS} characters`);
      if (text.trim() === "") return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return matchError("bad_request", "the body is not JSON");
      }
    };
    switch (route.op) {
      case "rooms": {
        const q = listingQuery(url.searchParams, this.d.devMode);
        if (isMatchError(q)) return refuse(q);
        const listed = mm.list(q.filters, q.overrides);
        return isMatchError(listed) ? refuse(listed) : { status: 200, body: listed };
      }
      case "stats":
        if (!this.d.devMode) return refuse(matchError("forbidden", "stats are available in DEV_MODE only"));
        return { status: 200, body: [{ ...mm.stats(), directory: mm.rooms().map((e) => e.status) }] };
      case "restart":
        return refuse(matchError("forbidden", "the Node host's matchmakers live with the process"));
      case "cancel": {
        const who = await this.caller(req, route.kind);
        if (isMatchError(who)) return refuse(who);
        return mm.cancel(route.queueId, who) ? { status: 204 } : refuse(matchError("not_found", "nothing of yours waits under that queue id"));
      }
      case "joinById": {
        const who = await this.caller(req, route.kind, route.roomId);
        return isMatchError(who) ? refuse(who) : seat(await mm.joinById(route.roomId, who));
      }
      case "queue": {
        const who = await this.caller(req, route.kind);
        if (isMatchError(who)) return refuse(who);
        const b = await body();
        if (isMatchError(b)) return refuse(b);
        const q = readQueueRequest(b);
        return isMatchError(q) ? refuse(q) : seat(await mm.queueFor(q, who));
      }
      case "match": {
        const who = await this.caller(req, route.kind);
        if (isMatchError(who)) return refuse(who);
        const b = await body();
        if (isMatchError(b)) return refuse(b);
        const m = readMatchRequest(b);
        if (isMatchError(m)) return refuse(m);
        const creation = matchOverrides(url.searchParams, this.d.devMode);
        return isMatchError(creation) ? refuse(creation) : seat(await mm.match(m, who, creation));
      }
    }
  }

  /** Stops every matchmaker (queued players are answered `unavailable`). */
  dispose(): void {
    for (const mm of this.matchmakers.values()) mm.dispose();
    this.matchmakers.clear();
  }

  /** Who is asking: a match ticket's or a sign-in JWT's player, or (DEV_MODE, none sent) an anonymous caller. */
  private async caller(req: IncomingMessage, kind: string, roomId?: string): Promise<Caller | MatchError> {
    const verdict = await this.d.identity.caller(req, kind, roomId === undefined ? ANY_ROOM : [ANY_ROOM, roomId], true);
    if (verdict.ok) {
      if (verdict.identity !== null) return { identity: verdict.identity, verified: true, rateKey: verdict.identity };
      return { identity: anonymousIdentity(), verified: false, rateKey: admissionAddress(req.socket.remoteAddress) };
    }
    if (verdict.reason === "unconfigured") return matchError("unavailable", "matchmaking is not configured on this host", 60_000);
    if (verdict.reason === "jwks_unavailable") return matchError("unavailable", verdict.message, SIGN_IN_RETRY_MS);
    if (verdict.status === 401) return matchError("unauthorized", "a match ticket (Authorization: Bearer <ticket>, room id *) or a sign-in token (Authorization: Bearer <JWT>) is required");
    return matchError("forbidden", `match request refused: ${verdict.message}`);
  }

  private matchmaker(kind: string): Matchmaker | undefined {
    const existing = this.matchmakers.get(kind);
    if (existing) return existing;
    const def = Object.hasOwn(this.d.games, kind) ? this.d.games[kind] : undefined;
    if (!def) return undefined;
    const spec = resolveMatchmaking(def.matchmaking);
    const mm = new Matchmaker(kind, spec, {
      clock: systemClock,
      rooms: { reserve: async (req) => this.reserve(kind, req) },
      // One process holds every shard's rooms: shard 0 of 1.
      newRoomId: () => newRoomIdFor(0, 1),
      newReservationId: () => randomId(16),
      signSeat: (seat) => {
        const secret = this.secret;
        if (!secret) throw new Error("no secret to sign seat reservations with");
        return mintRoomTicket({ secret, kind, roomId: seat.roomId, playerId: seat.identity, ttlSeconds: SEAT_TICKET_TTL_SECONDS, seat: seat.reservationId });
      },
      capFor: (overrides) => resolveRoomOptions(def.defaults, overrides.options).cap,
    });
    this.matchmakers.set(kind, mm);
    return mm;
  }

  private reserve(kind: string, req: SeatRequest): SeatAnswer {
    const room = this.d.room(kind, req.roomId, req.create ? { creation: req.create.creation, listing: { metadata: req.create.metadata, private: req.create.private, overrides: req.create.creation.key } } : undefined);
    if (!room) return { ok: false, code: "not_found", reason: `no room ${req.roomId}` };
    return room.reserveSeats(req);
  }
}
