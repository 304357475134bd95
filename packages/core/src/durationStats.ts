/** Upper bounds (ms) of the fixed histogram buckets reported in `tk:stats`; the last is +∞. */
export const DURATION_BUCKETS_MS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100] as const;

const WINDOW = 1024;

/**
 * The clock durations are measured with: `performance.now()` where there is one (real time under
 * Node and local workerd; coarse inside deployed Workers, see `TIMING_NOTE`), else `Date.now()`.
 */
export const perfNow: () => number =
  typeof performance !== "undefined" && typeof performance.now === "function" ? () => performance.now() : () => Date.now();

/** Summary of a {@link DurationStats} as reported in `tk:stats`. */
export interface DurationSummary {
  /** Samples recorded, all time. */
  count: number;
  /** Median of the recent window (ms). */
  p50: number;
  /** 95th percentile of the recent window (ms). */
  p95: number;
  /** 99th percentile of the recent window (ms). */
  p99: number;
  /** Largest sample, all time (ms). */
  max: number;
  /** Mean of every sample, all time (ms). */
  mean: number;
  /** Counts per bucket: `le[i]` is the upper bound of `counts[i]`; the final count is > last bound. */
  histogram: {
    /** Upper bound (ms) of each bucket. */
    le: readonly number[];
    /** Samples per bucket; one more than `le`: the last counts samples above every bound. */
    counts: number[];
  };
}

/**
 * Durations of a recurring step (tick, flush): an all-time bucket histogram and max, and
 * percentiles over the most recent 1,024 samples. Recording allocates nothing.
 */
export class DurationStats {
  private readonly ring = new Float64Array(WINDOW);
  private readonly buckets = new Float64Array(DURATION_BUCKETS_MS.length + 1);
  private n = 0;
  private sum = 0;
  private max = 0;

  /** Records one duration (ms). */
  record(ms: number): void {
    if (!(ms >= 0)) ms = 0;
    this.ring[this.n % WINDOW] = ms;
    this.n++;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
    let b = 0;
    while (b < DURATION_BUCKETS_MS.length && ms > DURATION_BUCKETS_MS[b]!) b++;
    this.buckets[b]!++;
  }

  /** Samples recorded so far. */
  get count(): number {
    return this.n;
  }

  /** A snapshot of the percentiles, max, mean and histogram. */
  summary(): DurationSummary {
    const k = Math.min(this.n, WINDOW);
    const sorted = Array.from(this.ring.subarray(0, k)).sort((a, b) => a - b);
    const pct = (p: number) => (k === 0 ? 0 : round3(sorted[Math.min(k - 1, Math.ceil((p / 100) * k) - 1)]!));
    return {
      count: this.n,
      p50: pct(50),
      p95: pct(95),
      p99: pct(99),
      max: round3(this.max),
      mean: this.n === 0 ? 0 : round3(this.sum / this.n),
      histogram: { le: DURATION_BUCKETS_MS, counts: Array.from(this.buckets) },
    };
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
