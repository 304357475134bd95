import { createHistogram } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { ELD_RESOLUTION_MS, ProcessMonitor, ThreadMonitor, delayMs, summarizeDelay } from "../src/metrics/genHealth";
import { probeTimerNoise } from "../src/metrics/noiseProbe";

describe("generator health", () => {
  it("event-loop figures have the monitor's resolution subtracted, never below zero", () => {
    expect(ELD_RESOLUTION_MS).toBe(10);
    expect(delayMs(15e6)).toBe(5);
    expect(delayMs(10e6)).toBe(0);
    expect(delayMs(4e6)).toBe(0);
    const h = createHistogram();
    for (let i = 0; i < 99; i++) h.record(10_500_000); // 10.5 ms between wake-ups: 0.5 ms late
    h.record(72_000_000); // one 62 ms stall
    const s = summarizeDelay(h);
    expect(s.samples).toBe(100);
    expect(s.p50).toBeCloseTo(0.5, 1);
    expect(s.p99).toBeCloseTo(0.5, 1);
    expect(s.max).toBeCloseTo(62, 0);
  });

  it("process and thread monitors report CPU, memory and loop delay of a busy interval", async () => {
    const p = new ProcessMonitor();
    const t = new ThreadMonitor();
    p.start();
    t.start();
    // The monitor's first wake-up only starts its clock: let it tick before blocking.
    await new Promise((r) => setTimeout(r, 40));
    const keep: number[][] = [];
    // Busy until this process has used 300 ms of CPU (not 300 ms of wall time: on a loaded
    // machine the loop gets a fraction of a core), with a wall-time bound.
    const cpu0 = process.cpuUsage();
    const cpuMs = (): number => {
      const c = process.cpuUsage(cpu0);
      return (c.user + c.system) / 1000;
    };
    const giveUp = performance.now() + 10_000;
    while (cpuMs() < 300 && performance.now() < giveUp) keep.push(new Array(100).fill(1)); // busy and allocating
    const used = cpuMs();
    await new Promise((r) => setTimeout(r, 50));
    const th = t.stop("main", 10);
    const ph = p.stop([th], 10);
    expect(keep.length).toBeGreaterThan(0);
    expect(used).toBeGreaterThanOrEqual(300);
    // The monitor's CPU over its interval covers at least what the loop used (to its rounding).
    expect((ph.cpuPercent / 100) * ph.wallSec * 1000).toBeGreaterThan(used * 0.9);
    expect(ph.wallSec).toBeGreaterThan(0.3);
    expect(ph.machineBusyPercent).toBeGreaterThan(0);
    expect(ph.machineBusyPercent).toBeLessThanOrEqual(100);
    expect(th.heapUsedPeakMiB).toBeGreaterThanOrEqual(th.heapUsedStartMiB);
    // The 300 ms busy loop blocked the event loop; the monitor must have seen it.
    expect(th.eventLoop.max).toBeGreaterThan(200);
  });

  it("the idle-timer noise probe counts its wake-ups and orders its lateness figures", async () => {
    const n = await probeTimerNoise(0.3, 5);
    expect(n.wakeups).toBeGreaterThan(5);
    expect(n.wakeups).toBeLessThanOrEqual(60);
    expect(n.onTimePct).toBeGreaterThanOrEqual(0);
    expect(n.onTimePct).toBeLessThanOrEqual(100);
    expect(n.p99LateMs).toBeLessThanOrEqual(n.maxLateMs);
  });
});
