/**
 * The figures of `loadtest transport-bench` (see transportBench.ts): one run's reading turned into
 * rates, the repeats of a point summarized, and each transport's CPU cost fitted as a price per
 * message plus a price per KiB — the form a capacity model can multiply by its own traffic.
 */
import { formatSpread, spread, type Spread } from "../ab/abStats";
import type { ProfileSummary } from "../server/cpuProfile";
import { TRANSPORTS, type BenchReading, type DirectionReading, type Transport } from "@tikron/floor/transport-bench";

/** The transports the floor's bench knows: its own list (`@tikron/floor/transport-bench`), one contract both sides read. */
export const BENCH_TRANSPORTS = TRANSPORTS;
/** One of {@link BENCH_TRANSPORTS}. */
export type BenchTransport = Transport;
export type { BenchReading, DirectionReading };

/** One measured run: a transport at one (K, S) point. */
export interface TransportRun {
  transport: BenchTransport;
  relays: number;
  updateBytes: number;
  inputBytes: number;
  repeat: number;
  windowSec: number;
  /** The worker workerd's CPU over the window, % of one core (null when it could not be read). */
  workerCpuPct: number | null;
  /** Messages delivered per second, both directions. */
  messagesPerSec: number;
  /** Messages the schedule asks for per second, both directions (2 · K · 1000 / interval). */
  expectedPerSec: number;
  /** KiB delivered per second, both directions. */
  kibPerSec: number;
  updates: { perSec: number; sentPerSec: number; p50: number | null; p99: number | null; max: number; outOfOrder: number; errors: number };
  inputs: { perSec: number; sentPerSec: number; p50: number | null; p99: number | null; max: number; outOfOrder: number; errors: number };
  malformed: number;
  warnings: string[];
  /** The isolate's profile over the window, when the bench profiled (`--profile`). */
  profile?: ProfileSummary;
}

/** A run's rates from its reading and the worker's CPU. */
export function runFigures(r: BenchReading, repeat: number, workerCpuPct: number | null, warnings: string[] = []): TransportRun {
  const c = r.config;
  const sec = Math.max(r.windowMs, 1) / 1000;
  const round = (x: number): number => Math.round(x * 100) / 100;
  const dir = (d: DirectionReading) => ({
    perSec: round(d.received / sec),
    sentPerSec: round(d.sent / sec),
    p50: d.latency.p50,
    p99: d.latency.p99,
    max: d.latency.max,
    outOfOrder: d.outOfOrder,
    errors: d.errors,
  });
  const bytes = r.updates.received * c.updateBytes + r.inputs.received * c.inputBytes;
  return {
    transport: c.transport,
    relays: c.relays,
    updateBytes: c.updateBytes,
    inputBytes: c.inputBytes,
    repeat,
    windowSec: round(sec),
    workerCpuPct,
    messagesPerSec: round((r.updates.received + r.inputs.received) / sec),
    expectedPerSec: round((2 * c.relays * 1000) / c.intervalMs),
    kibPerSec: round(bytes / 1024 / sec),
    updates: dir(r.updates),
    inputs: dir(r.inputs),
    malformed: r.malformed,
    warnings,
  };
}

/** A transport at one (K, S) point over its repeats. */
export interface TransportPoint {
  transport: BenchTransport;
  relays: number;
  updateBytes: number;
  runs: number;
  workerCpuPct: Spread;
  /** Median worker CPU above the `none` control at the same point (% of one core); null without a control. */
  aboveNonePct: number | null;
  messagesPerSec: number;
  /** Lowest delivered share of the schedule over the repeats. */
  deliveredMin: number;
  kibPerSec: number;
  updateP50: number | null;
  updateP99: number | null;
  inputP50: number | null;
  inputP99: number | null;
  /** Out-of-order arrivals and failed sends summed over the repeats. */
  outOfOrder: number;
  errors: number;
}

/** The points, in the order their first run came, with the control subtracted. */
export function summarizePoints(runs: readonly TransportRun[]): TransportPoint[] {
  const key = (t: string, k: number, s: number): string => `${t}|${k}|${s}`;
  const groups = new Map<string, TransportRun[]>();
  for (const r of runs) {
    const k = key(r.transport, r.relays, r.updateBytes);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  const med = (g: TransportRun[], f: (r: TransportRun) => number | null): number | null => spread(g.map(f)).median;
  const points: TransportPoint[] = [...groups.values()].map((g) => {
    const r0 = g[0]!;
    return {
      transport: r0.transport,
      relays: r0.relays,
      updateBytes: r0.updateBytes,
      runs: g.length,
      workerCpuPct: spread(g.map((r) => r.workerCpuPct)),
      aboveNonePct: null,
      messagesPerSec: med(g, (r) => r.messagesPerSec) ?? 0,
      deliveredMin: Math.min(...g.map((r) => (r.expectedPerSec > 0 ? Math.round((r.messagesPerSec / r.expectedPerSec) * 1000) / 1000 : 0))),
      kibPerSec: med(g, (r) => r.kibPerSec) ?? 0,
      updateP50: med(g, (r) => r.updates.p50),
      updateP99: med(g, (r) => r.updates.p99),
      inputP50: med(g, (r) => r.inputs.p50),
      inputP99: med(g, (r) => r.inputs.p99),
      outOfOrder: g.reduce((a, r) => a + r.updates.outOfOrder + r.inputs.outOfOrder, 0),
      errors: g.reduce((a, r) => a + r.updates.errors + r.inputs.errors, 0),
    };
  });
  for (const p of points) {
    const control = points.find((c) => c.transport === "none" && c.relays === p.relays && c.updateBytes === p.updateBytes);
    if (control && control.workerCpuPct.median !== null && p.workerCpuPct.median !== null) p.aboveNonePct = Math.round((p.workerCpuPct.median - control.workerCpuPct.median) * 100) / 100;
  }
  return points;
}

/** A transport's CPU price: µs of worker CPU per message delivered and per KiB delivered. */
export interface TransportCost {
  transport: BenchTransport;
  usPerMessage: number;
  usPerKiB: number;
  /** Points the fit used. */
  points: number;
  /** Largest |measured − fitted| over the points, µs of CPU per second. */
  worstResidualUsPerSec: number;
}

/** 1 % of one core, in µs of CPU per second. */
const US_PER_SEC_PER_PCT = 10_000;

/**
 * Fits each transport's CPU above the control as `a · messages/s + b · KiB/s` (least squares, no
 * intercept: the control already holds the timers and the process's idle cost). Needs at least
 * two points whose rates are not proportional (vary S, not only K); transports without such
 * points are left out.
 */
export function fitCosts(points: readonly TransportPoint[]): TransportCost[] {
  const out: TransportCost[] = [];
  for (const t of BENCH_TRANSPORTS) {
    if (t === "none") continue;
    const ps = points.filter((p) => p.transport === t && p.aboveNonePct !== null && p.messagesPerSec > 0);
    let smm = 0, smk = 0, skk = 0, sme = 0, ske = 0;
    for (const p of ps) {
      const m = p.messagesPerSec;
      const k = p.kibPerSec;
      const e = p.aboveNonePct! * US_PER_SEC_PER_PCT;
      smm += m * m;
      smk += m * k;
      skk += k * k;
      sme += m * e;
      ske += k * e;
    }
    const det = smm * skk - smk * smk;
    if (ps.length < 2 || !(Math.abs(det) > 1e-9 * smm * skk)) continue;
    const a = (sme * skk - ske * smk) / det;
    const b = (smm * ske - smk * sme) / det;
    const worst = Math.max(...ps.map((p) => Math.abs(p.aboveNonePct! * US_PER_SEC_PER_PCT - (a * p.messagesPerSec + b * p.kibPerSec))));
    out.push({ transport: t, usPerMessage: Math.round(a * 10) / 10, usPerKiB: Math.round(b * 100) / 100, points: ps.length, worstResidualUsPerSec: Math.round(worst) });
  }
  return out;
}

/** "2 KiB", "64 KiB", "1200 B". */
export function formatBytes(n: number): string {
  return n % 1024 === 0 ? `${n / 1024} KiB` : `${n} B`;
}

/** The points as a markdown table. */
export function pointsTable(points: readonly TransportPoint[]): string {
  const n = (v: number | null): string => (v === null ? "n/a" : String(v));
  const head = ["transport", "K", "S", "worker CPU % [min–max] n", "above none", "msgs/s (min share)", "KiB/s", "update p50 / p99 ms", "input p50 / p99 ms", "out of order / errors"];
  const rows = points.map((p) => [
    p.transport,
    String(p.relays),
    formatBytes(p.updateBytes),
    formatSpread(p.workerCpuPct),
    n(p.aboveNonePct),
    `${p.messagesPerSec} (${p.deliveredMin})`,
    String(p.kibPerSec),
    `${n(p.updateP50)} / ${n(p.updateP99)}`,
    `${n(p.inputP50)} / ${n(p.inputP99)}`,
    `${p.outOfOrder} / ${p.errors}`,
  ]);
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

/** The fitted costs as a markdown table. */
export function costsTable(costs: readonly TransportCost[]): string {
  return [
    "| transport | µs CPU per message | µs CPU per KiB | points | worst residual (µs/s) |",
    "|---|---|---|---|---|",
    ...costs.map((c) => `| ${c.transport} | ${c.usPerMessage} | ${c.usPerKiB} | ${c.points} | ${c.worstResidualUsPerSec} |`),
  ].join("\n");
}
