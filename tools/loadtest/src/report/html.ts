/**
 * HTML reports: one self-contained file per run, comparison or sweep. Inline SVG charts
 * (lineChart.ts), inline CSS, no scripts and nothing fetched, so the file can be mailed or attached
 * to a CI run and opened anywhere.
 */
import { writeFileSync } from "node:fs";
import type { LiveSample, RoomStatsSample } from "../live/series";
import { parseThreshold } from "../thresholds/parse";
import { escapeXml as esc, lineChartSvg, type ChartSeries, type LineChartOptions } from "./lineChart";
import type { Report } from "./report";
import { matchRows } from "./summaryText";

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#111;max-width:1320px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
.charts{display:flex;flex-wrap:wrap;gap:12px}.chart{margin:0;border:1px solid #e5e7eb;border-radius:6px;background:#fff;overflow:hidden}
table{border-collapse:collapse}td,th{border-bottom:1px solid #e5e7eb;padding:3px 10px;text-align:left;vertical-align:top}
.ok{color:#15803d;font-weight:600}.fail{color:#b91c1c;font-weight:600}.muted{color:#666}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${CSS}</style></head><body>${body}</body></html>\n`;
}

type Pick = (s: LiveSample) => number | null | undefined;

function line(name: string, samples: readonly LiveSample[], pick: Pick): ChartSeries {
  return { name, points: samples.map((s) => ({ x: s.tSec, y: pick(s) ?? null })) };
}

/** One chart in its frame; `data-title` names it for tests and readers. */
function figure(o: LineChartOptions): string {
  return `<figure class="chart" data-title="${esc(o.title)}">${lineChartSvg({ width: 600, height: 250, ...o })}</figure>`;
}

/** Horizontal guides for the run's plain-number thresholds on the given figures (total scope). */
function guides(thresholds: readonly string[], figures: readonly string[]): { y: number; label: string }[] {
  const out: { y: number; label: string }[] = [];
  for (const t of thresholds) {
    try {
      const p = parseThreshold(t);
      const only = p.rhs[0];
      if (p.scope.kind === "total" && figures.includes(p.figure) && p.rhs.length === 1 && only && "value" in only) {
        out.push({ y: only.sign * only.value, label: p.source });
      }
    } catch {
      // Not drawable; the verdict table still lists it.
    }
  }
  return out;
}

/** The time-series charts of one run (or of several runs overlaid, one colour per run). */
function seriesCharts(runs: readonly { label: string; report: Report }[]): string[] {
  const one = runs.length === 1;
  const name = (label: string, what: string): string => (one ? what : `${label} ${what}`);
  const thresholds = one ? runs[0]!.report.config.thresholds : [];
  const charts: LineChartOptions[] = [];
  const per = (title: string, unit: string, lines: [string, Pick][], figs: readonly string[] = []): void => {
    charts.push({
      title,
      xLabel: "seconds",
      yLabel: unit,
      guides: guides(thresholds, figs),
      series: runs.flatMap(({ label, report }) => lines.map(([what, pick]) => line(name(label, what), report.series?.samples ?? [], pick))),
    });
  };
  per("Players", "players", [
    ["connected", (s) => s.players],
    ["target", (s) => s.target],
  ]);
  per(
    "Input -> ack RTT (1 s windows)",
    "ms",
    [
      ["p50", (s) => s.ackP50Ms],
      ["p95", (s) => s.ackP95Ms],
      ["p99", (s) => s.ackP99Ms],
    ],
    ["ack.p50", "ack.p95", "ack.p99"],
  );
  per("State frame gap p99 (1 s windows)", "ms", [["p99", (s) => s.frameGapP99Ms]], ["frame_gap.p99"]);
  per("Frames per client", "frames/s", [["frames/s", (s) => s.framesPerSecPerClient]], ["frames_per_s"]);
  per("Downlink (all clients)", "KiB/s", [["down", (s) => s.downlinkBytesPerSec / 1024]]);
  per("Inputs and acks (all clients)", "per s", [
    ["inputs", (s) => s.inputsPerSec],
    ["acks", (s) => s.acksPerSec],
  ]);
  const hasServer = runs.some((r) => r.report.series?.samples.some((s) => s.serverCpuPct !== undefined));
  per(hasServer ? "CPU: generator and server" : "Generator CPU", "% of one core", [
    ["generator", (s) => s.generatorCpuPct],
    ...(hasServer ? [["server", (s: LiveSample) => s.serverCpuPct ?? null] as [string, Pick]] : []),
  ]);
  per("Errors and unexpected closes (cumulative)", "count", [
    ["errors", (s) => s.errors],
    ["closes", (s) => s.unexpectedCloses],
  ]);
  if (runs.some((r) => r.report.series?.samples.some((s) => s.dropped > 0))) {
    per("Reconnect storm", "players", [
      ["dropped", (s) => s.dropped],
      ["back in seat", (s) => s.reconnected],
    ]);
  }
  const stats = runs.flatMap(({ label, report }) => roomStatsLines(one ? "" : label, report.series?.roomStats ?? []));
  if (stats.length) charts.push({ title: "Room tick / flush p99 (sampled tk:stats)", xLabel: "seconds", yLabel: "ms", series: stats, guides: guides(thresholds, ["flush.p99", "tick.p99"]) });
  return charts.map(figure);
}

/** tick and flush p99 over time, one line each per room (at most 4 rooms, then the worst of all). */
function roomStatsLines(prefix: string, samples: readonly RoomStatsSample[]): ChartSeries[] {
  const rooms = [...new Set(samples.map((s) => s.roomId))];
  const p = prefix.trim() ? `${prefix.trim()} ` : "";
  if (rooms.length <= 4) {
    return rooms.flatMap((id) => {
      const mine = samples.filter((s) => s.roomId === id);
      const tag = rooms.length > 1 ? ` ${id}` : "";
      return [
        { name: `${p}tick${tag}`, points: mine.map((s) => ({ x: s.tSec, y: s.tickP99Ms })) },
        { name: `${p}flush${tag}`, points: mine.map((s) => ({ x: s.tSec, y: s.flushP99Ms })) },
      ];
    });
  }
  const byT = new Map<number, { tick: number | null; flush: number | null }>();
  for (const s of samples) {
    const t = Math.round(s.tSec);
    const cur = byT.get(t) ?? { tick: null, flush: null };
    if (s.tickP99Ms !== null) cur.tick = Math.max(cur.tick ?? 0, s.tickP99Ms);
    if (s.flushP99Ms !== null) cur.flush = Math.max(cur.flush ?? 0, s.flushP99Ms);
    byT.set(t, cur);
  }
  const ts = [...byT.keys()].sort((a, b) => a - b);
  return [
    { name: `${p}tick (worst room)`, points: ts.map((t) => ({ x: t, y: byT.get(t)!.tick })) },
    { name: `${p}flush (worst room)`, points: ts.map((t) => ({ x: t, y: byT.get(t)!.flush })) },
  ];
}

function verdictHtml(r: Report): string {
  const v = r.verdict;
  const parts: string[] = [];
  if (r.status !== "ok") parts.push(`<p class="fail">Run invalid: ${esc(r.status)}: ${esc(r.saturationReasons.join("; "))}</p>`);
  if (r.aborted) parts.push(`<p class="fail">Aborted at ${r.aborted.atSec} s: ${esc(r.aborted.threshold)} (got ${esc(r.aborted.actual)})</p>`);
  if (!v) return `${parts.join("")}<p class="muted">No thresholds were set for this run.</p>`;
  const rows = v.checks.map((c) => `<tr><td class="${c.ok ? "ok" : "fail"}">${c.ok ? "pass" : "FAIL"}</td><td><code>${esc(c.threshold)}</code></td><td>${esc(c.actual)}</td></tr>`);
  return `${parts.join("")}<p class="${v.passed ? "ok" : "fail"}">${esc(v.name)}: ${v.passed ? "PASS" : "FAIL"}</p><table><tr><th></th><th>threshold</th><th>measured</th></tr>${rows.join("")}</table>`;
}

function figuresTable(r: Report): string {
  const s = r.summary;
  const rows: [string, string][] = [
    ["players", `${s.clients.joined}/${s.clients.planned} joined, ${s.clients.refused} refused, ${s.clients.throttled} throttled, ${s.clients.failed} failed`],
    ["unexpected closes", String(s.unexpectedCloses)],
    ["ack RTT", `p50 ${s.ackRttMs.p50} / p95 ${s.ackRttMs.p95} / p99 ${s.ackRttMs.p99} / max ${s.ackRttMs.max} ms (n=${s.ackRttMs.count})`],
    ["frame gap", `p50 ${s.frameGapMs.p50} / p99 ${s.frameGapMs.p99} ms; jitter p99 ${s.frameJitterMs.p99} ms`],
    ["per client", `${s.perClient.framesPerSec} frames/s, down ${s.perClient.downlinkBytesPerSec} B/s, up ${s.perClient.uplinkBytesPerSec} B/s`],
    ["inputs", `${s.inputs.sent} sent, ${s.inputs.acked} acked, ${s.inputs.onSchedulePct}% on schedule`],
    ["tk:stats", `${s.roomStats.fetched} fetched, flush p99 ${s.roomStats.flushP99Ms ?? "n/a"} ms, tick p99 ${s.roomStats.tickP99Ms ?? "n/a"} ms`],
    ["generator", `CPU ${s.generator.cpuPercent}%, event loop p99 ${s.generator.eventLoopP99Ms} ms`],
  ];
  if (s.match) rows.push(...matchRows(s.match, s.seatedMs));
  if (s.reconnectMs) {
    const c = r.total.counters;
    rows.push(["reconnects", `${c.reconnected}/${c.dropped} back in their seat, ${c.reconnectNewSeat} new seat, ${c.reconnectFailed} failed; p50 ${s.reconnectMs.p50} / p99 ${s.reconnectMs.p99} ms`]);
  }
  return `<table>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join("")}</table>`;
}

/** The HTML page of one run. */
export function runHtml(r: Report): string {
  const title = `${r.name} — ${r.config.scenario}, ${r.createdAt}`;
  return page(
    title,
    `<h1>${esc(title)}</h1><p class="muted">${esc(r.config.url)} · ${r.config.match ? "rooms from the matchmaker" : `rooms ${esc(r.config.roomPrefix)}-*`} · commit ${esc(r.environment.commit)}${r.environment.dirty ? "+dirty" : ""}</p>` +
      `<h2>Thresholds</h2>${verdictHtml(r)}` +
      `<h2>Over time</h2><div class="charts">${seriesCharts([{ label: r.name, report: r }]).join("")}</div>` +
      `<h2>Figures</h2>${figuresTable(r)}` +
      `<h2>Config</h2><pre>${esc(JSON.stringify(r.config, null, 2))}</pre>` +
      `<h2>Environment</h2><pre>${esc(JSON.stringify(r.environment, null, 2))}</pre>`,
  );
}

/** Two runs overlaid on the same charts. */
export function compareHtml(a: Report, b: Report, names: [string, string]): string {
  const title = `compare: ${names[0]} vs ${names[1]}`;
  const runs = [
    { label: "A", report: a },
    { label: "B", report: b },
  ];
  return page(
    title,
    `<h1>${esc(title)}</h1><p class="muted">A = ${esc(names[0])}, B = ${esc(names[1])}</p>` +
      `<div class="charts">${seriesCharts(runs).join("")}</div>` +
      runs.map((x) => `<h2>${x.label}: ${esc(x.report.name)}</h2>${verdictHtml(x.report)}${figuresTable(x.report)}`).join("") +
      `<h2>Configs</h2><pre>${esc(JSON.stringify({ A: a.config, B: b.config }, null, 2))}</pre>`,
  );
}

/** A sweep: one curve per figure over the entries, against the total players of each entry. */
export function sweepHtml(name: string, entries: readonly { label: string; report: Report }[]): string {
  // x = the entry's total players, or its position when entries share a player count (e.g. a
  // sweep of tick rates).
  const totals = entries.map((e) => e.report.config.players * e.report.config.rooms);
  const byPlayers = new Set(totals).size === totals.length;
  const xOf = (r: Report): number => (byPlayers ? r.config.players * r.config.rooms : entries.findIndex((e) => e.report === r) + 1);
  const curve = (title: string, unit: string, lines: [string, (r: Report) => number | null][]): string =>
    figure({
      title,
      xLabel: byPlayers ? "players (all rooms)" : "entry (see the table)",
      yLabel: unit,
      series: lines.map(([n, f]) => ({ name: n, points: entries.map((e) => ({ x: xOf(e.report), y: f(e.report) })) })),
    });
  const charts = [
    curve("Input -> ack RTT", "ms", [
      ["p50", (r) => r.summary.ackRttMs.p50],
      ["p99", (r) => r.summary.ackRttMs.p99],
    ]),
    curve("Frame gap / jitter p99", "ms", [
      ["gap p99", (r) => r.summary.frameGapMs.p99],
      ["jitter p99", (r) => r.summary.frameJitterMs.p99],
    ]),
    curve("Frames per client", "frames/s", [["frames/s", (r) => r.summary.perClient.framesPerSec]]),
    curve("Downlink per client", "B/s", [["down", (r) => r.summary.perClient.downlinkBytesPerSec]]),
    curve("Room flush / tick p99 (tk:stats)", "ms", [
      ["flush", (r) => r.summary.roomStats.flushP99Ms],
      ["tick", (r) => r.summary.roomStats.tickP99Ms],
    ]),
    curve("Players", "players", [
      ["joined", (r) => r.summary.clients.joined],
      ["planned", (r) => r.summary.clients.planned],
    ]),
    curve("Generator CPU", "% of one core", [["cpu", (r) => r.summary.generator.cpuPercent]]),
  ];
  const rows = entries.map(
    (e) =>
      `<tr><td>${esc(e.label)}</td><td>${xOf(e.report)}</td><td>${e.report.status === "ok" ? "ok" : '<span class="fail">saturated</span>'}</td><td>${e.report.summary.clients.joined}/${e.report.summary.clients.planned}</td><td>${e.report.summary.ackRttMs.p99}</td><td>${e.report.summary.perClient.framesPerSec}</td></tr>`,
  );
  return page(
    `sweep ${name}`,
    `<h1>sweep ${esc(name)}</h1><div class="charts">${charts.join("")}</div><h2>Runs</h2><table><tr><th>entry</th><th>${byPlayers ? "players" : "x"}</th><th>status</th><th>joined</th><th>ack p99 ms</th><th>frames/s</th></tr>${rows.join("")}</table>`,
  );
}

/** Writes the run's page next to its JSON (`x.json` → `x.html`) and returns the path. */
export function writeHtmlReport(r: Report, jsonPath: string): string {
  const path = jsonPath.replace(/\.json$/, "") + ".html";
  writeFileSync(path, runHtml(r));
  return path;
}
