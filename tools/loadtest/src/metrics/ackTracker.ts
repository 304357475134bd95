import { isSpike } from "./spikes";

/** Where resolved RTTs go; implemented by the room's metrics so nothing is allocated per ack. */
export interface AckSink {
  /** One input acknowledged, `rttMs` after its scheduled send time. */
  ackRtt(rttMs: number): void;
  /** One ack whose oldest resolved input waited longer than the spike threshold. */
  ackSpike(): void;
}

/** What one call to {@link AckTracker.resolve} did. */
export const AckOutcome = {
  /** Resolved at least one outstanding input. */
  Resolved: 0,
  /** Acked nothing new (a repeat of the last ack). */
  Duplicate: 1,
  /** Lower than an ack already seen: the server went backwards. */
  Regression: 2,
} as const;
export type AckOutcome = (typeof AckOutcome)[keyof typeof AckOutcome];

const DEFAULT_CAPACITY = 256;
/** 16384 inputs = 13.6 min at 20 Hz: far beyond any bounded run, yet only 128 KiB if reached. */
const MAX_CAPACITY = 16384;

/**
 * Outstanding inputs of one client, by sequence number, with their *scheduled* send times.
 *
 * The server acks the highest processed seq, which implies every lower seq was processed too, so
 * an ack resolves every outstanding input ≤ ackSeq. RTT counts from the scheduled time, not the
 * actual send, so a generator that sends late cannot hide the delay (no coordinated omission).
 */
export class AckTracker {
  private times: Float64Array;
  private mask: number;
  /** Oldest seq not yet acked. */
  private low: number;
  /** Next seq to hand out. */
  private next: number;
  private lastAck: number;
  /** Acks naming a seq this client never sent (resolved up to the last sent seq). */
  ackBeyondSent = 0;
  /** Inputs dropped from tracking because MAX_CAPACITY inputs were outstanding. */
  untracked = 0;

  /** `firstSeq` = welcome.lastSeq + 1 (the server ignores seqs at or below lastSeq). */
  constructor(firstSeq: number, capacity = DEFAULT_CAPACITY) {
    let cap = 1;
    while (cap < capacity) cap <<= 1;
    this.times = new Float64Array(cap);
    this.mask = cap - 1;
    this.low = firstSeq;
    this.next = firstSeq;
    this.lastAck = firstSeq - 1;
  }

  /** Assigns the next seq to an input scheduled at `scheduledAt` (ms) and returns it. */
  track(scheduledAt: number): number {
    if (this.next - this.low > this.mask) this.grow();
    const seq = this.next++;
    this.times[seq & this.mask] = scheduledAt;
    return seq;
  }

  private grow(): void {
    const cap = this.times.length;
    if (cap >= MAX_CAPACITY) {
      // Forget the oldest: it has waited for minutes; counted so the report can say so.
      this.low++;
      this.untracked++;
      return;
    }
    const bigger = new Float64Array(cap * 2);
    const mask = cap * 2 - 1;
    for (let s = this.low; s < this.next; s++) bigger[s & mask] = this.times[s & this.mask];
    this.times = bigger;
    this.mask = mask;
  }

  /** Resolves all outstanding inputs with seq ≤ ackSeq, recording each RTT into `sink`. */
  resolve(ackSeq: number, now: number, sink: AckSink): AckOutcome {
    if (ackSeq < this.lastAck) return AckOutcome.Regression;
    this.lastAck = ackSeq;
    let upTo = ackSeq;
    if (upTo >= this.next) {
      this.ackBeyondSent++;
      upTo = this.next - 1;
    }
    if (upTo < this.low) return AckOutcome.Duplicate;
    const oldestRtt = now - this.times[this.low & this.mask];
    for (let s = this.low; s <= upTo; s++) sink.ackRtt(now - this.times[s & this.mask]);
    this.low = upTo + 1;
    if (isSpike(oldestRtt)) sink.ackSpike();
    return AckOutcome.Resolved;
  }

  /** Inputs sent and not yet acked. */
  get outstanding(): number {
    return this.next - this.low;
  }

  /** Scheduled time of the oldest unacked input, or NaN when none is outstanding. */
  oldestScheduledAt(): number {
    return this.next > this.low ? this.times[this.low & this.mask] : Number.NaN;
  }

  /** The next seq that {@link track} will assign. */
  get nextSeq(): number {
    return this.next;
  }
}
