/** The figures an A/B compares, their median and spread per side, and the result table. */
import { round2 } from "../metrics/round2";
import type { Report } from "../report/report";

/** One compared figure and where it is read in a report (null when the run lacks it). */
export interface AbFigure {
  id: string;
  label: string;
  get(r: Report): number | null;
}


/** CPU of the workerd processes in one role over the window (null when the run has none). */
function roleCpu(r: Report, role: "worker" | "proxy"): number | null {
  const ps = r.server?.workerd.filter((w) => w.role === role && w.cpuPct !== null) ?? [];
  return ps.length === 0 ? null : round2(ps.reduce((a, w) => a + (w.cpuPct ?? 0), 0));
}

/** The figures, in table order. Missing figures (e.g. a server without tk:stats) stay missing. */
export const AB_FIGURES: readonly AbFigure[] = [
  { id: "serverCpuPct", label: "server CPU % (workerd; 100 = 1 core)", get: (r) => r.server?.cpuPct ?? null },
  { id: "serverCpuUsPerMsg", label: "server CPU µs / message (in + out)", get: (r) => r.server?.cpuUsPerMsg ?? null },
  // The worker process alone runs the Durable Objects; the proxy is wrangler's dev front, absent on the edge.
  { id: "workerCpuPct", label: "  of which worker (the objects) %", get: (r) => roleCpu(r, "worker") },
  { id: "proxyCpuPct", label: "  of which dev proxy %", get: (r) => roleCpu(r, "proxy") },
  // Each object's own time (tk:stats busy): on one workerd thread the process CPU cannot tell a
  // relayed room's simulation from its relays; B/A of the first row is the simulation against the single room.
  { id: "roomBusyPct", label: "room object's own time % (relayed: the simulation's)", get: (r) => r.summary.roomStats.busyPct ?? null },
  { id: "relaysBusyPct", label: "  relays' own time, summed %", get: (r) => r.summary.roomStats.relaysBusyPct ?? null },
  { id: "framesPerSec", label: "frames/s per client", get: (r) => r.summary.perClient.framesPerSec },
  { id: "ackP50Ms", label: "ack p50 ms", get: (r) => (r.summary.ackRttMs.count ? r.summary.ackRttMs.p50 : null) },
  { id: "ackP99Ms", label: "ack p99 ms", get: (r) => (r.summary.ackRttMs.count ? r.summary.ackRttMs.p99 : null) },
  { id: "gapP99Ms", label: "state-frame gap p99 ms", get: (r) => (r.summary.frameGapMs.count ? r.summary.frameGapMs.p99 : null) },
  { id: "downKiBps", label: "downlink KiB/s per client", get: (r) => round2(r.summary.perClient.downlinkBytesPerSec / 1024) },
  { id: "flushP99Ms", label: "tk:stats flush p99 ms", get: (r) => r.summary.roomStats.flushP99Ms },
  { id: "flushSliceP99Ms", label: "  longest slice of a flush p99 ms", get: (r) => r.summary.roomStats.flushSliceP99Ms ?? null },
  { id: "timerLateP99Ms", label: "tk:stats timer late p99 ms", get: (r) => r.summary.roomStats.timerLateP99Ms ?? null },
  { id: "joined", label: "clients joined", get: (r) => r.summary.clients.joined },
  { id: "generatorCpuPct", label: "generator CPU % (100 = 1 core)", get: (r) => r.summary.generator.cpuPercent },
];

/** Median and range of one figure over one side's runs. */
export interface Spread {
  n: number;
  median: number | null;
  min: number | null;
  max: number | null;
}

/** Median (mean of the middle two for an even count), min and max; nulls are left out. */
export function spread(values: readonly (number | null)[]): Spread {
  // `+ 0` turns -0 into 0, so the result does not depend on the order of equal values.
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x)).map((x) => x + 0).sort((a, b) => a - b);
  if (v.length === 0) return { n: 0, median: null, min: null, max: null };
  const mid = v.length >> 1;
  const median = v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  return { n: v.length, median: round2(median), min: v[0], max: v[v.length - 1] };
}

/** B's median over A's, or null when either is missing or A's is 0. */
export function ratio(a: Spread, b: Spread): number | null {
  if (a.median === null || b.median === null || a.median === 0) return null;
  return Math.round((b.median / a.median) * 1000) / 1000;
}

/** One run as the A/B result records it. */
export interface AbRunRecord {
  side: "A" | "B";
  /** 1-based repeat of that side. */
  repeat: number;
  /** Report file (relative to the result directory), when the run finished. */
  report?: string;
  status?: Report["status"];
  saturationReasons?: string[];
  /** Why the run has no report (server did not start, run failed). */
  error?: string;
  figures: Record<string, number | null>;
  serverWarnings?: string[];
}

/** One row of the result table. */
export interface AbFigureRow {
  id: string;
  label: string;
  a: Spread;
  b: Spread;
  ratio: number | null;
  /**
   * Whether A's [min, max] and B's overlap (null when a side is missing). Overlapping ranges mean
   * the runs do not separate the two sides: the ratio may be noise.
   */
  rangesOverlap: boolean | null;
}

/** True when the two ranges share any value; null when either side has no value. */
export function rangesOverlap(a: Spread, b: Spread): boolean | null {
  if (a.min === null || a.max === null || b.min === null || b.max === null) return null;
  return a.min <= b.max && b.min <= a.max;
}

/** Figures of one finished run. */
export function runFigures(r: Report): Record<string, number | null> {
  return Object.fromEntries(AB_FIGURES.map((f) => [f.id, f.get(r)]));
}

/**
 * The table rows. Runs with a saturated generator are left out of the medians (their figures
 * describe the generator), unless every finished run of a side was saturated; `usedSaturated`
 * says when that happened.
 */
export function abRows(runs: readonly AbRunRecord[]): { rows: AbFigureRow[]; usedSaturated: ("A" | "B")[] } {
  const usedSaturated: ("A" | "B")[] = [];
  const pick = (side: "A" | "B"): AbRunRecord[] => {
    const done = runs.filter((r) => r.side === side && r.error === undefined);
    const ok = done.filter((r) => r.status === "ok");
    if (ok.length === 0 && done.length > 0) {
      usedSaturated.push(side);
      return done;
    }
    return ok;
  };
  const a = pick("A");
  const b = pick("B");
  const rows = AB_FIGURES.map((f) => {
    const sa = spread(a.map((r) => r.figures[f.id] ?? null));
    const sb = spread(b.map((r) => r.figures[f.id] ?? null));
    return { id: f.id, label: f.label, a: sa, b: sb, ratio: ratio(sa, sb), rangesOverlap: rangesOverlap(sa, sb) };
  });
  return { rows, usedSaturated };
}

/** "45.2 [44–47.1] n=3", or "n/a". */
export function formatSpread(s: Spread): string {
  if (s.median === null) return "n/a";
  return s.n === 1 ? `${s.median} (n=1)` : `${s.median} [${s.min}–${s.max}] n=${s.n}`;
}

/**
 * The table as aligned text (console) or as markdown. "ranges" says whether the sides' ranges
 * overlap ("apart" = every B run differs from every A run in the same direction).
 */
export function abTable(rows: readonly AbFigureRow[], labels: { a: string; b: string }, markdown: boolean): string {
  const head = ["figure", `A: ${labels.a} median [min–max]`, `B: ${labels.b} median [min–max]`, "B/A", "ranges"];
  const body = rows.map((r) => [
    r.label,
    formatSpread(r.a),
    formatSpread(r.b),
    r.ratio === null ? "n/a" : r.ratio.toFixed(3),
    r.rangesOverlap === null ? "" : r.rangesOverlap ? "overlap" : "apart",
  ]);
  if (markdown) {
    return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...body.map((c) => `| ${c.join(" | ")} |`)].join("\n");
  }
  const w = head.map((h, i) => Math.max(h.length, ...body.map((c) => c[i].length)));
  const line = (c: string[]): string => c.map((x, i) => (i === 0 ? x.padEnd(w[i]) : x.padStart(w[i]))).join("  ");
  return [line(head), ...body.map(line)].join("\n");
}
