/**
 * Cloudflare adapter: hosts core rooms in Durable Objects (WebSocket Hibernation API) and routes
 * Worker requests to them. The only package that imports `cloudflare:workers`. Node code (game
 * backends, scripts) imports the ticket helper from `@tikron/cloudflare/ticket`, which does not.
 *
 * @module @tikron/cloudflare
 */
export { RoomObject } from "./roomObject";
export { LobbyObject } from "./lobbyObject";
export { LOBBY_NAME } from "./lobbyName";
export { LobbyRegistry, readRoomReport, LOBBY_MAX_ROOMS, LOBBY_ENTRY_TTL_MS, type LobbyEntry } from "./lobbyRegistry";
export { LobbyReporter, LOBBY_REPORT_MIN_MS, LOBBY_REFRESH_MS } from "./lobbyReporter";
export { routeGatewayRequest, type GatewayEnv } from "./gateway";
export { readRoomMeta, writeRoomMeta, ROOM_META_HEADER, type RoomRequestMeta, type RoomRequestRoute } from "./roomRequest";
export { SocketConnection, sendableCloseCode } from "./socketConnection";
export { mintRoomTicket, verifyRoomTicket, type RoomTicketClaims, type TicketVerdict, type TicketRefusal, type MintRoomTicketInput } from "./roomTicket";
export { checkOrigin, parseAllowedOrigins, type OriginVerdict } from "./originPolicy";
export { RoomRecorder, closesByName, defaultRoomRecorderOptions, type PendingRoomRecord, type RoomRecorderOptions, type SessionEndReason } from "./roomRecords";
