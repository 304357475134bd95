/**
 * Matchmaking: which room a player should go to. A {@link Matchmaker} per game kind keeps a
 * directory of the kind's rooms (from their own reports), picks the fullest matching room or
 * creates one, groups queued players by rating, and has the chosen room reserve every seat
 * before it answers. Rooms stay the authority for their seats. Runtime-agnostic: hosts give it a
 * {@link RoomPort}, a clock, a store and a signer.
 *
 * @module @tikron/core/match
 */
export { Matchmaker, type Caller, type DirectoryStore, type MatchmakerHost, type MatchmakerStats, type ReservedSeat } from "./matchmaker";
export { RoomDirectory, freeSeats, type DirectoryEntry, type ApplyResult } from "./roomDirectory";
export { MatchQueue, ratingWindow, type QueueEntry } from "./matchQueue";
export { resolveMatchmaking, DEFAULT_QUEUE_TIMEOUT_MS, DEFAULT_RESERVATION_TTL_MS, type MatchmakingSpec, type QueueSpec, type ResolvedMatchmaking } from "./matchmakingSpec";
export { isEmptyStatus, isNewerStatus, readRoomStatus, toListing, type RoomStatus } from "./roomStatus";
export { NO_OVERRIDES, type RoomCreation, type RoomPort, type SeatAnswer, type SeatHold, type SeatRequest, type SeatRefusalCode } from "./roomPort";
export { StatusReporter, type StatusReporterDeps } from "./statusReporter";
export { type ListingQuery } from "./matchHttp";
export { anonymousIdentity, listingQuery, matchOverrides, overridesKey, matchmakerName, newRoomIdFor, randomId, seatReservationOf, shardOfRoom, webSocketOrigin } from "./matchHttp";
export { serveMatchRoute, matchRefusal, callerOfVerdict, readMatchBody, type MatchAnswer, type MatchBackend, type MatchCall } from "./matchRoutes";
export { readBoundedBody, declaredTooLarge, bodyByteLimit, MAX_BYTES_PER_CHAR, type BodySource, type BoundedBody } from "./boundedBody";
export { RateLimitMemory } from "./rateMemory";
