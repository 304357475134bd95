import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DelayLine } from "../../src/delayLine";

describe("DelayLine", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const line = () => {
    const out: number[] = [];
    const l = new DelayLine<number>((n) => out.push(n), () => Date.now());
    return { l, out };
  };

  it("delivers at once, synchronously, with no delay and nothing queued", () => {
    const { l, out } = line();
    l.push(1, 0);
    expect(out).toEqual([1]);
  });

  it("holds each item for its delay", () => {
    const { l, out } = line();
    l.push(1, 100);
    vi.advanceTimersByTime(99);
    expect(out).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(out).toEqual([1]);
  });

  it("never lets a later item overtake an earlier one (head-of-line blocking)", () => {
    const { l, out } = line();
    l.push(1, 300);
    l.push(2, 10);
    l.push(3, 0);
    vi.advanceTimersByTime(299);
    expect(out).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(out).toEqual([1, 2, 3]);
  });

  it("keeps order behind a queue even when delays drop to zero", () => {
    const { l, out } = line();
    l.push(1, 50);
    l.push(2, 0);
    expect(out).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(out).toEqual([1, 2]);
    l.push(3, 0);
    expect(out).toEqual([1, 2, 3]);
  });

  it("clear drops what is queued", () => {
    const { l, out } = line();
    l.push(1, 50);
    l.clear();
    vi.advanceTimersByTime(100);
    expect(out).toEqual([]);
    expect(l.size).toBe(0);
  });

  it("keeps order over many random delays", () => {
    const { l, out } = line();
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let i = 0; i < 500; i++) {
      l.push(i, rnd() * 200);
      vi.advanceTimersByTime(rnd() * 5);
    }
    vi.advanceTimersByTime(1000);
    expect(out).toEqual([...Array(500).keys()]);
  });
});
