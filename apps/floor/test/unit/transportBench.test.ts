import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Arrivals } from "../../src/transport/arrivals";
import { parseBenchConfig, TRANSPORTS } from "../../src/transport/benchConfig";
import { bucketOf, LATENCY_BUCKET_MS, LatencyHistogram } from "../../src/transport/latencyHistogram";
import { PAYLOAD_HEADER_BYTES, PayloadKind, payloadBuffer, readPayloadHeader, writePayloadHeader } from "../../src/transport/payload";

const header = fc.record({
  kind: fc.constantFrom(PayloadKind.update, PayloadKind.input),
  source: fc.integer({ min: 0, max: 0xffff }),
  seq: fc.integer({ min: 0, max: 0xffffffff }),
  sentAtMs: fc.double({ noNaN: true, noDefaultInfinity: true }),
});

describe("bench payload framing", () => {
  it("reads back what was written, at any size and offset, padding untouched", () => {
    fc.assert(
      fc.property(header, fc.integer({ min: PAYLOAD_HEADER_BYTES, max: 300 }), fc.integer({ min: 0, max: 7 }), (h, size, offset) => {
        const backing = new Uint8Array(size + offset).fill(0xab);
        const view = backing.subarray(offset);
        writePayloadHeader(view, h);
        expect(readPayloadHeader(view)).toEqual({ ...h, sentAtMs: Object.is(h.sentAtMs, -0) ? -0 : h.sentAtMs });
        expect([...view.subarray(PAYLOAD_HEADER_BYTES)].every((b) => b === 0xab)).toBe(true);
        // The same bytes as a plain ArrayBuffer (what a WebSocket delivers).
        expect(readPayloadHeader(view.slice().buffer)).toEqual(readPayloadHeader(view));
      }),
    );
  });

  it("refuses short messages and unknown kinds instead of misreading them", () => {
    expect(readPayloadHeader(new Uint8Array(PAYLOAD_HEADER_BYTES - 1))).toBeNull();
    const b = payloadBuffer(32);
    expect(readPayloadHeader(b)).toBeNull(); // kind 0
    b[0] = 7;
    expect(readPayloadHeader(b)).toBeNull();
    expect(() => payloadBuffer(PAYLOAD_HEADER_BYTES - 1)).toThrow(/at least 16/);
    expect(() => writePayloadHeader(new Uint8Array(8), { kind: PayloadKind.update, source: 0, seq: 1, sentAtMs: 0 })).toThrow(/shorter/);
  });
});

describe("latency histogram", () => {
  /** The naive twin: sort and take the ⌈q·n⌉-th value's bucket. */
  const naiveQuantile = (values: number[], q: number): number => {
    const sorted = [...values].sort((a, b) => a - b);
    const v = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
    return Math.round(bucketOf(v) * LATENCY_BUCKET_MS * 10) / 10;
  };

  it("gives the bucket of the sorted list's quantile, also after merging", () => {
    const latency = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.double({ min: -2, max: 1500, noNaN: true }));
    fc.assert(
      fc.property(fc.array(latency, { minLength: 1, maxLength: 200 }), fc.array(latency, { maxLength: 50 }), fc.constantFrom(0.5, 0.9, 0.99, 1), (a, b, q) => {
        const h = new LatencyHistogram();
        for (const v of a) h.record(v);
        const other = new LatencyHistogram();
        for (const v of b) other.record(v);
        h.merge(other);
        expect(h.count).toBe(a.length + b.length);
        expect(h.quantile(q)).toBe(naiveQuantile([...a, ...b], q));
        expect(h.maxMs).toBe(Math.max(0, ...a, ...b));
      }),
    );
  });

  it("is empty after a reset", () => {
    const h = new LatencyHistogram();
    h.record(3);
    h.reset();
    expect(h.quantile(0.5)).toBeNull();
    expect(h.count).toBe(0);
  });
});

describe("arrivals at a receiver", () => {
  const msg = (kind: PayloadKind, source: number, seq: number, sentAtMs: number): Uint8Array =>
    writePayloadHeader(payloadBuffer(40), { kind, source, seq, sentAtMs });

  it("counts each sender's order apart, latency by the shared clock, and what is not a payload", () => {
    const a = new Arrivals(PayloadKind.input);
    a.take(msg(PayloadKind.input, 1, 1, 100), 101);
    a.take(msg(PayloadKind.input, 2, 1, 100), 103); // another sender's seq 1: in order
    a.take(msg(PayloadKind.input, 1, 3, 110), 111);
    a.take(msg(PayloadKind.input, 1, 2, 105), 112); // late
    a.take(msg(PayloadKind.update, 1, 9, 0), 1); // wrong direction
    a.take("text", 1);
    expect(a.received).toBe(4);
    expect(a.outOfOrder).toBe(1);
    expect(a.malformed).toBe(2);
    expect(a.latency.quantile(1)).toBe(7);
    a.reset();
    a.take(msg(PayloadKind.input, 1, 3, 0), 0); // seqs are remembered across a reset
    expect(a.outOfOrder).toBe(1);
    expect(a.received).toBe(1);
  });
});

describe("bench config from the start request", () => {
  it("takes every transport and the defaults", () => {
    for (const t of TRANSPORTS) expect(parseBenchConfig(new URLSearchParams({ transport: t })).transport).toBe(t);
    expect(parseBenchConfig(new URLSearchParams("transport=ws&relays=8&updateBytes=65536&inputBytes=1200&intervalMs=50"))).toEqual({
      transport: "ws",
      relays: 8,
      updateBytes: 65536,
      inputBytes: 1200,
      intervalMs: 50,
    });
  });

  it("names the bad field", () => {
    expect(() => parseBenchConfig(new URLSearchParams("transport=carrier-pigeon"))).toThrow(/transport must be one of/);
    expect(() => parseBenchConfig(new URLSearchParams("transport=rpc&relays=0"))).toThrow(/relays/);
    expect(() => parseBenchConfig(new URLSearchParams("transport=rpc&updateBytes=8"))).toThrow(/updateBytes/);
    expect(() => parseBenchConfig(new URLSearchParams("transport=rpc&intervalMs=2.5"))).toThrow(/intervalMs/);
  });
});
