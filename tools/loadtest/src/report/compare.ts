/** Two reports side by side: each figure, its delta and which way is better, and what makes the comparison unfair. */
import type { Summary } from "../metrics/summary";
import type { Report } from "./report";

/** One compared figure. `delta` = b − a; `deltaPct` relative to a (null when a is 0 or either is missing). */
export interface ComparisonRow {
  metric: string;
  a: number | null;
  b: number | null;
  delta: number | null;
  deltaPct: number | null;
  /** Which direction is an improvement, so the reader does not have to guess. */
  better: "lower" | "higher";
}

/** Side-by-side comparison of two reports. */
export interface Comparison {
  a: string;
  b: string;
  rows: ComparisonRow[];
  warnings: string[];
}

type Pick = (s: Summary) => number | null;

const METRICS: [string, Pick, "lower" | "higher"][] = [
  ["clients joined", (s) => s.clients.joined, "higher"],
  ["clients refused (room_full)", (s) => s.clients.refused, "lower"],
  ["clients failed", (s) => s.clients.failed + s.clients.throttled, "lower"],
  ["unexpected closes", (s) => s.unexpectedCloses, "lower"],
  ["spikes", (s) => s.spikes, "lower"],
  ["ack p50 ms", (s) => s.ackRttMs.p50, "lower"],
  ["ack p95 ms", (s) => s.ackRttMs.p95, "lower"],
  ["ack p99 ms", (s) => s.ackRttMs.p99, "lower"],
  ["ack max ms", (s) => s.ackRttMs.max, "lower"],
  ["frame gap p50 ms", (s) => s.frameGapMs.p50, "lower"],
  ["frame gap p95 ms", (s) => s.frameGapMs.p95, "lower"],
  ["jitter p95 ms", (s) => s.frameJitterMs.p95, "lower"],
  ["jitter p99 ms", (s) => s.frameJitterMs.p99, "lower"],
  ["frames/s per client", (s) => s.perClient.framesPerSec, "higher"],
  ["downlink B/s per client", (s) => s.perClient.downlinkBytesPerSec, "lower"],
  ["uplink B/s per client", (s) => s.perClient.uplinkBytesPerSec, "lower"],
  ["tk:stats flush p99 ms", (s) => s.roomStats.flushP99Ms, "lower"],
  ["tk:stats tick p99 ms", (s) => s.roomStats.tickP99Ms, "lower"],
  ["inputs on schedule %", (s) => s.inputs.onSchedulePct, "higher"],
  ["generator CPU %", (s) => s.generator.cpuPercent, "lower"],
  ["generator event-loop p99 ms", (s) => s.generator.eventLoopP99Ms, "lower"],
];

const CONFIG_KEYS = ["url", "scenario", "players", "rooms", "durationSec", "rampSec", "storm", "rate", "query", "workers", "turnBased"] as const;

/** Compares two reports figure by figure and notes anything that makes the comparison unfair. */
export function compareReports(a: Report, b: Report, labels: [string, string] = [a.name, b.name]): Comparison {
  const rows = METRICS.map(([metric, pick, better]) => {
    const va = pick(a.summary);
    const vb = pick(b.summary);
    const delta = va !== null && vb !== null ? Math.round((vb - va) * 1000) / 1000 : null;
    const deltaPct = delta !== null && va !== null && va !== 0 ? Math.round((delta / va) * 10000) / 100 : null;
    return { metric, a: va, b: vb, delta, deltaPct, better };
  });
  const warnings: string[] = [];
  if (a.status !== "ok") warnings.push(`${labels[0]} is ${a.status}: its figures describe the generator`);
  if (b.status !== "ok") warnings.push(`${labels[1]} is ${b.status}: its figures describe the generator`);
  for (const k of CONFIG_KEYS) {
    const va = JSON.stringify(a.config[k]);
    const vb = JSON.stringify(b.config[k]);
    if (va !== vb) warnings.push(`config.${k}: ${va} vs ${vb}`);
  }
  if (a.environment.cpuModel !== b.environment.cpuModel || a.environment.cpus !== b.environment.cpus) {
    warnings.push(`different machines: ${a.environment.cpus}x ${a.environment.cpuModel} vs ${b.environment.cpus}x ${b.environment.cpuModel}`);
  }
  return { a: labels[0], b: labels[1], rows, warnings };
}

const cell = (v: number | null): string => (v === null ? "n/a" : String(v));

/** Text table: metric | a | b | Δ | Δ% (with a marker when b is worse). */
export function formatComparison(c: Comparison): string {
  const head = ["metric", c.a, c.b, "delta", "delta %", ""];
  const body = c.rows.map((r) => {
    const worse = r.delta !== null && r.delta !== 0 && (r.better === "lower" ? r.delta > 0 : r.delta < 0);
    const pct = r.deltaPct === null ? "" : `${r.deltaPct > 0 ? "+" : ""}${r.deltaPct}%`;
    const d = r.delta === null ? "n/a" : `${r.delta > 0 ? "+" : ""}${r.delta}`;
    return [r.metric, cell(r.a), cell(r.b), d, pct, worse ? "worse" : ""];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (row: string[]): string => row.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ").trimEnd();
  const out = [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
  for (const w of c.warnings) out.push(`!! ${w}`);
  return out.join("\n");
}
