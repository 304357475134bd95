/**
 * Cloudflare adapter: hosts core rooms in Durable Objects (WebSocket Hibernation API) and routes
 * Worker requests to them. The only package that imports `cloudflare:workers`. Node code (game
 * backends, scripts) imports the ticket helper from `@tikron/cloudflare/ticket`, which does not.
 *
 * @module @tikron/cloudflare
 */
export { RoomObject } from "./roomObject";
export { roomReplays, r2Archive, r2Bucket, type ReplaysEnv, type ReplayState } from "./roomReplays";
export { MatchmakerObject, SEAT_TICKET_TTL_SECONDS, type MatchmakerObjectStats } from "./matchmakerObject";
export { meteredGateway, gatewayHold, gatewayWait, gatewayBody, GATEWAY_STATS_PATH, type GatewayStats, type GatewayMeterEnv } from "./gatewayMeter";
export type { StorageCounts, WriteCounts } from "@tikron/core";
export { matchmakerUnavailable, type MatchmakerRpc, type RoomSeatsRpc } from "@tikron/core/match";
export { matchmakerStub, routeMatchRequest, type MatchEnv } from "./matchGateway";
export { signingSecret, type SecretEnv } from "./joinSecret";
export { routeGatewayRequest, type GatewayEnv } from "./gateway";
export { routeAdminRequest, type AdminGatewayEnv, type RoomAdminRpc } from "./adminGateway";
export { MAX_LISTED_ROOMS } from "@tikron/core/admin";
export type { RoomAdminRpcRequest } from "@tikron/core/admin";
export { metricsDataPoint, METRIC_DOUBLES, type MetricsDataset, type AnalyticsDataPoint, type OperationsEnv } from "./metricsDataPoint";
export { identifyRequest, type IdentityEnv } from "./callerIdentity";
export { readRoomMeta, writeRoomMeta, ROOM_META_HEADER, type RoomRequestMeta, type RoomRequestRoute } from "./roomRequest";
export { SocketConnection, sendableCloseCode } from "./socketConnection";
export { mintRoomTicket, verifyRoomTicket, ANY_ROOM, type RoomTicketClaims, type TicketVerdict, type TicketRefusal, type MintRoomTicketInput } from "@tikron/core/ticket";
export { checkOrigin, parseAllowedOrigins, type OriginVerdict } from "@tikron/core/join";
export { RoomRecorder, closesByName, defaultRoomRecorderOptions, type PendingRoomRecord, type RoomRecorderOptions, type SessionEndReason } from "@tikron/core";
