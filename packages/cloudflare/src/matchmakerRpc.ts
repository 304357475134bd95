/**
 * How the gateway and the rooms reach a kind's matchmaker objects, and how a room object is reached
 * by one: the RPC surfaces, typed by hand, and nothing that needs `cloudflare:workers` (the gateway
 * is unit-tested in Node).
 */
import type { Caller, MatchmakerStats, PartyAnswer, ReservedSeat, RoomCreation, RoomStatus, SeatAnswer, SeatRelease, SeatRequest } from "@tikron/core/match";
import { matchmakerName } from "@tikron/core/match";
import { matchError, type MatchError, type MatchFilters, type MatchRequest, type PartyJoinRequest, type PartyStartRequest, type QueueRequest, type RoomListing } from "@tikron/protocol";

/**
 * A matchmaker object's RPC surface as callers see it (the gateway, rooms reporting). Typed by
 * hand: the runtime's generated stub types wrap every result, which says nothing more here.
 */
export interface MatchmakerRpc {
  /** See {@link MatchmakerObject.match}. */
  match(kind: string, shard: number, req: MatchRequest, caller: Caller, creation: RoomCreation): Promise<ReservedSeat | MatchError>;
  /** See {@link MatchmakerObject.joinById}. */
  joinById(kind: string, shard: number, roomId: string, caller: Caller): Promise<ReservedSeat | MatchError>;
  /** See {@link MatchmakerObject.rooms}. */
  rooms(kind: string, shard: number, filters: MatchFilters, overrides?: string): Promise<RoomListing[] | MatchError>;
  /** See {@link MatchmakerObject.queue}. */
  queue(kind: string, shard: number, req: QueueRequest, caller: Caller): Promise<ReservedSeat | MatchError>;
  /** See {@link MatchmakerObject.cancel}. */
  cancel(kind: string, shard: number, queueId: string, caller: Caller): Promise<boolean>;
  /** See {@link MatchmakerObject.partyCreate}. */
  partyCreate(kind: string, shard: number, req: PartyJoinRequest, caller: Caller, creation: RoomCreation): Promise<PartyAnswer | MatchError>;
  /** See {@link MatchmakerObject.partyJoin}. */
  partyJoin(kind: string, shard: number, code: string, req: PartyJoinRequest, caller: Caller): Promise<PartyAnswer | MatchError>;
  /** See {@link MatchmakerObject.partyWatch}. */
  partyWatch(kind: string, shard: number, code: string, member: string, after: number | undefined, caller: Caller): Promise<PartyAnswer | MatchError>;
  /** See {@link MatchmakerObject.partyLeave}. */
  partyLeave(kind: string, shard: number, code: string, member: string, caller: Caller): Promise<true | MatchError>;
  /** See {@link MatchmakerObject.partyStart}. */
  partyStart(kind: string, shard: number, code: string, member: string, req: PartyStartRequest, caller: Caller): Promise<PartyAnswer | MatchError>;
  /** See {@link MatchmakerObject.partyCancel}. */
  partyCancel(kind: string, shard: number, code: string, member: string, caller: Caller): Promise<true | MatchError>;
  /** See {@link MatchmakerObject.report}. */
  report(kind: string, shard: number, status: RoomStatus): Promise<void>;
  /** See {@link MatchmakerObject.stats}. */
  stats(kind: string, shard: number): Promise<MatchmakerStats>;
  /** See {@link MatchmakerObject.restart}. */
  restart(): Promise<void>;
}

/** A room object's RPC surface as its matchmaker sees it. */
export interface RoomSeatsRpc {
  /** See `RoomObject.reserveSeats`. */
  reserveSeats(kind: string, req: SeatRequest): Promise<SeatAnswer>;
  /** See `RoomObject.releaseSeats`. */
  releaseSeats(kind: string, req: SeatRelease): Promise<RoomStatus | null>;
}

/** The matchmaker stub of a kind's shard. */
export function matchmakerStub(ns: DurableObjectNamespace, kind: string, shard: number): MatchmakerRpc {
  return ns.get(ns.idFromName(matchmakerName(kind, shard))) as unknown as MatchmakerRpc;
}

/** What the gateway answers when a matchmaker object could not be reached or threw. */
export function matchmakerUnavailable(e: unknown): MatchError {
  return matchError("unavailable", `the matchmaker is restarting; retry (${e instanceof Error ? e.message.slice(0, 80) : "error"})`, 500);
}
