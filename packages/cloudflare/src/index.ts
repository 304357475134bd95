/**
 * Cloudflare adapter: hosts core rooms in Durable Objects (WebSocket Hibernation API) and routes
 * Worker requests to them. The only package that imports `cloudflare:workers`.
 */
export { RoomObject } from "./roomObject";
export { routeGatewayRequest, ROOM_ID_PATTERN, type GatewayEnv } from "./gateway";
export { parseOverrides, hasOverrides, readRoomMeta, writeRoomMeta, ROOM_META_HEADER, OVERRIDE_KEYS, type RoomRequestMeta } from "./roomRequest";
export { SocketConnection, sendableCloseCode } from "./socketConnection";
