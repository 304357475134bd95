/**
 * The admin API's host side: who may call it (an admin token, or a Cloudflare Access sign-in),
 * the one request flow every host serves it with (`serveAdmin` over the host's `AdminHost`), and
 * what a room answers to it. The rooms do the work (`HostedRoom`'s operator methods). Uses
 * WebCrypto and jose only.
 *
 * @module @tikron/core/admin
 */
export { checkAdmin, adminAuthFromEnv, sameSecret, ACCESS_JWT_HEADER, MIN_ADMIN_TOKEN_LENGTH, type AdminAuth, type AdminEnv, type AdminVerdict } from "./adminCredential";
export { runRoomAdmin, statsSummary, type AdminRoomRequest, type AdminRoomAnswer } from "./roomAdmin";
export { serveAdmin, type AdminHost, type AdminRequest, type AdminReply } from "./adminRouter";
export { auditDatabase, auditLimit, memoryAuditLog, sqlAuditLog, MAX_AUDIT_ENTRIES, type AuditDatabase, type AuditLog } from "./auditLog";
export { listAdminRooms, MAX_LISTED_ROOMS, type RoomListSource } from "./roomList";
export { RoomOperations, BANS_KEY, metricsIntervalMs, type BanStorage, type OperatedView, type OperationsOptions, type RoomAdminRpcRequest } from "./roomOperations";
