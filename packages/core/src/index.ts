/**
 * Tikron room core: runtime-agnostic room loop, seats, input queue, flush throttle and stats.
 * Hosts (the Cloudflare Durable Object, the Node host) hand it sockets as {@link Connection}s.
 *
 * @module @tikron/core
 */
export { Room } from "./room";
export type { RoomInit } from "./roomInit";
export type { AdmissionRefusal, Connection, RoomHooks, RoomSessionRecord, SeatTicket, RoomCheckpoint, CheckpointSeat, CheckpointWorld, RoomAdminView, BanTarget, BanOutcome } from "./host";
export type { HostedRoom, KeepableRoom, ListedRoom, OperatedRoom, SocketRoom } from "./hostedRoom";
export { admissionAddress } from "./room/admission";
export { KeptRoom, KEPT_SEAT_PREFIX, KEPT_PIECE_PREFIX, KEPT_MADE_WITH_KEY, type KeptWrite } from "./room/keptRoom";
export { makingFor, readRoomMadeWith, roomMadeWith, type RoomMadeWith, type RoomMaking } from "./roomMadeWith";
export { KEEP_SOON_MS } from "./room/checkpointCadence";
export { CheckpointWrites, CHECKPOINT_SPACING_MS } from "./room/checkpointWrites";
export { EmptyRoomLinger, EMPTY_ROOM_LINGER_MS, type LingeringRoom } from "./room/emptyRoomLinger";
export { createRoom, type RoomRequest } from "./roomFactory";
export { RoomListing, MAX_METADATA_KEYS } from "./room/roomListing";
export type { ListingInit, SavedListing } from "./match/roomStatus";
export type { PendingReservation } from "./match/roomPort";
export { ADMISSION_CLOSE_HEADER, admissionReply, botsReply, statsReply, textReply, type HostReply } from "./hostReplies";
export { systemClock, type Clock, type TimerHandle } from "./clock";
export { FakeClock } from "./fakeClock";
export { defaultRoomOptions, resolveRoomOptions, type RoomOptions } from "./roomOptions";
export { reject, isRejection, detachedContext, type Game, type GameContext, type DisposeInfo, type InputRejection } from "./game";
export {
  refuseJoin,
  isJoinRefusal,
  pickClaims,
  readClaims,
  readSeatPlayer,
  anonymousIdentity,
  MAX_PLAYER_CLAIMS_BYTES,
  JOIN_REFUSAL_CODE_PATTERN,
  type Player,
  type JoiningPlayer,
  type PlayerClaims,
  type ClaimValue,
  type SeatPlayer,
  type JoinRefusal,
  type AdmitVerdict,
} from "./player";
export { RoomStore, MAX_STORE_CHARS, MAX_STORE_KEY_CHARS, type GameStore, type GameStoreSnapshot } from "./gameStore";
export { MAX_PENDING_DEFERRED } from "./room/deferredWork";
export type { RoomRates } from "@tikron/protocol";
export { refuseMessage, type MessageRejection } from "@tikron/protocol";
export { messageHandlers, type MessageHandler, type MessageHandlers } from "./gameMessages";
export type { StateEncoder, JsonStateSource } from "./stateEncoder";
export { TickScheduler } from "./tickScheduler";
export { InputQueue, type QueuedInput } from "./inputQueue";
export { TokenBucket } from "./tokenBucket";
export { credentialRefusalCause } from "./join/joinRefusals";
export { HostRefusals, spendsBudget, REFUSAL_UPGRADE_BURST, REFUSAL_UPGRADE_PER_SEC, type RefusalReport } from "./hostRefusals";
export { DurationStats, DURATION_BUCKETS_MS, type DurationSummary } from "./durationStats";
export { BusyMeter, BUSY_WINDOW_MS, type BusyReading } from "./busyMeter";
export { TIMING_NOTE, type RoomStatsSnapshot, type DeferredCounts, type ReservationCounts } from "./roomStats";
export { RoomMetrics, METRICS_INTERVAL_MS, MIN_METRICS_INTERVAL_MS, METRIC_POINTS_KEPT, type RoomMetricsOptions } from "./roomMetrics";
export type { GameDefinition, GameParams, BotBrain, BotSpec } from "./gameDefinition";
export { MAX_BOTS } from "./room/bots";
export { parseRoomRelays, promotionDue, relayedFromStart, relaysAtMaking, relaysFor, SINGLE_ROOM, type RelayPlan, type RelaysEnv } from "./placement/relayPlan";
export { relayIndexFor } from "./placement/relayIndex";
export { RoomPromotion, type PromotedRoom, type PromotionHost } from "./placement/promotion";
export { StorageMeter, type KeyValueWrites, type MeteredState, type StorageCounts, type WriteCounts, type WriteOptions } from "./storage/storageMeter";
export { RoomRecorder, closesByName, defaultRoomRecorderOptions, recordDatabaseIn, type PendingRoomRecord, type RecordDatabase, type RecordOutboxStorage, type RoomRecorderOptions, type SessionEndReason } from "./storage/roomRecords";
export { SocketTable } from "./socketTable";
export { RoomKeeping, type KeepingState, type KeptView } from "./storage/roomKeeping";
