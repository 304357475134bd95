import fc from "fast-check";
import type { Histogram } from "hdr-histogram-js";
import { describe, expect, it } from "vitest";
import {
  decodeHistogram,
  encodeHistogram,
  mergeEncoded,
  newHistogram,
  recordMs,
  summarize,
  summarizeEncoded,
} from "../src/metrics/histogram";

/** Every non-empty bucket as (bucket value, count): independent of array sizing. */
function buckets(h: Histogram): [number, number][] {
  const js = h as unknown as { countsArrayLength: number; getCountAtIndex(i: number): number; valueFromIndex(i: number): number };
  const out: [number, number][] = [];
  for (let i = 0; i < js.countsArrayLength; i++) {
    const c = js.getCountAtIndex(i);
    if (c > 0) out.push([js.valueFromIndex(i), c]);
  }
  return out;
}

// Latencies from sub-ms to minutes, as ms with µs precision.
const sample = fc.oneof(
  fc.double({ min: 0, max: 5, noNaN: true }),
  fc.double({ min: 0, max: 500, noNaN: true }),
  fc.double({ min: 0, max: 300_000, noNaN: true }),
);

describe("HDR histogram merge", () => {
  it("merge of encoded shards equals one histogram of all samples (bucket for bucket)", () => {
    fc.assert(
      fc.property(fc.array(sample, { minLength: 0, maxLength: 400 }), fc.integer({ min: 1, max: 6 }), fc.nat(), (values, shards, salt) => {
        const direct = newHistogram();
        const parts = Array.from({ length: shards }, () => newHistogram());
        values.forEach((v, i) => {
          recordMs(direct, v);
          recordMs(parts[(i * 7 + salt) % shards], v);
        });
        const merged = decodeHistogram(mergeEncoded(parts.map(encodeHistogram)));
        expect(merged.totalCount).toBe(values.length);
        expect(buckets(merged)).toEqual(buckets(direct));
        expect(summarize(merged)).toEqual(summarize(direct));
      }),
      { numRuns: 150 },
    );
  });

  it("merging is associative: ((a+b)+c) == (a+(b+c))", () => {
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 100 }), fc.array(sample, { maxLength: 100 }), fc.array(sample, { maxLength: 100 }), (a, b, c) => {
        const enc = (vs: number[]): string => {
          const h = newHistogram();
          for (const v of vs) recordMs(h, v);
          return encodeHistogram(h);
        };
        const [ea, eb, ec] = [enc(a), enc(b), enc(c)];
        const left = decodeHistogram(mergeEncoded([mergeEncoded([ea, eb]), ec]));
        const right = decodeHistogram(mergeEncoded([ea, mergeEncoded([eb, ec])]));
        expect(buckets(left)).toEqual(buckets(right));
      }),
      { numRuns: 50 },
    );
  });

  it("summaries are in ms with 3 significant digits of the recorded µs", () => {
    const h = newHistogram();
    for (let i = 1; i <= 1000; i++) recordMs(h, i);
    const s = summarizeEncoded(encodeHistogram(h));
    expect(s.count).toBe(1000);
    expect(s.p50).toBeGreaterThanOrEqual(500 * 0.999);
    expect(s.p50).toBeLessThanOrEqual(500 * 1.001);
    expect(s.p99).toBeGreaterThanOrEqual(990 * 0.999);
    expect(s.p99).toBeLessThanOrEqual(990 * 1.001);
    expect(s.max).toBeGreaterThanOrEqual(1000);
    expect(s.max).toBeLessThanOrEqual(1001);
    expect(s.min).toBeGreaterThanOrEqual(0.999);
    expect(s.min).toBeLessThanOrEqual(1);
  });

  it("negative durations record as 0 and an empty histogram summarises to zeros", () => {
    const h = newHistogram();
    expect(summarize(h)).toEqual({ count: 0, min: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0 });
    recordMs(h, -3);
    expect(summarize(h).max).toBe(0);
    expect(summarize(h).count).toBe(1);
  });
});
