/**
 * How the Node host refuses an upgrade, as the gateway does: accepted and closed at once with the
 * refusal's close code and reason (a browser cannot read the HTTP status of a failed upgrade), the
 * socket never handed to a room; the host's own refusals are counted by cause (core
 * `HostRefusals`), and an address past its budget of them gets the plain HTTP status instead
 * (no WebSocket made).
 */
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { HostRefusals } from "@tikron/core";
import { refusalCloseReason, type RefusalCause } from "@tikron/protocol";
import type { WebSocketServer } from "ws";

/** One upgrade request as `ws` hands it over. */
export interface PendingUpgrade {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
}

/** Accepts the upgrade and closes it at once with `code` and `reason` (the wait in it). */
export function closeAtOnce(wss: WebSocketServer, u: PendingUpgrade, code: number, reason: string, retryAfterMs = 0): void {
  wss.handleUpgrade(u.req, u.socket, u.head, (ws) => ws.close(code, refusalCloseReason(reason, retryAfterMs)));
}

/** Answers the upgrade request with a plain HTTP `status` and `reason`, and closes the connection. */
export function plainRefusal(u: PendingUpgrade, status: number, reason: string, retryAfterMs = 0): void {
  const body = Buffer.from(reason, "utf8");
  const wait = retryAfterMs > 0 ? `Retry-After: ${Math.ceil(retryAfterMs / 1000)}\r\n` : "";
  u.socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\n${wait}Connection: close\r\n\r\n${reason}`);
}

/** The host's own refusal of `cause`: counted, then closed at once, or plain past the address's budget. */
export function refuseUpgrade(wss: WebSocketServer, refusals: HostRefusals, u: PendingUpgrade, cause: RefusalCause, status: number, code: number, reason: string, retryAfterMs = 0): void {
  refusals.count(cause);
  if (refusals.upgradeAllowed(u.req.socket.remoteAddress ?? null, Date.now(), cause)) closeAtOnce(wss, u, code, reason, retryAfterMs);
  else plainRefusal(u, status, reason, retryAfterMs);
}
