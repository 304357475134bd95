import { JSON_KEEPALIVE, ReceiptCounter } from "@tikron/protocol";
import type { Connection } from "../index";

/** How a test socket ended: the room closed it, or the test dropped it. */
export interface SocketClose {
  /** The close code (the room's application code, or the one the test dropped it with). */
  code: number;
  /** The close reason. */
  reason: string;
}

/**
 * One in-memory socket of a test client, as the room sees it: a {@link Connection} that keeps a
 * copy of every message (the room lends its writer's bytes only for the call) and confirms what
 * it read with receipts, like every real client, so a long test is never throttled as a client
 * that stopped reading. Nothing here calls back into the room during a send: receipts go out on
 * the room's clock right after the current timer, as a socket would deliver them.
 */
export class TestSocket implements Connection {
  /** Messages received and not yet read by the client. */
  readonly inbox: (Uint8Array | string)[] = [];
  /** Set once the room closed the socket or the test dropped it; nothing arrives after. */
  closed: SocketClose | null = null;
  /** The room's id for this socket. */
  connId = -1;
  readonly #receipts = new ReceiptCounter();

  /** `sendReceipt(messages, units)` delivers a receipt to the room (called from a timer). */
  constructor(private readonly sendReceipt: (messages: number, units: number) => void) {}

  send(data: Uint8Array | string): void {
    if (this.closed) return;
    this.inbox.push(typeof data === "string" ? data : data.slice());
    // The keepalive answer is not counted on either side (see ReceiptCounter).
    if (data !== JSON_KEEPALIVE && this.#receipts.read(this, data)) this.sendReceipt(this.#receipts.messages, this.#receipts.units);
  }

  close(code: number, reason: string): void {
    this.closed ??= { code, reason };
  }

  bufferedAmount(): number {
    return 0;
  }
}
