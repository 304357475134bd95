import { DurableObject } from "cloudflare:workers";
import { resolveRoomOptions, systemClock, type GameDefinition } from "@tikron/core";
import {
  Matchmaker,
  newPartyCodeFor,
  newRoomIdFor,
  randomId,
  readRoomStatus,
  resolveMatchmaking,
  type Caller,
  type DirectoryStore,
  type MatchmakerStats,
  type PartyAnswer,
  type PartyRecord,
  type PartyStore,
  type ReservedSeat,
  type RoomCreation,
  type RoomStatus,
  type SeatAnswer,
  type SeatRelease,
  type SeatRequest,
} from "@tikron/core/match";
import { mintRoomTicket } from "@tikron/core/ticket";
import type { MatchError, MatchFilters, MatchRequest, PartyJoinRequest, PartyStartRequest, QueueRequest, RoomListing } from "@tikron/protocol";
import { signingSecret, type SecretEnv } from "./joinSecret";
import type { RoomSeatsRpc } from "./matchmakerRpc";

/** How long a reservation token stays good as its player's ticket back into the room (s). */
export const SEAT_TICKET_TTL_SECONDS = 3600;

const ROOM_KEY = "room:";
const PARTY_KEY = "party:";

/** Bindings a matchmaker object reads. */
interface MatchmakerEnv extends SecretEnv {
  ROOMS?: DurableObjectNamespace;
}

/**
 * One matchmaker shard of one game kind (`idFromName(matchmakerName(kind, shard))`): a core
 * {@link Matchmaker} whose rooms are this Worker's room objects (a seat request is an RPC to the
 * room's object, `RoomObject.reserveSeats`) and whose directory is kept in this object's storage,
 * one key per room, so a restart loses no room. The gateway calls the RPC methods below (kind and
 * shard on every call: an object does not know its own name); rooms report to {@link report}.
 */
export abstract class MatchmakerObject<Env = unknown> extends DurableObject<Env> {
  /** The kinds the Worker hosts, by kind name. */
  protected abstract readonly games: Readonly<Record<string, GameDefinition>>;

  #matchmaker: Matchmaker | null = null;
  #loading: Promise<Matchmaker> | null = null;

  /** `POST /match/<kind>`. */
  async match(kind: string, shard: number, req: MatchRequest, caller: Caller, creation: RoomCreation): Promise<ReservedSeat | MatchError> {
    return (await this.matchmaker(kind, shard)).match(req, caller, creation);
  }

  /** `POST /match/<kind>/<roomId>`. */
  async joinById(kind: string, shard: number, roomId: string, caller: Caller): Promise<ReservedSeat | MatchError> {
    return (await this.matchmaker(kind, shard)).joinById(roomId, caller);
  }

  /** `GET /match/<kind>/rooms` (this shard's part). */
  async rooms(kind: string, shard: number, filters: MatchFilters, overrides?: string): Promise<RoomListing[] | MatchError> {
    return (await this.matchmaker(kind, shard)).list(filters, overrides);
  }

  /** `POST /match/<kind>/queue`: answers when the player is grouped, times out, or is cancelled. */
  async queue(kind: string, shard: number, req: QueueRequest, caller: Caller): Promise<ReservedSeat | MatchError> {
    return (await this.matchmaker(kind, shard)).queueFor(req, caller);
  }

  /** `DELETE /match/<kind>/queue/<queueId>`. */
  async cancel(kind: string, shard: number, queueId: string, caller: Caller): Promise<boolean> {
    return (await this.matchmaker(kind, shard)).cancel(queueId, caller);
  }

  /** `POST /match/<kind>/party` (a party made here has a code of this shard). */
  async partyCreate(kind: string, shard: number, req: PartyJoinRequest, caller: Caller, creation: RoomCreation): Promise<PartyAnswer | MatchError> {
    return (await this.matchmaker(kind, shard)).parties.create(req, caller, creation);
  }

  /** `POST /match/<kind>/party/<code>`. */
  async partyJoin(kind: string, shard: number, code: string, req: PartyJoinRequest, caller: Caller): Promise<PartyAnswer | MatchError> {
    return (await this.matchmaker(kind, shard)).parties.join(code, req, caller);
  }

  /**
   * `GET /match/<kind>/party/<code>`: a long poll, held here until the party changes (at most
   * `PARTY_WATCH_HOLD_MS`). It keeps this object awake while held; a matchmaker with parties
   * forming is awake for their requests anyway, and one poll per member per change (or per hold)
   * costs far fewer requests of this one thread than members polling on a timer.
   */
  async partyWatch(kind: string, shard: number, code: string, member: string, after: number | undefined, caller: Caller): Promise<PartyAnswer | MatchError> {
    return (await this.matchmaker(kind, shard)).parties.watch(code, member, after, caller);
  }

  /** `DELETE /match/<kind>/party/<code>`. */
  async partyLeave(kind: string, shard: number, code: string, member: string, caller: Caller): Promise<true | MatchError> {
    return (await this.matchmaker(kind, shard)).parties.leave(code, member, caller);
  }

  /** `POST /match/<kind>/party/<code>/start`: answers once the party is matched, or why not. */
  async partyStart(kind: string, shard: number, code: string, member: string, req: PartyStartRequest, caller: Caller): Promise<PartyAnswer | MatchError> {
    return (await this.matchmaker(kind, shard)).parties.start(code, member, req, caller);
  }

  /** `DELETE /match/<kind>/party/<code>/start`. */
  async partyCancel(kind: string, shard: number, code: string, member: string, caller: Caller): Promise<true | MatchError> {
    return (await this.matchmaker(kind, shard)).parties.cancel(code, member, caller);
  }

  /** A room of this shard reports its status (from its `waitUntil`, never awaited on a tick). */
  async report(kind: string, shard: number, status: unknown): Promise<void> {
    const s = readRoomStatus(status);
    if (!s) throw new Error("malformed room status");
    (await this.matchmaker(kind, shard)).report(s);
  }

  /** DEV_MODE `GET /match/<kind>/stats`: counters, decision times, the directory. */
  async stats(kind: string, shard: number): Promise<MatchmakerStats> {
    const mm = await this.matchmaker(kind, shard);
    return { ...mm.stats(), directory: mm.rooms().map((e) => e.status) };
  }

  /**
   * DEV_MODE `POST /match/<kind>/restart`: resets this object as a crash or deploy would (every
   * call in flight fails; the next one builds the matchmaker again from storage).
   */
  restart(): void {
    this.ctx.abort("restart requested");
  }

  private matchmaker(kind: string, shard: number): Promise<Matchmaker> {
    if (this.#matchmaker) {
      if (this.#matchmaker.kind !== kind) throw new Error(`matchmaker of ${this.#matchmaker.kind} asked about ${kind}`);
      return Promise.resolve(this.#matchmaker);
    }
    this.#loading ??= this.build(kind, shard).catch((e: unknown) => {
      this.#loading = null;
      throw e;
    });
    return this.#loading;
  }

  private async build(kind: string, shard: number): Promise<Matchmaker> {
    const def = this.games[kind];
    if (!def) throw new Error(`unknown kind ${kind}`);
    const env = this.env as MatchmakerEnv;
    const rooms = env.ROOMS;
    if (!rooms) throw new Error("the ROOMS binding is missing");
    const secret = signingSecret(env);
    if (!secret) throw new Error("no TICKET_SECRET to sign seat reservations with");
    const spec = resolveMatchmaking(def.matchmaking);
    const storage = this.ctx.storage;
    const store: DirectoryStore = {
      load: async () => [...(await storage.list<RoomStatus>({ prefix: ROOM_KEY })).values()],
      // Not awaited: the runtime's output gate holds this object's answers until writes land.
      put: (s) => void storage.put(ROOM_KEY + s.roomId, s),
      delete: (id) => void storage.delete(ROOM_KEY + id),
    };
    const partyStore: PartyStore = {
      load: async () => [...(await storage.list<PartyRecord>({ prefix: PARTY_KEY })).values()],
      put: (p) => void storage.put(PARTY_KEY + p.code, p),
      delete: (code) => void storage.delete(PARTY_KEY + code),
    };
    const roomOf = (roomId: string) => rooms.get(rooms.idFromName(`${kind}:${roomId}`)) as unknown as RoomSeatsRpc;
    const mm = new Matchmaker(kind, spec, {
      clock: systemClock,
      store,
      partyStore,
      rooms: {
        reserve: (req: SeatRequest): Promise<SeatAnswer> => roomOf(req.roomId).reserveSeats(kind, req),
        release: (req: SeatRelease): Promise<RoomStatus | null> => roomOf(req.roomId).releaseSeats(kind, req),
      },
      newRoomId: () => newRoomIdFor(shard, spec.shards),
      newPartyCode: () => newPartyCodeFor(shard, spec.shards),
      newReservationId: () => randomId(16),
      signSeat: (seat) => mintRoomTicket({ secret, kind, roomId: seat.roomId, playerId: seat.identity, ttlSeconds: SEAT_TICKET_TTL_SECONDS, seat: seat.reservationId }),
      capFor: (overrides) => resolveRoomOptions(def.defaults, overrides.options).cap,
    });
    await mm.load();
    this.#matchmaker = mm;
    return mm;
  }
}
