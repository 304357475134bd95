/**
 * What the room benches share besides their clock (benchClock.ts): a socket that counts what it
 * is sent, and the one way they read a numeric flag.
 */
import type { Connection } from "@tikron/core";
import { ReceiptCounter } from "@tikron/protocol";

/**
 * A socket that counts what it is sent and keeps nothing. With `confirms`, it reads what it is
 * sent as the SDK does and raises {@link receiptDue} when its counter says a receipt is due (the
 * bench sends it after the room's task, as a socket would); without, it reads nothing, so it
 * allocates nothing on its side.
 */
export class CountingConnection implements Connection {
  messages = 0;
  bytes = 0;
  receiptDue = false;
  readonly receipts = new ReceiptCounter();

  constructor(private readonly confirms = false) {}

  send(data: Uint8Array | string): void {
    this.messages++;
    this.bytes += typeof data === "string" ? data.length : data.byteLength;
    if (this.confirms && this.receipts.read(this, data)) this.receiptDue = true;
  }
  close(): void {}
  bufferedAmount(): number {
    return 0;
  }
}

/** The number after `name` on the command line, or `fallback` when it is not there. */
export function benchArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
