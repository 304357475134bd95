/**
 * One-way latencies of the relay-transport bench in fixed 0.1 ms buckets (0 to 1 s, one overflow
 * bucket above): recording allocates nothing, and objects hand their counts to the simulation,
 * which merges them into one histogram per direction.
 */

/** Width of one bucket (ms). */
export const LATENCY_BUCKET_MS = 0.1;
/** Buckets below the overflow bucket: 0 to 1,000 ms. */
const BUCKETS = 10_000;

/** Counts per bucket; the last bucket holds everything at or above 1 s (and negative clock steps go to 0). */
export class LatencyHistogram {
  readonly counts = new Uint32Array(BUCKETS + 1);
  count = 0;
  maxMs = 0;

  /** Adds one latency. */
  record(ms: number): void {
    const i = bucketOf(ms);
    this.counts[i]!++;
    this.count++;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /** Adds another histogram's counts (an object's, read over RPC). */
  merge(other: { counts: ArrayLike<number>; count: number; maxMs: number }): void {
    const n = Math.min(other.counts.length, this.counts.length);
    for (let i = 0; i < n; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    if (other.maxMs > this.maxMs) this.maxMs = other.maxMs;
  }

  /** Empties it. */
  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.maxMs = 0;
  }

  /**
   * The q-quantile as its bucket's lower edge (ms): the bucket holding the ⌈q·n⌉-th smallest
   * latency. Null when empty.
   */
  quantile(q: number): number | null {
    if (this.count === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.round(i * LATENCY_BUCKET_MS * 10) / 10;
    }
    return null;
  }
}

/** The bucket a latency falls in. */
export function bucketOf(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(BUCKETS, Math.floor(ms / LATENCY_BUCKET_MS + 1e-9));
}
