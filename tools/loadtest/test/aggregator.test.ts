import { describe, expect, it } from "vitest";
import { LiveAggregator } from "../src/live/aggregator";
import type { ThreadTick } from "../src/live/threadTick";
import { encodeHistogram, newHistogram, recordMs } from "../src/metrics/histogram";
import { liveThresholds } from "../src/thresholds/evaluate";

/** A thread's tick: `acks` RTTs in its window, cumulative counters scaled by second. */
function tick(tSec: number, players: number, acks: number[], encode = false): ThreadTick {
  const ack = newHistogram();
  for (const a of acks) recordMs(ack, a);
  return {
    tSec,
    players,
    joined: players,
    failed: 0,
    refused: 0,
    inputsSent: 20 * players * tSec,
    inputsOnSchedule: 20 * players * tSec,
    inputsAcked: 20 * players * tSec,
    framesRx: 20 * players * tSec,
    bytesRx: 1000 * players * tSec,
    errors: 0,
    unexpectedCloses: 0,
    dropped: 0,
    reconnected: 0,
    eventLoopP99Ms: 1,
    ackWindow: encode ? encodeHistogram(ack) : ack,
    gapWindow: encode ? encodeHistogram(newHistogram()) : newHistogram(),
  };
}

describe("live aggregator", () => {
  it("builds a second's sample once every thread reported it, merging windows exactly, whatever the arrival order", () => {
    const agg = new LiveAggregator({ threads: 2, targetAt: () => 6 });
    expect(agg.accept(1, tick(1, 2, [10, 10], true))).toBeNull();
    const s1 = agg.accept(0, tick(1, 4, [30]))!;
    expect(s1).toMatchObject({ tSec: 1, players: 6, target: 6, inputsPerSec: 120, acksPerSec: 120 });
    // Window percentiles over both threads' acks: 10, 10, 30.
    expect(s1.ackP50Ms).toBeCloseTo(10, 1);
    expect(s1.ackP99Ms).toBeCloseTo(30, 1);
    expect(s1.framesPerSecPerClient).toBe(20);
    // Second 2 from thread 0 only, then second 3 completes: second 2 is built from what arrived.
    expect(agg.accept(0, tick(2, 4, [50]))).toBeNull();
    agg.accept(0, tick(3, 4, [5]));
    const s3 = agg.accept(1, tick(3, 2, [5], true))!;
    expect(agg.samples.map((s) => s.tSec)).toEqual([1, 2, 3]);
    expect(agg.samples[1]!.ackP99Ms).toBeCloseTo(50, 1);
    expect(s3.players).toBe(6);
  });

  it("stamps the server's CPU on a sample when a sampler answers, and leaves it out when not", () => {
    let cpu: number | null = null;
    const agg = new LiveAggregator({ threads: 1, targetAt: () => 1, serverCpuNow: () => cpu });
    expect(agg.accept(0, tick(1, 1, [1]))!.serverCpuPct).toBeUndefined();
    cpu = 37.5;
    expect(agg.accept(0, tick(2, 1, [1]))!.serverCpuPct).toBe(37.5);
  });

  it("calls onAbort once, on the first sample past the grace that breaks a live threshold", () => {
    const aborts: unknown[] = [];
    const agg = new LiveAggregator({ threads: 1, targetAt: () => 1, live: liveThresholds(["ack.p99<100"]), graceSec: 2, onAbort: (a) => aborts.push(a) });
    agg.accept(0, tick(1, 1, [500]));
    expect(aborts).toEqual([]);
    agg.accept(0, tick(2, 1, [50]));
    expect(aborts).toEqual([]);
    agg.accept(0, tick(3, 1, [150]));
    agg.accept(0, tick(4, 1, [150]));
    expect(aborts).toEqual([{ atSec: 3, threshold: "ack.p99<100", actual: expect.stringMatching(/^15\d/) }]);
  });
});
