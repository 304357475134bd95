/**
 * `loadtest transport-bench`: which transport between Durable Objects is cheaper for a relayed
 * room (issue 25). The floor's bench objects (apps/floor/src/transport) do the traffic: a
 * simulation sends each of K relays an S-byte update every interval and each relay sends back a
 * B-byte input batch. This drives them over HTTP: for each repeat, each (K, S) point, each
 * transport in turn (the order reversed on odd repeats, so drift does not favour one), it starts
 * a fresh run, lets it warm up, zeroes its counters, samples the worker's CPU over the window
 * from /proc and reads the counts and one-way latencies. Configurations are compared only within
 * one invocation.
 */
import { writeBenchFiles } from "../report/reportFiles";
import { captureCpuProfile, profileLines, summarizeProfile } from "../server/cpuProfile";
import { ServerCpuSampler } from "../server/serverCpu";
import {
  costsTable,
  fitCosts,
  formatBytes,
  pointsTable,
  runFigures,
  summarizePoints,
  type BenchReading,
  type BenchTransport,
  type TransportCost,
  type TransportPoint,
  type TransportRun,
} from "./transportFigures";

/** Where the bench's requests go and whose CPU is read. */
export interface BenchTarget {
  /** The floor worker's HTTP base (`http://127.0.0.1:<port>`). */
  baseUrl: string;
  /** wrangler's pid (its process group holds workerd) for the CPU figures; null: no CPU. */
  serverPid: number | null;
  /**
   * wrangler's inspector port: with it every run's window is also CPU-profiled (the isolate's
   * self time per function, on the run). Profiling costs CPU: compare such runs' CPU only with
   * each other.
   */
  profileInspectorPort?: number;
}

/** A server the bench started for one point, stopped after it. */
export interface BenchServer extends BenchTarget {
  stop(): Promise<void>;
}

/** Options of {@link runTransportBench}. */
export interface TransportBenchOptions {
  /**
   * A running server for every run, or a function that starts a fresh one per (repeat, point):
   * objects of earlier runs (and anything they leak) then cannot weigh on later ones.
   */
  target: BenchTarget | (() => Promise<BenchServer>);
  transports: readonly BenchTransport[];
  relays: readonly number[];
  updateBytes: readonly number[];
  inputBytes: number;
  intervalMs: number;
  warmupSec: number;
  windowSec: number;
  repeats: number;
  name: string;
  /** Directory for `<ts>-transport-bench-<name>/`; nothing written when absent. */
  outDir?: string;
  log?: (line: string) => void;
}

/** What the clocks of the objects did inside one request (the floor's `/transport/clock`). */
export interface ClockReading {
  iterations: number;
  date: { distinctValues: number; smallestStepMs: number | null; elapsedMs: number };
  performance: { distinctValues: number; smallestStepMs: number | null; elapsedMs: number };
}

/** The whole bench. */
export interface TransportBenchResult {
  name: string;
  createdAt: string;
  options: Omit<TransportBenchOptions, "log" | "outDir" | "target"> & { target: BenchTarget | string };
  clock: ClockReading | null;
  runs: TransportRun[];
  points: TransportPoint[];
  costs: TransportCost[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function call<T>(base: string, path: string, query: Record<string, string | number>): Promise<T> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${base}${path}?${qs}`, { signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

let runCounter = 0;

/** One run: start, warm up, reset, measure the window, read, stop (also when something fails). */
async function oneRun(o: TransportBenchOptions, t: BenchTarget, transport: BenchTransport, relays: number, updateBytes: number, repeat: number): Promise<TransportRun> {
  const run = `${Date.now().toString(36)}-${++runCounter}`;
  const base = t.baseUrl;
  await call(base, "/transport/start", { run, transport, relays, updateBytes, inputBytes: o.inputBytes, intervalMs: o.intervalMs });
  try {
    await sleep(o.warmupSec * 1000);
    await call(base, "/transport/reset", { run });
    const warnings: string[] = [];
    let workerCpuPct: number | null = null;
    const start = Date.now();
    const profiling = t.profileInspectorPort === undefined ? null : captureCpuProfile(t.profileInspectorPort, Math.max(1, o.windowSec - 0.5));
    if (t.serverPid !== null) {
      const problem = ServerCpuSampler.problem(t.serverPid);
      const sampler = new ServerCpuSampler(t.serverPid);
      if (problem === null) {
        await sampler.run(start, start + o.windowSec * 1000);
        const cpu = sampler.result(0);
        workerCpuPct = cpu.workerd.find((p) => p.role === "worker")?.cpuPct ?? cpu.cpuPct;
        warnings.push(...cpu.warnings);
      } else {
        warnings.push(problem);
        await sleep(o.windowSec * 1000);
      }
    } else {
      await sleep(o.windowSec * 1000);
    }
    const reading = await call<BenchReading>(base, "/transport/read", { run });
    const figures = runFigures(reading, repeat, workerCpuPct, warnings);
    if (profiling) figures.profile = summarizeProfile(await profiling, 12);
    return figures;
  } finally {
    await call(base, "/transport/stop", { run }).catch(() => undefined);
  }
}

/** Runs the series; writes `transport-bench.{json,md}` under `<outDir>/<ts>-transport-bench-<name>/` when asked. */
export async function runTransportBench(o: TransportBenchOptions): Promise<{ result: TransportBenchResult; files: string[] }> {
  const log = o.log ?? (() => {});
  const fresh = typeof o.target === "function" ? o.target : null;
  let clock: ClockReading | null = null;
  const runs: TransportRun[] = [];
  const total = o.repeats * o.relays.length * o.updateBytes.length * o.transports.length;
  for (let rep = 0; rep < o.repeats; rep++) {
    const order = rep % 2 === 0 ? [...o.transports] : [...o.transports].reverse();
    for (const k of o.relays) {
      for (const s of o.updateBytes) {
        const server = fresh ? await fresh() : null;
        const target = server ?? (o.target as BenchTarget);
        try {
          if (clock === null) {
            clock = await call<ClockReading>(target.baseUrl, "/transport/clock", { run: "clock" }).catch(() => null);
            if (clock) log(`clock inside one request: Date.now() ${describeClock(clock.date)}; performance.now() ${describeClock(clock.performance)}`);
          }
          for (const t of order) {
            const r = await oneRun(o, target, t, k, s, rep + 1);
            runs.push(r);
            log(
              `[${runs.length}/${total}] ${t} K=${k} S=${formatBytes(s)}: worker ${r.workerCpuPct ?? "n/a"} %, ${r.messagesPerSec}/${r.expectedPerSec} msgs/s (sent ${Math.round((r.updates.sentPerSec + r.inputs.sentPerSec) * 100) / 100}), update p50/p99 ${r.updates.p50}/${r.updates.p99} ms, input p50/p99 ${r.inputs.p50}/${r.inputs.p99} ms${r.warnings.length ? `; ${r.warnings.join("; ")}` : ""}`,
            );
            if (r.profile) for (const line of profileLines(r.profile)) log(`    ${line}`);
          }
        } finally {
          await server?.stop();
        }
      }
    }
  }
  const points = summarizePoints(runs);
  const result: TransportBenchResult = {
    name: o.name,
    createdAt: new Date().toISOString(),
    options: {
      transports: o.transports, relays: o.relays, updateBytes: o.updateBytes, inputBytes: o.inputBytes, intervalMs: o.intervalMs,
      warmupSec: o.warmupSec, windowSec: o.windowSec, repeats: o.repeats, name: o.name,
      target: typeof o.target === "function" ? "a fresh server per (repeat, point)" : o.target,
    },
    clock,
    runs,
    points,
    costs: fitCosts(points),
  };
  const files = o.outDir ? writeBenchFiles(o.outDir, "transport-bench", o.name, result.createdAt, result, transportBenchMarkdown(result)) : [];
  return { result, files };
}

function describeClock(c: ClockReading["date"]): string {
  return `${c.distinctValues} distinct values over ${c.elapsedMs} ms, smallest step ${c.smallestStepMs ?? "none"} ms`;
}

/** The result as markdown: setup, clock, the points, the fitted costs. */
export function transportBenchMarkdown(r: TransportBenchResult): string {
  const o = r.options;
  return [
    `## Relay transport bench ${r.name} (${r.createdAt})`,
    "",
    `- K ∈ {${o.relays.join(", ")}}, S ∈ {${o.updateBytes.map(formatBytes).join(", ")}}, B = ${formatBytes(o.inputBytes)}, every ${o.intervalMs} ms both ways; ${o.warmupSec} s warm-up + ${o.windowSec} s window per run, ${o.repeats} repeats, transports alternated (${o.transports.join(", ")}, reversed on odd repeats); server: ${typeof o.target === "string" ? o.target : o.target.baseUrl}`,
    r.clock ? `- clock inside one request: Date.now() ${describeClock(r.clock.date)}; performance.now() ${describeClock(r.clock.performance)}` : "- clock probe failed",
    "",
    pointsTable(r.points),
    "",
    "CPU above the `none` control, fitted as µs per message delivered + µs per KiB delivered (both ends, one thread):",
    "",
    costsTable(r.costs),
    "",
  ].join("\n");
}
