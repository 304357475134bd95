/**
 * One client socket as the room core sees it. The Cloudflare adapter wraps a hibernatable
 * WebSocket; tests use an in-memory fake. The core never touches a runtime socket directly.
 */
export interface Connection {
  /**
   * Sends one binary or text message. Must not throw (adapters swallow send-after-close).
   * Binary `data` is a view of the room's reused writer, valid only during the call: the room
   * sends every frame without copying it, so an adapter whose socket keeps the bytes past the
   * call (e.g. `ws` queueing them) must copy; one whose runtime copies on send (workerd) need not.
   */
  send(data: Uint8Array | string): void;
  /** Closes the socket with an application close code and a short reason. */
  close(code: number, reason: string): void;
  /** True for a room's own bot players (no socket; the room encodes no frames for them). */
  readonly bot?: boolean;
  /** Bytes queued but not yet written to the network, where the runtime exposes it (else 0). */
  bufferedAmount(): number;
}
