/**
 * What a receiving object counts of the bench's messages: arrivals of the kind it expects, their
 * one-way latency, and any that came out of order (a seq not above the sender's last; a sign the
 * transport reordered them or serialized a reused buffer after it had been rewritten).
 */
import { LatencyHistogram } from "./latencyHistogram";
import { readPayloadHeader, type PayloadKind } from "./payload";

/** Counts of one direction at one receiver. */
export class Arrivals {
  readonly latency = new LatencyHistogram();
  received = 0;
  outOfOrder = 0;
  malformed = 0;
  private readonly lastSeq = new Map<number, number>();

  constructor(private readonly expected: PayloadKind) {}

  /** Takes one message received at `nowMs`. */
  take(data: ArrayBuffer | ArrayBufferView | string, nowMs: number): void {
    const h = typeof data === "string" ? null : readPayloadHeader(data);
    if (h === null || h.kind !== this.expected) {
      this.malformed++;
      return;
    }
    this.received++;
    const last = this.lastSeq.get(h.source);
    if (last !== undefined && h.seq <= last) this.outOfOrder++;
    else this.lastSeq.set(h.source, h.seq);
    this.latency.record(nowMs - h.sentAtMs);
  }

  /** Starts a new window (the seqs seen stay: order is checked across the reset too). */
  reset(): void {
    this.latency.reset();
    this.received = 0;
    this.outOfOrder = 0;
    this.malformed = 0;
  }
}
