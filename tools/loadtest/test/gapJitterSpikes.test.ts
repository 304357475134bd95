import { describe, expect, it } from "vitest";
import { expectedGapMs, jitterMs } from "../src/metrics/gapJitter";
import { SPIKE_THRESHOLD_MS, isSpike } from "../src/metrics/spikes";

describe("frame gap and jitter", () => {
  it("expected gap is the sync interval rounded up to whole ticks", () => {
    expect(expectedGapMs(50, 50)).toBe(50);
    expect(expectedGapMs(50, 100)).toBe(100);
    expect(expectedGapMs(50, 30)).toBe(50);
    expect(expectedGapMs(50, 60)).toBe(100);
    expect(expectedGapMs(33, 66)).toBe(66);
    expect(expectedGapMs(20, 60)).toBe(60);
    expect(expectedGapMs(0, 40)).toBe(40);
  });

  it("jitter is the absolute deviation from the expected gap", () => {
    expect(jitterMs(50, 50)).toBe(0);
    expect(jitterMs(62, 50)).toBe(12);
    expect(jitterMs(38, 50)).toBe(12);
    expect(jitterMs(0, 50)).toBe(50);
  });
});

describe("spikes", () => {
  it("a spike is strictly more than one second", () => {
    expect(SPIKE_THRESHOLD_MS).toBe(1000);
    expect(isSpike(1000)).toBe(false);
    expect(isSpike(1000.001)).toBe(true);
    expect(isSpike(5)).toBe(false);
  });
});
