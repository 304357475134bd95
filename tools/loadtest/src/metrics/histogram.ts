import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64, type Histogram } from "hdr-histogram-js";

/**
 * Durations are recorded as integer microseconds with 3 significant digits (≤ 0.1% error), so a
 * 1 ms and a 10 s value are both resolved well enough to compare runs.
 */
const SIGNIFICANT_DIGITS = 3;

/**
 * Start small and let the histogram grow with the largest value seen: a room that only sees
 * 100 ms latencies keeps a ~30 KB counts array instead of one sized for an hour.
 */
const INITIAL_HIGHEST_US = 1 << 15;

/** Values beyond this are clamped (and counted by the caller if it cares): one hour. */
export const MAX_RECORDABLE_US = 3_600_000_000;

/** Summary of one histogram, in milliseconds (3 decimals). All fields 0 when `count` is 0. */
export interface DurationSummary {
  count: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** A new empty histogram with the tool's fixed resolution; every histogram it merges must match. */
export function newHistogram(): Histogram {
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: INITIAL_HIGHEST_US,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
    autoResize: true,
    bitBucketSize: 32,
  });
}

/** Records a duration given in (fractional) milliseconds. Negative values record as 0. */
export function recordMs(h: Histogram, ms: number): void {
  let us = Math.round(ms * 1000);
  if (!(us > 0)) us = 0;
  else if (us > MAX_RECORDABLE_US) us = MAX_RECORDABLE_US;
  h.recordValue(us);
}

/** Mergeable, compact text form (HdrHistogram V2 compressed, base64). */
export function encodeHistogram(h: Histogram): string {
  return encodeIntoCompressedBase64(h);
}

/** Inverse of {@link encodeHistogram}. The result can grow when more values are merged into it. */
export function decodeHistogram(encoded: string): Histogram {
  const out = newHistogram();
  // Decoded histograms are fixed-size; adding into a fresh auto-resizing one keeps merges safe.
  out.add(decodeFromCompressedBase64(encoded));
  return out;
}

/**
 * Exact merge: bucket counts are summed, so percentiles of the merge equal percentiles of a
 * histogram that recorded every sample directly.
 */
export function mergeEncoded(encoded: readonly string[]): string {
  const out = newHistogram();
  for (const e of encoded) out.add(decodeFromCompressedBase64(e));
  return encodeHistogram(out);
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

/**
 * Percentiles read from bucket boundaries (getValueAtPercentile) rather than the raw max field,
 * so a merged or decoded histogram summarises identically to the one that saw every sample.
 */
export function summarize(h: Histogram): DurationSummary {
  if (h.totalCount === 0) return { count: 0, min: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0 };
  const ms = (us: number): number => round3(us / 1000);
  return {
    count: h.totalCount,
    min: ms(h.getValueAtPercentile(0)),
    p50: ms(h.getValueAtPercentile(50)),
    p95: ms(h.getValueAtPercentile(95)),
    p99: ms(h.getValueAtPercentile(99)),
    p999: ms(h.getValueAtPercentile(99.9)),
    max: ms(h.getValueAtPercentile(100)),
    mean: ms(h.mean),
  };
}

/** Summary straight from the encoded form. */
export function summarizeEncoded(encoded: string): DurationSummary {
  return summarize(decodeHistogram(encoded));
}
