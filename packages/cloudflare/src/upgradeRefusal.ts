/**
 * Accepts a WebSocket upgrade and closes it at once with `code` and `reason` (at most 123 bytes
 * of UTF-8: see the protocol's `refusalCloseReason`). How the gateway refuses a join: every client
 * reads a close code and reason, while a browser (and Node's WebSocket) cannot read the HTTP
 * status of a failed upgrade. The socket never reaches a room.
 */
export function closedUpgrade(code: number, reason: string): Response {
  const pair = new WebSocketPair();
  pair[1].accept();
  pair[1].close(code, reason);
  return new Response(null, { status: 101, webSocket: pair[0] });
}
