/**
 * Matchmaking: which room a player should go to. A {@link Matchmaker} per game kind keeps a
 * directory of the kind's rooms (from their own reports), picks the fullest matching room or
 * creates one, groups queued players by rating, seats parties together, and has the chosen room
 * reserve every seat before it answers. Rooms stay the authority for their seats. Runtime-agnostic: hosts give it a
 * {@link RoomPort}, a clock, a store and a signer.
 *
 * @module @tikron/core/match
 */
export { Matchmaker, type DirectoryStore, type MatchmakerHost, type MatchmakerStats } from "./matchmaker";
export type { Caller, HeldSeats, ReservedSeat } from "./seats";
export { RoomDirectory, freeSeats, type DirectoryEntry, type ApplyResult } from "./roomDirectory";
export { MatchQueue, ratingWindow, seatsOf, type QueueEntry, type QueueSeat } from "./matchQueue";
export { QueueDesk, type QueueSeating } from "./queueDesk";
export { PartyDesk, PARTY_MEMBER_IDLE_MS, PARTY_TTL_MS, type PartyHost, type PartySeating } from "./partyDesk";
export { PartyBook, PARTY_WATCH_HOLD_MS, type MemberSeat, type PartyAnswer, type PartyMemberRecord, type PartyRecord, type PartyStore } from "./parties";
export { resolveMatchmaking, DEFAULT_QUEUE_TIMEOUT_MS, DEFAULT_RESERVATION_TTL_MS, type MatchmakingSpec, type QueueSpec, type ResolvedMatchmaking } from "./matchmakingSpec";
export { isEmptyStatus, isNewerStatus, readRoomStatus, toListing, type RoomStatus } from "./roomStatus";
export { NO_OVERRIDES, type RoomCreation, type RoomPort, type SeatAnswer, type SeatHold, type SeatRelease, type SeatRequest, type SeatRefusalCode } from "./roomPort";
export { StatusReporter, type StatusReporterDeps } from "./statusReporter";
export { type ListingQuery } from "./matchHttp";
export { anonymousIdentity, listingQuery, matchOverrides, overridesKey, matchmakerName, newPartyCodeFor, newRoomIdFor, randomId, seatReservationOf, shardOfRoom, webSocketOrigin } from "./matchHttp";
export { serveMatchRoute, matchRefusal, callerOfVerdict, readMatchBody, type MatchAnswer, type MatchBackend, type MatchCall } from "./matchRoutes";
export { readBoundedBody, waitedBody, declaredTooLarge, bodyByteLimit, MAX_BYTES_PER_CHAR, type BodySource, type BoundedBody } from "./boundedBody";
export { RateLimitMemory } from "./rateMemory";
export { DirectoryWrites, DIRECTORY_WRITE_MS, PARTY_KEY, ROOM_KEY, type MeteredWrites } from "./directoryWrites";
export { matchmakerUnavailable, shardedBackend, type MatchmakerRpc, type RoomSeatsRpc } from "./matchmakerRpc";
