import { RECEIPT_EVERY_BYTES, RECEIPT_EVERY_MESSAGES } from "./constants";

/**
 * Counts what this client has read on its current socket and says when to confirm it with a
 * RECEIPT. The room bounds the backlog of unconfirmed bytes per client (a client that stops
 * reading is first sent less, then closed 4004), so a reading client must confirm; one receipt
 * per {@link RECEIPT_EVERY_MESSAGES} messages or {@link RECEIPT_EVERY_BYTES} bytes keeps that
 * to about one small message a second at 20 frames/s. Units are the room's: bytes of binary
 * messages, UTF-16 units of text. The JSON keepalive reply is not counted (the runtime may
 * answer it while the room sleeps, so the room does not count it either).
 */
export class ReceiptCounter {
  /** Messages read on the current socket (the receipt carries it modulo 2^32). */
  messages = 0;
  /** Units (bytes of binary messages, UTF-16 units of text) read on the current socket. */
  units = 0;
  #sinceMessages = 0;
  #sinceUnits = 0;
  #socket: unknown = null;

  /** Counts one message read from `socket`; true when a receipt is due now. */
  read(socket: unknown, data: unknown): boolean {
    if (socket !== this.#socket) {
      this.#socket = socket;
      this.messages = this.units = this.#sinceMessages = this.#sinceUnits = 0;
    }
    // Strings count UTF-16 units; an ArrayBuffer or a view its bytes.
    const units = typeof data === "string" ? data.length : ((data as { byteLength?: number }).byteLength ?? 0);
    this.messages++;
    this.units += units;
    this.#sinceMessages++;
    this.#sinceUnits += units;
    if (this.#sinceMessages < RECEIPT_EVERY_MESSAGES && this.#sinceUnits < RECEIPT_EVERY_BYTES) return false;
    this.#sinceMessages = this.#sinceUnits = 0;
    return true;
  }
}
