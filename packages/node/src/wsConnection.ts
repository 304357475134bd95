import type { Connection } from "@tikron/core";
import { sendableCloseCode } from "@tikron/protocol";
import { WebSocket } from "ws";

/** A `ws` server socket seen as a core {@link Connection}. */
export class WsConnection implements Connection {
  constructor(private readonly ws: WebSocket) {}

  send(data: Uint8Array | string): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    // The room lends a view of its reused writer (see Connection.send) and ws may keep a reference
    // until the kernel takes the bytes: copy.
    this.ws.send(typeof data === "string" ? data : data.slice());
  }

  close(code: number, reason: string): void {
    if (this.ws.readyState === WebSocket.CLOSING || this.ws.readyState === WebSocket.CLOSED) return;
    // ws refuses reasons over 123 bytes; 120 UTF-16 units of the room's ASCII reasons fit.
    this.ws.close(sendableCloseCode(code), reason.slice(0, 120));
  }

  bufferedAmount(): number {
    // Unlike workerd, ws counts what it has queued in user space, so a stalled reader shows up
    // once the kernel's socket buffer is full rather than after it.
    return this.ws.bufferedAmount;
  }
}
