import type { IncomingMessage } from "node:http";
import { admissionAddress, resolveRoomOptions, systemClock, type GameDefinition, type ListingInit, type Room } from "@tikron/core";
import {
  Matchmaker,
  RateLimitMemory,
  callerOfVerdict,
  matchRefusal,
  newRoomIdFor,
  randomId,
  resolveMatchmaking,
  serveMatchRoute,
  type MatchAnswer,
  type MatchBackend,
  type RoomCreation,
  type SeatAnswer,
  type SeatRequest,
} from "@tikron/core/match";
import { ANY_ROOM } from "@tikron/core/ticket";
import { mintSeatReservation, reservationSecret } from "@tikron/core/join";
import { matchError, routeMatchPath } from "@tikron/protocol";
import type { NodeIdentity } from "./nodeIdentity";
import { nodeBody } from "./nodeBody";

/** An HTTP answer: status, JSON body (or none), headers. */
export type HttpAnswer = MatchAnswer;

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
 * reservation are checked by the core's join gate (`admitJoin`, with {@link secret}).
 * Directories live in memory: the Node host keeps no state across restarts.
 */
export class NodeMatchmaking {
  private readonly matchmakers = new Map<string, Matchmaker>();
  /** Callers a matchmaker told to wait, answered here until then (before their body is read). */
  private readonly limits = new RateLimitMemory();

  constructor(private readonly d: NodeMatchmakingDeps) {}

  /** The secret reservations are signed and verified with (core `reservationSecret`), or null: none handed out or accepted. */
  get secret(): string | null {
    return reservationSecret(this.d.ticketSecret, this.d.devMode);
  }

  /** A room's status changed: its kind's matchmaker hears of it (the host defers this call). */
  reported(kind: string, room: Room): void {
    this.matchmakers.get(kind)?.report(room.status());
  }

  /** Serves one `/match/…` request; null when the path is not a match path. */
  async serve(req: IncomingMessage, url: URL): Promise<HttpAnswer | null> {
    const route = routeMatchPath(url.pathname, req.method ?? "GET");
    if (route === null) return null;
    if ("method" in route) return { status: 405, body: matchError("bad_request", `use ${route.method}`), headers: { allow: route.method } };
    const mm = this.matchmaker(route.kind);
    if (!mm) return matchRefusal(matchError("unknown_kind", `unknown room kind "${route.kind.slice(0, 32)}"`));
    const kind = route.kind;
    return serveMatchRoute(
      {
        route,
        url,
        devMode: this.d.devMode,
        wsOrigin: `ws://${req.headers.host ?? "localhost"}`,
        caller: async (roomId) =>
          callerOfVerdict(await this.d.identity.caller(req, kind, roomId === undefined ? ANY_ROOM : [ANY_ROOM, roomId], true), admissionAddress(req.socket.remoteAddress), "host"),
        body: nodeBody(req),
        limits: this.limits,
        joinOptions: this.d.games[kind]?.joinOptions,
      },
      inProcess(mm),
    );
  }

  /** Stops every matchmaker (queued players are answered `unavailable`). */
  dispose(): void {
    for (const mm of this.matchmakers.values()) mm.dispose();
    this.matchmakers.clear();
  }

  private matchmaker(kind: string): Matchmaker | undefined {
    const existing = this.matchmakers.get(kind);
    if (existing) return existing;
    const def = Object.hasOwn(this.d.games, kind) ? this.d.games[kind] : undefined;
    if (!def) return undefined;
    const spec = resolveMatchmaking(def.matchmaking);
    const mm = new Matchmaker(kind, spec, {
      clock: systemClock,
      rooms: {
        reserve: async (req) => this.reserve(kind, req),
        release: async (req) => this.d.room(kind, req.roomId)?.releaseSeats(req.seats) ?? null,
      },
      // One process holds every shard's rooms: shard 0 of 1.
      newRoomId: () => newRoomIdFor(0, 1),
      newReservationId: () => randomId(16),
      signSeat: (seat) => {
        const secret = this.secret;
        if (!secret) throw new Error("no secret to sign seat reservations with");
        return mintSeatReservation(secret, kind, seat);
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

/** A matchmaker in this process as the match paths' backend (its restart: the process's). */
function inProcess(mm: Matchmaker): MatchBackend {
  return {
    match: (req, who, creation: RoomCreation) => mm.match(req, who, creation),
    joinById: (roomId, who) => mm.joinById(roomId, who),
    queue: (req, who) => mm.queueFor(req, who),
    cancel: async (queueId, who) => mm.cancel(queueId, who),
    rooms: async (filters, overrides) => mm.list(filters, overrides),
    stats: async () => [{ ...mm.stats(), directory: mm.rooms().map((e) => e.status) }],
    partyCreate: async (req, who, creation) => mm.parties.create(req, who, creation),
    partyJoin: async (code, req, who) => mm.parties.join(code, req, who),
    partyWatch: (code, member, after, who) => mm.parties.watch(code, member, after, who),
    partyLeave: async (code, member, who) => mm.parties.leave(code, member, who),
    partyStart: (code, member, req, who) => mm.parties.start(code, member, req, who),
    partyCancel: async (code, member, who) => mm.parties.cancel(code, member, who),
  };
}
