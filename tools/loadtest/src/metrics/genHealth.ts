import os from "node:os";
import { monitorEventLoopDelay, type Histogram } from "node:perf_hooks";
import { round2 } from "./round2";

/**
 * Sampling interval of the event-loop delay monitor. Each sample is the time between two timer
 * wake-ups, i.e. resolution + delay, so the resolution is subtracted from every figure.
 */
export const ELD_RESOLUTION_MS = 10;

/** A generator thread whose event loop stalls longer than this (p99) is saturated. */
export const MAX_EVENT_LOOP_P99_MS = 50;

/** Event-loop delay of one thread, resolution already subtracted (ms). */
export interface EventLoopDelay {
  p50: number;
  p99: number;
  max: number;
  mean: number;
  samples: number;
  resolutionMs: number;
}

/** Health of one generator thread: its loop delay and its own heap growth. */
export interface ThreadHealth {
  thread: string;
  clients: number;
  eventLoop: EventLoopDelay;
  heapUsedStartMiB: number;
  heapUsedPeakMiB: number;
}

/** Health of one generator process (all its threads). */
export interface ProcessHealth {
  /** CPU time of the whole process (all threads) over wall time; 100 = one core busy. */
  cpuPercent: number;
  wallSec: number;
  rssStartMiB: number;
  rssPeakMiB: number;
  /** (peak RSS − RSS before connecting) / clients joined in this process. */
  rssPerClientKiB: number | null;
  /** Sum of thread heap growth / clients joined in this process. */
  heapPerClientKiB: number | null;
  /**
   * Busy share of all the machine's cores during the run (100 = every core busy), this process
   * included. Far above this process's share means something else competed for the CPU.
   */
  machineBusyPercent: number;
  /** 1-minute load average when the run ended. */
  loadAvg1End: number;
}

/** Busy and total CPU time of the machine so far (all cores, ms). */
function machineTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const c of os.cpus()) {
    const t = c.times;
    busy += t.user + t.nice + t.sys + t.irq;
    total += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { busy, total };
}

const MiB = 1024 * 1024;

/** Subtracts the monitor's resolution from a raw sample (ns → ms), never below zero. */
export function delayMs(rawNs: number, resolutionMs: number = ELD_RESOLUTION_MS): number {
  if (!Number.isFinite(rawNs)) return 0;
  return round2(Math.max(0, rawNs / 1e6 - resolutionMs));
}

/** Summary of a perf_hooks delay histogram, resolution removed. */
export function summarizeDelay(h: Histogram, resolutionMs: number = ELD_RESOLUTION_MS): EventLoopDelay {
  if (h.count === 0) return { p50: 0, p99: 0, max: 0, mean: 0, samples: 0, resolutionMs };
  return {
    p50: delayMs(h.percentile(50), resolutionMs),
    p99: delayMs(h.percentile(99), resolutionMs),
    max: delayMs(h.max, resolutionMs),
    mean: delayMs(h.mean, resolutionMs),
    samples: h.count,
    resolutionMs,
  };
}

/** Watches one thread's event loop and heap for the duration of a run. */
export class ThreadMonitor {
  private readonly eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  private heapStart = 0;
  private heapPeak = 0;
  private sampler: ReturnType<typeof setInterval> | null = null;

  start(): void {
    this.heapStart = process.memoryUsage().heapUsed;
    this.heapPeak = this.heapStart;
    this.eld.enable();
    this.sampler = setInterval(() => this.sample(), 500);
    this.sampler.unref();
  }

  /** Takes a heap sample now (also done every 500 ms). */
  sample(): void {
    const h = process.memoryUsage().heapUsed;
    if (h > this.heapPeak) this.heapPeak = h;
  }

  stop(thread: string, clients: number): ThreadHealth {
    this.sample();
    this.eld.disable();
    if (this.sampler) clearInterval(this.sampler);
    return {
      thread,
      clients,
      eventLoop: summarizeDelay(this.eld),
      heapUsedStartMiB: round2(this.heapStart / MiB),
      heapUsedPeakMiB: round2(this.heapPeak / MiB),
    };
  }
}

/** Watches the whole process: CPU time (all threads) and resident memory. */
export class ProcessMonitor {
  private cpuStart = process.cpuUsage();
  private wallStart = performance.now();
  private rssStart = 0;
  private rssPeak = 0;
  private machineStart = machineTimes();
  private sampler: ReturnType<typeof setInterval> | null = null;

  /** Call just before the first client connects: the RSS baseline for per-client memory. */
  start(): void {
    this.cpuStart = process.cpuUsage();
    this.wallStart = performance.now();
    this.rssStart = process.memoryUsage.rss();
    this.rssPeak = this.rssStart;
    this.machineStart = machineTimes();
    this.sampler = setInterval(() => this.sample(), 500);
    this.sampler.unref();
  }

  sample(): void {
    const r = process.memoryUsage.rss();
    if (r > this.rssPeak) this.rssPeak = r;
  }

  stop(threads: readonly ThreadHealth[], joined: number): ProcessHealth {
    this.sample();
    if (this.sampler) clearInterval(this.sampler);
    const cpu = process.cpuUsage(this.cpuStart);
    const wallMs = performance.now() - this.wallStart;
    const heapGrowth = threads.reduce((s, t) => s + Math.max(0, t.heapUsedPeakMiB - t.heapUsedStartMiB), 0);
    const m = machineTimes();
    const dTotal = m.total - this.machineStart.total;
    return {
      cpuPercent: round2(wallMs > 0 ? ((cpu.user + cpu.system) / 1000 / wallMs) * 100 : 0),
      wallSec: round2(wallMs / 1000),
      rssStartMiB: round2(this.rssStart / MiB),
      rssPeakMiB: round2(this.rssPeak / MiB),
      rssPerClientKiB: joined > 0 ? round2(((this.rssPeak - this.rssStart) / 1024) / joined) : null,
      heapPerClientKiB: joined > 0 ? round2((heapGrowth * 1024) / joined) : null,
      machineBusyPercent: dTotal > 0 ? round2(((m.busy - this.machineStart.busy) / dTotal) * 100) : 0,
      loadAvg1End: round2(os.loadavg()[0]),
    };
  }
}
