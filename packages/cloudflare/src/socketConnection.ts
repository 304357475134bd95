import type { Connection } from "@tikron/core";
import { sendableCloseCode } from "@tikron/protocol";

export { sendableCloseCode };

/** A hibernatable Workers WebSocket seen as a core {@link Connection}. */
export class SocketConnection implements Connection {
  /**
   * @param observeBuffered sees every backlog reading, so the object can report what the
   *   runtime actually exposes (slow-consumer detection depends on it).
   */
  constructor(
    private readonly ws: WebSocket,
    private readonly observeBuffered?: (bytes: number, reported: boolean) => void,
  ) {}

  send(data: Uint8Array | string): void {
    // No copy: workerd copies the bytes on send, so the room's reused writer may be lent here.
    try {
      this.ws.send(data);
    } catch {
      // The socket closed under us; the close event will follow and the room will hold the seat.
    }
  }

  close(code: number, reason: string): void {
    try {
      this.ws.close(sendableCloseCode(code), reason.slice(0, 120));
    } catch {
      // already closed
    }
  }

  bufferedAmount(): number {
    const raw = (this.ws as { bufferedAmount?: unknown }).bufferedAmount;
    const bytes = typeof raw === "number" && Number.isFinite(raw) ? raw : 0;
    this.observeBuffered?.(bytes, typeof raw === "number");
    return bytes;
  }
}
