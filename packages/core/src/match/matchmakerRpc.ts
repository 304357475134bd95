/**
 * A kind's matchmaking spread over shards, each a matchmaker reached by call (a `MatchmakerObject`
 * per kind and shard on Cloudflare, by RPC): the surface a shard answers on
 * ({@link MatchmakerRpc}), the one a room answers its matchmaker on ({@link RoomSeatsRpc}), and
 * which shard a request goes to ({@link shardedBackend}: the match paths' backend).
 */
import { isMatchError, matchError, type MatchError, type MatchFilters, type MatchRequest, type PartyJoinRequest, type PartyStartRequest, type QueueRequest, type RoomListing } from "@tikron/protocol";
import type { MatchmakerStats } from "./matchmaker";
import type { PartyAnswer } from "./parties";
import type { RoomCreation, SeatAnswer, SeatRelease, SeatRequest } from "./roomPort";
import type { RoomStatus } from "./roomStatus";
import type { Caller, ReservedSeat } from "./seats";
import { shardOfRoom } from "./matchHttp";
import type { MatchBackend } from "./matchRoutes";

/**
 * A matchmaker shard's surface as callers see it (the gateway, rooms reporting): every call names
 * the kind and the shard (an object does not know its own name). Typed by hand: the runtime's
 * generated stub types wrap every result, which says nothing more here.
 */
export interface MatchmakerRpc {
  /** See `MatchmakerObject.match`. */
  match(kind: string, shard: number, req: MatchRequest, caller: Caller, creation: RoomCreation): Promise<ReservedSeat | MatchError>;
  /** See `MatchmakerObject.joinById`. */
  joinById(kind: string, shard: number, roomId: string, caller: Caller): Promise<ReservedSeat | MatchError>;
  /** See `MatchmakerObject.rooms`. */
  rooms(kind: string, shard: number, filters: MatchFilters, overrides?: string): Promise<RoomListing[] | MatchError>;
  /** See `MatchmakerObject.queue`. */
  queue(kind: string, shard: number, req: QueueRequest, caller: Caller): Promise<ReservedSeat | MatchError>;
  /** See `MatchmakerObject.cancel`. */
  cancel(kind: string, shard: number, queueId: string, caller: Caller): Promise<boolean>;
  /** See `MatchmakerObject.partyCreate`. */
  partyCreate(kind: string, shard: number, req: PartyJoinRequest, caller: Caller, creation: RoomCreation): Promise<PartyAnswer | MatchError>;
  /** See `MatchmakerObject.partyJoin`. */
  partyJoin(kind: string, shard: number, code: string, req: PartyJoinRequest, caller: Caller): Promise<PartyAnswer | MatchError>;
  /** See `MatchmakerObject.partyWatch`. */
  partyWatch(kind: string, shard: number, code: string, member: string, after: number | undefined, caller: Caller): Promise<PartyAnswer | MatchError>;
  /** See `MatchmakerObject.partyLeave`. */
  partyLeave(kind: string, shard: number, code: string, member: string, caller: Caller): Promise<true | MatchError>;
  /** See `MatchmakerObject.partyStart`. */
  partyStart(kind: string, shard: number, code: string, member: string, req: PartyStartRequest, caller: Caller): Promise<PartyAnswer | MatchError>;
  /** See `MatchmakerObject.partyCancel`. */
  partyCancel(kind: string, shard: number, code: string, member: string, caller: Caller): Promise<true | MatchError>;
  /** See `MatchmakerObject.report`. */
  report(kind: string, shard: number, status: RoomStatus): Promise<void>;
  /** See `MatchmakerObject.stats`. */
  stats(kind: string, shard: number): Promise<MatchmakerStats>;
  /** See `MatchmakerObject.restart`. */
  restart(): Promise<void>;
}

/** A room object's RPC surface as its matchmaker sees it. */
export interface RoomSeatsRpc {
  /** See `RoomObject.reserveSeats`. */
  reserveSeats(kind: string, req: SeatRequest): Promise<SeatAnswer>;
  /** See `RoomObject.releaseSeats`. */
  releaseSeats(kind: string, req: SeatRelease): Promise<RoomStatus | null>;
}

/** What the gateway answers when a matchmaker shard could not be reached or threw. */
export function matchmakerUnavailable(e: unknown): MatchError {
  return matchError("unavailable", `the matchmaker is restarting; retry (${e instanceof Error ? e.message.slice(0, 80) : "error"})`, 500);
}

/**
 * A kind's matchmaking over its shards: a room, a queue entry, a party (by its code) and a
 * verified player each belong to one shard (`shardOfRoom`; anonymous callers spread at random),
 * a listing asks them all.
 */
export function shardedBackend(kind: string, shards: number, stub: (shard: number) => MatchmakerRpc): MatchBackend {
  const all = <T>(ask: (rpc: MatchmakerRpc, shard: number) => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: shards }, (_, s) => ask(stub(s), s)));
  const on = <T>(key: string, ask: (rpc: MatchmakerRpc, shard: number) => Promise<T>): Promise<T> => {
    const s = shardOfRoom(key, shards);
    return ask(stub(s), s);
  };
  return {
    match: (req, who, creation) => on(who.verified ? who.identity : who.identity.slice(5), (m, s) => m.match(kind, s, req, who, creation)),
    joinById: (roomId, who) => on(roomId, (m, s) => m.joinById(kind, s, roomId, who)),
    queue: (req, who) => on(req.queueId, (m, s) => m.queue(kind, s, req, who)),
    cancel: (queueId, who) => on(queueId, (m, s) => m.cancel(kind, s, queueId, who)),
    rooms: async (filters, overrides) => {
      const parts = await all((m, s) => m.rooms(kind, s, filters, overrides));
      const bad = parts.find(isMatchError);
      return bad ?? (parts as RoomListing[][]).flat();
    },
    stats: () => all((m, s) => m.stats(kind, s)),
    restart: async () => {
      await all((m) => m.restart().catch(() => {}));
      return { restarted: shards };
    },
    // A party lives on the shard its code hashes to; a new one on its maker's shard (like a match).
    partyCreate: (req, who, creation) => on(who.verified ? who.identity : who.identity.slice(5), (m, s) => m.partyCreate(kind, s, req, who, creation)),
    partyJoin: (code, req, who) => on(code, (m, s) => m.partyJoin(kind, s, code, req, who)),
    partyWatch: (code, member, after, who) => on(code, (m, s) => m.partyWatch(kind, s, code, member, after, who)),
    partyLeave: (code, member, who) => on(code, (m, s) => m.partyLeave(kind, s, code, member, who)),
    partyStart: (code, member, req, who) => on(code, (m, s) => m.partyStart(kind, s, code, member, req, who)),
    partyCancel: (code, member, who) => on(code, (m, s) => m.partyCancel(kind, s, code, member, who)),
  };
}
