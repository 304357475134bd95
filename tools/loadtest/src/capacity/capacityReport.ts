/** How a capacity sweep reads: the curve as a table, a one-line verdict, markdown and SVG charts. */
import { lineChartSvg, stackSvgs, type ChartPoint } from "../report/lineChart";
import { densityLabel } from "./capacityDensity";
import type { CapacityPoint, CapacityResult } from "./capacityResult";

const n = (v: number | null): string => (v === null ? "n/a" : String(v));

/**
 * The curve as a table (sorted by players), text or markdown. The verdict is each point's first
 * run; when points had several runs, a labelled column after it says how many of them passed.
 */
export function capacityTable(points: readonly CapacityPoint[], markdown: boolean): string {
  const kOfN = points.some((p) => p.runs !== undefined);
  const head = ["players", "server CPU %", "own time %", "µs/msg", "down KiB/s/client", "frames/s/client", "flush p99 ms", "slice p99 ms", "timer late p99 ms", "ack p99 ms", "gap p99 ms", ...(kOfN ? ["runs passed (extra)"] : []), "verdict (one run)"];
  const rows = [...points]
    .sort((a, b) => a.players - b.players)
    .map((p) => [
      String(p.players),
      n(p.serverCpuPct),
      ownTime(p),
      n(p.serverCpuUsPerMsg),
      n(p.downKiBpsPerClient),
      n(p.framesPerSecPerClient),
      n(p.flushP99Ms),
      n(p.flushSliceP99Ms ?? null),
      n(p.timerLateP99Ms ?? null),
      n(p.ackP99Ms),
      n(p.gapP99Ms),
      ...(kOfN ? [p.runs ? `${p.runs.passed}/${p.runs.count}` : "-"] : []),
      p.error ? `not run: ${p.error}` : p.generatorSaturated ? `INCONCLUSIVE (generator saturated): ${p.failed.join("; ")}` : p.passed ? `pass${p.unchecked.length ? ` (unchecked: ${p.unchecked.join(", ")})` : ""}` : `FAIL: ${p.failed.join("; ")}`,
    ]);
  if (markdown) return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((c) => `| ${c.join(" | ")} |`)].join("\n");
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((c) => (i === head.length - 1 ? 0 : c[i].length))));
  return [head, ...rows].map((c) => c.map((x, i) => (i === head.length - 1 ? x : x.padStart(w[i]))).join("  ")).join("\n");
}

/** The room object's own time: a single room's, or a relayed room's simulation with its relays' sum after it. */
function ownTime(p: CapacityPoint): string {
  const own = n(p.ownTimePct ?? null);
  return p.relaysOwnTimePct === undefined || p.relaysOwnTimePct === null ? own : `${own} (+${p.relaysOwnTimePct} relays)`;
}

/** One-line verdict. */
export function capacityVerdict(r: CapacityResult): string {
  if (r.points.length === 0) return "no point ran";
  const saturated = r.points.find((p) => p.generatorSaturated);
  if (saturated) return `capacity >= ${r.capacity} players; inconclusive from ${saturated.players} up (the generator saturated there)`;
  if (r.capacity === 0) return `no point passed (lowest failure ${n(r.lowestFailure)} players)`;
  return r.hitMax
    ? `capacity ≥ ${r.capacity} players (the upper bound passed)`
    : `capacity ${r.capacity} players${r.lowestFailure !== null ? ` (${r.lowestFailure} failed)` : " (no failure seen before the search stopped)"}`;
}

/** The result as markdown: verdict, setup, limits, the curve, notes. */
export function capacityMarkdown(r: CapacityResult): string {
  const o = r.options;
  return [
    `## Capacity ${r.name} (${r.createdAt})`,
    "",
    `- **${capacityVerdict(r)}**`,
    `- ${o.scenario}, one room, density ${densityLabel(o.scenario, o.density)}, server ${o.serverConfig}${o.query ? ` ?${o.query}` : ""} (+ cap=<players>), ${o.durationSec} s steady per point after a ramp at ${o.joinRate} joins/s, fresh wrangler dev per ${(o.runsPerPoint ?? 1) > 1 ? `run; verdict and figures are each point's first run, "runs passed (extra)" how many of its ${o.runsPerPoint} runs passed` : "point, one run per point"}`,
    `- pass = all joined, none throttled, no unexpected closes, every client ≥ ${r.limits.minFrameShare * 100}% of expected frames (one per flush), gap p99 ≤ ${r.limits.gapP99Ms} ms, ack p99 ≤ ${r.limits.ackP99Ms} ms, the longest flush task p99 (tk:stats flushSlice; the whole flush where it is one task) ≤ ${r.limits.flushP99Ms} ms, generator healthy`,
    `- pinning: ${o.pinning.serverCpus ? `server CPU ${o.pinning.serverCpus}, generator CPU ${o.pinning.generatorCpus}` : (o.pinning.note ?? "none")}; sockets ${o.pinning.hop === "dev-proxy" ? "through the dev proxy" : "straight to the worker (past the dev proxy)"}; commit ${r.environment.commit}${r.environment.dirty ? "+dirty" : ""}, ${r.environment.cpus} cores`,
    "",
    capacityTable(r.points, true),
    "",
    ...(r.notes.length ? ["Notes:", "", ...r.notes.map((x) => `- ${x}`), ""] : []),
  ].join("\n");
}

/** The curve as stacked line charts: CPU, latencies against their limits, flush, downlink. */
export function capacitySvg(r: CapacityResult): string {
  const pts = [...r.points].filter((p) => !p.error && !p.generatorSaturated).sort((a, b) => a.players - b.players);
  const series = (name: string, get: (p: CapacityPoint) => number | null) => ({
    name,
    points: pts.map((p): ChartPoint => ({ x: p.players, y: get(p), marked: !p.passed })),
  });
  const W = 640;
  const H = 220;
  const title = `${r.name}: ${capacityVerdict(r)} (× = failed point)`;
  const charts = [
    lineChartSvg({ title, xLabel: "players in one room", yLabel: "% of one core", series: [series("server CPU %", (p) => p.serverCpuPct)], width: W, height: H }),
    lineChartSvg({
      title: "latency (p99)",
      xLabel: "players in one room",
      yLabel: "ms",
      series: [series("ack p99", (p) => p.ackP99Ms), series("gap p99", (p) => p.gapP99Ms)],
      guides: [
        { y: r.limits.ackP99Ms, label: `ack limit ${r.limits.ackP99Ms}` },
        { y: r.limits.gapP99Ms, label: `gap limit ${r.limits.gapP99Ms}` },
      ],
      width: W,
      height: H,
    }),
    lineChartSvg({
      title: "room flush p99 (tk:stats)",
      xLabel: "players in one room",
      yLabel: "ms",
      series: [series("flush p99", (p) => p.flushP99Ms), series("longest slice p99", (p) => p.flushSliceP99Ms ?? null)],
      guides: [{ y: r.limits.flushP99Ms, label: `limit ${r.limits.flushP99Ms}` }],
      width: W,
      height: H,
    }),
    lineChartSvg({ title: "downlink per client", xLabel: "players in one room", yLabel: "KiB/s", series: [series("down KiB/s", (p) => p.downKiBpsPerClient)], width: W, height: H }),
  ];
  return stackSvgs(charts.map((svg) => ({ svg, width: W, height: H })));
}
