import { DurableObject } from "cloudflare:workers";
import { BusyMeter, resolveRoomOptions, StorageMeter, systemClock, type BusyReading, type GameDefinition, type StorageCounts } from "@tikron/core";
import {
  DirectoryWrites,
  Matchmaker,
  PARTY_KEY,
  ROOM_KEY,
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
  type RoomSeatsRpc,
  type RoomStatus,
  type SeatAnswer,
  type SeatRelease,
  type SeatRequest,
} from "@tikron/core/match";
import { SEAT_RESERVATION_TTL_SECONDS, mintSeatReservation, roomObjectName } from "@tikron/core/join";
import type { MatchError, MatchFilters, MatchRequest, PartyJoinRequest, PartyStartRequest, QueueRequest, RoomListing } from "@tikron/protocol";
import { signingSecret, type SecretEnv } from "./joinSecret";

/** How long a reservation token stays good as its player's ticket back into the room (s): the core's one rule. */
export const SEAT_TICKET_TTL_SECONDS = SEAT_RESERVATION_TTL_SECONDS;

/** A matchmaker object's DEV_MODE stats: the core's, plus what the object itself cost. */
export type MatchmakerObjectStats = MatchmakerStats & {
  /** The object's own time (core `BusyMeter`): its calls, except their waits on rooms and storage; `entries.stats` is these stats' own. */
  busy: BusyReading;
  /** Its storage writes (the directory, parties), counted. */
  storage: StorageCounts;
  /** Seat requests sent to rooms (an RPC each). */
  reserves: number;
};

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
  /**
   * This object's own time (core busyMeter.ts): each call from its start until it answers,
   * except while it waits on a room or on storage; calls in flight at once count once.
   */
  readonly #busy = new BusyMeter();
  /** Its storage writes, counted. */
  readonly #writes = new StorageMeter(this.ctx, "matchmaker");
  /** When they happen (core match/directoryWrites.ts): the directory batched and unconfirmed, parties at once and confirmed. */
  readonly #directory = new DirectoryWrites(this.#writes, this.#busy);
  #reserves = 0;

  /** `POST /match/<kind>`. */
  match(kind: string, shard: number, req: MatchRequest, caller: Caller, creation: RoomCreation): Promise<ReservedSeat | MatchError> {
    return this.#busy.during(async () => (await this.matchmaker(kind, shard)).match(req, caller, creation), "rpc");
  }

  /** `POST /match/<kind>/<roomId>`. */
  joinById(kind: string, shard: number, roomId: string, caller: Caller): Promise<ReservedSeat | MatchError> {
    return this.#busy.during(async () => (await this.matchmaker(kind, shard)).joinById(roomId, caller), "rpc");
  }

  /** `GET /match/<kind>/rooms` (this shard's part). */
  rooms(kind: string, shard: number, filters: MatchFilters, overrides?: string): Promise<RoomListing[] | MatchError> {
    return this.#busy.during(async () => (await this.matchmaker(kind, shard)).list(filters, overrides), "rpc");
  }

  /** `POST /match/<kind>/queue`: answers when the player is grouped, times out, or is cancelled. */
  queue(kind: string, shard: number, req: QueueRequest, caller: Caller): Promise<ReservedSeat | MatchError> {
    // The wait for a group is not the object's time: only the call's own work is.
    return this.#busy.during(async () => {
      const mm = await this.matchmaker(kind, shard);
      return this.#busy.waiting(mm.queueFor(req, caller));
    }, "rpc");
  }

  /** `DELETE /match/<kind>/queue/<queueId>`. */
  cancel(kind: string, shard: number, queueId: string, caller: Caller): Promise<boolean> {
    return this.#busy.during(async () => (await this.matchmaker(kind, shard)).cancel(queueId, caller), "rpc");
  }

  /** `POST /match/<kind>/party` (a party made here has a code of this shard). */
  partyCreate(kind: string, shard: number, req: PartyJoinRequest, caller: Caller, creation: RoomCreation): Promise<PartyAnswer | MatchError> {
    return this.#busy.during(async () => (await this.matchmaker(kind, shard)).parties.create(req, caller, creation), "party");
  }

  /** `POST /match/<kind>/party/<code>`. */
  partyJoin(kind: string, shard: number, code: string, req: PartyJoinRequest, caller: Caller): Promise<PartyAnswer | MatchError> {
    return this.#busy.during(async () => (await this.matchmaker(kind, shard)).parties.join(code, req, caller), "party");
  }

  /**
   * `GET /match/<kind>/party/<code>`: a long poll, held here until the party changes (at most
   * `PARTY_WATCH_HOLD_MS`). It keeps this object awake while held; a matchmaker with parties
   * forming is awake for their requests anyway, and one poll per member per change (or per hold)
   * costs far fewer requests of this one thread than members polling on a timer. The hold is
   * not the object's time: only the call's own work up to it is (the answer is the change's).
   */
  partyWatch(kind: string, shard: number, code: string, member: string, after: number | undefined, caller: Caller): Promise<PartyAnswer | MatchError> {
    return this.#busy.during(async () => {
      const mm = await this.matchmaker(kind, shard);
      return this.#busy.waiting(mm.parties.watch(code, member, after, caller));
    }, "party");
  }

  /** `DELETE /match/<kind>/party/<code>`. */
  partyLeave(kind: string, shard: number, code: string, member: string, caller: Caller): Promise<true | MatchError> {
    return this.#busy.during(async () => (await this.matchmaker(kind, shard)).parties.leave(code, member, caller), "party");
  }

  /**
   * `POST /match/<kind>/party/<code>/start`: answers once the party is matched, or why not. Like
   * {@link queue}, the wait for a room or a group is not the object's time: the call's own work
   * up to it is.
   */
  partyStart(kind: string, shard: number, code: string, member: string, req: PartyStartRequest, caller: Caller): Promise<PartyAnswer | MatchError> {
    return this.#busy.during(async () => {
      const mm = await this.matchmaker(kind, shard);
      return this.#busy.waiting(mm.parties.start(code, member, req, caller));
    }, "party");
  }

  /** `DELETE /match/<kind>/party/<code>/start`. */
  partyCancel(kind: string, shard: number, code: string, member: string, caller: Caller): Promise<true | MatchError> {
    return this.#busy.during(async () => (await this.matchmaker(kind, shard)).parties.cancel(code, member, caller), "party");
  }

  /** A room of this shard reports its status (from its `waitUntil`, never awaited on a tick). */
  report(kind: string, shard: number, status: unknown): Promise<void> {
    return this.#busy.during(async () => {
      const s = readRoomStatus(status);
      if (!s) throw new Error("malformed room status");
      (await this.matchmaker(kind, shard)).report(s);
    }, "report");
  }

  /** DEV_MODE `GET /match/<kind>/stats`: counters, decision times, the directory, and what the object cost. */
  stats(kind: string, shard: number): Promise<MatchmakerObjectStats> {
    return this.#busy.during(async () => {
      const mm = await this.matchmaker(kind, shard);
      return { ...mm.stats(), directory: mm.rooms().map((e) => e.status), busy: this.#busy.reading(), storage: this.#writes.counts(), reserves: this.#reserves };
    }, "stats");
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
      load: async () => {
        const rooms = [...(await this.#busy.waiting(storage.list<RoomStatus>({ prefix: ROOM_KEY }))).values()];
        this.#directory.held(rooms.map((r) => r.roomId));
        return rooms;
      },
      put: (s) => this.#directory.put(s),
      delete: (id) => this.#directory.delete(id),
    };
    const partyStore: PartyStore = {
      load: async () => [...(await this.#busy.waiting(storage.list<PartyRecord>({ prefix: PARTY_KEY }))).values()],
      put: (p) => this.#directory.putParty(p),
      delete: (code) => this.#directory.deleteParty(code),
    };
    const roomOf = (roomId: string) => rooms.get(rooms.idFromName(roomObjectName(kind, roomId))) as unknown as RoomSeatsRpc;
    const mm = new Matchmaker(kind, spec, {
      clock: this.#busy.clock(systemClock),
      store,
      partyStore,
      rooms: {
        reserve: (req: SeatRequest): Promise<SeatAnswer> => {
          this.#reserves++;
          // The room's answer is its time, not this object's.
          return this.#busy.waiting(roomOf(req.roomId).reserveSeats(kind, req));
        },
        release: (req: SeatRelease): Promise<RoomStatus | null> => this.#busy.waiting(roomOf(req.roomId).releaseSeats(kind, req)),
      },
      newRoomId: () => newRoomIdFor(shard, spec.shards),
      newPartyCode: () => newPartyCodeFor(shard, spec.shards),
      newReservationId: () => randomId(16),
      signSeat: (seat) => mintSeatReservation(secret, kind, seat),
      capFor: (overrides) => resolveRoomOptions(def.defaults, overrides.options).cap,
    });
    await mm.load();
    this.#matchmaker = mm;
    return mm;
  }

}
