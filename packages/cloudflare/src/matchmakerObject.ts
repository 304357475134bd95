import { DurableObject } from "cloudflare:workers";
import { resolveRoomOptions, systemClock, type GameDefinition } from "@tikron/core";
import {
  Matchmaker,
  newRoomIdFor,
  randomId,
  readRoomStatus,
  resolveMatchmaking,
  type Caller,
  type DirectoryStore,
  type MatchmakerStats,
  type ReservedSeat,
  type RoomCreation,
  type RoomStatus,
  type SeatAnswer,
  type SeatRequest,
} from "@tikron/core/match";
import { mintRoomTicket } from "@tikron/core/ticket";
import type { MatchError, MatchFilters, MatchRequest, QueueRequest, RoomListing } from "@tikron/protocol";
import { signingSecret, type SecretEnv } from "./joinSecret";
import type { RoomSeatsRpc } from "./matchmakerRpc";

/** How long a reservation token stays good as its player's ticket back into the room (s). */
export const SEAT_TICKET_TTL_SECONDS = 3600;

const ROOM_KEY = "room:";

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
    const mm = new Matchmaker(kind, spec, {
      clock: systemClock,
      store,
      rooms: {
        reserve: (req: SeatRequest): Promise<SeatAnswer> => (rooms.get(rooms.idFromName(`${kind}:${req.roomId}`)) as unknown as RoomSeatsRpc).reserveSeats(kind, req),
      },
      newRoomId: () => newRoomIdFor(shard, spec.shards),
      newReservationId: () => randomId(16),
      signSeat: (seat) => mintRoomTicket({ secret, kind, roomId: seat.roomId, playerId: seat.identity, ttlSeconds: SEAT_TICKET_TTL_SECONDS, seat: seat.reservationId }),
      capFor: (overrides) => resolveRoomOptions(def.defaults, overrides.options).cap,
    });
    await mm.load();
    this.#matchmaker = mm;
    return mm;
  }
}
