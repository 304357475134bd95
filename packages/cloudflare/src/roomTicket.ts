/**
 * Room tickets for game backends: `mintRoomTicket` signs a short-lived permission to join one
 * room as one player; the gateway verifies it before anything reaches a room. Plain WebCrypto, so
 * it runs in Node 22, Workers and browsers, and never imports `cloudflare:workers`. The
 * definitions live in `@tikron/core/ticket` (every host verifies the same tokens); this is their
 * Cloudflare path.
 *
 * @module @tikron/cloudflare/ticket
 */
export * from "@tikron/core/ticket";
