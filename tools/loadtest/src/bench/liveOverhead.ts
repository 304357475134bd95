/**
 * What live sampling costs the generator: the same loopback run with per-second sampling on
 * (series, progress, live thresholds) and off, alternated (ABBA) against real agar rooms on the Node host in a
 * child process, medians per side. `npm run loadtest -- bench-live`.
 */
import type { ChildProcess } from "node:child_process";
import type { Report } from "../report/report";
import { runLoad } from "../run/runner";
import { spawnRoomServer } from "./benchGenerator";

/** Options of {@link benchLiveOverhead}. */
export interface LiveBenchOptions {
  clients: number;
  rooms: number;
  durationSec: number;
  rampSec: number;
  /** A/B pairs; the order alternates per pair (AB, BA, AB, ...). */
  pairs: number;
}

/** One side's figures per run and their medians. */
export interface LiveBenchSide {
  cpuMicrosPerMessage: number[];
  cpuPercent: number[];
  onSchedulePct: number[];
  median: { cpuMicrosPerMessage: number; cpuPercent: number; onSchedulePct: number };
}

const median = (v: readonly number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function side(reports: readonly Report[]): LiveBenchSide {
  const cpuMicrosPerMessage = reports.map((r) => r.summary.generator.cpuMicrosPerMessage ?? Number.NaN);
  const cpuPercent = reports.map((r) => r.summary.generator.cpuPercent);
  const onSchedulePct = reports.map((r) => r.summary.inputs.onSchedulePct);
  return {
    cpuMicrosPerMessage,
    cpuPercent,
    onSchedulePct,
    median: { cpuMicrosPerMessage: median(cpuMicrosPerMessage), cpuPercent: median(cpuPercent), onSchedulePct: median(onSchedulePct) },
  };
}

/** Runs the A/B benchmark; A = live sampling on, B = off. */
export async function benchLiveOverhead(o: LiveBenchOptions, log: (line: string) => void = () => {}): Promise<{ on: LiveBenchSide; off: LiveBenchSide }> {
  const perRun = o.rampSec + o.durationSec + 8;
  let child: ChildProcess | undefined;
  try {
    const s = await spawnRoomServer(o.pairs * 2 * perRun + 60);
    child = s.child;
    const url = `ws://127.0.0.1:${s.port}`;
    const on: Report[] = [];
    const off: Report[] = [];
    const once = async (live: boolean): Promise<void> => {
      const r = await runLoad(
        { url, players: Math.ceil(o.clients / o.rooms), rooms: o.rooms, durationSec: o.durationSec, rampSec: o.rampSec, roomStats: false, name: `bench-live-${live ? "on" : "off"}` },
        { live },
      );
      (live ? on : off).push(r);
      log(`${live ? "on " : "off"}  ${r.summary.generator.cpuMicrosPerMessage} µs/msg  cpu ${r.summary.generator.cpuPercent}%  on schedule ${r.summary.inputs.onSchedulePct}%  ${r.status}`);
    };
    // Warm-up (JIT, lazy paths), not counted.
    await runLoad({ url, players: 4, rooms: 1, durationSec: 1, rampSec: 0, roomStats: false });
    for (let i = 0; i < o.pairs; i++) {
      const first = i % 2 === 0;
      await once(first);
      await once(!first);
    }
    return { on: side(on), off: side(off) };
  } finally {
    if (child && child.exitCode === null) child.kill("SIGTERM");
  }
}
