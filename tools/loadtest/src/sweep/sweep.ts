/**
 * Sweeps: a list of configurations (built in, or a JSON file) run one after another on fresh
 * rooms with a cooldown, written as one markdown table, one JSON index and one HTML page.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { mergeQuery, type LoadConfig } from "../load/config";
import { round2 } from "../metrics/round2";
import { sweepHtml } from "../report/html";
import type { Report } from "../report/report";
import { RESULTS_DIR, resultStem, writeReport } from "../report/reportFiles";
import { runLoad } from "../run/runner";

/** One configuration of a sweep; unset fields come from the sweep's base options. */
export interface SweepEntry {
  label: string;
  players: number;
  rooms: number;
  /** Extra query (DEV_MODE overrides), merged over the base query. */
  query?: string;
  durationSec?: number;
  rampSec?: number;
  rate?: number;
}

/** Named sweeps shipped with the tool. */
export const builtInSweeps: Readonly<Record<string, readonly SweepEntry[]>> = {
  "players-per-room": [25, 50, 100, 150, 200].map((p) => ({ label: `${p}p x 1`, players: p, rooms: 1 })),
  rooms: [1, 2, 4, 8].map((r) => ({ label: `25p x ${r}`, players: 25, rooms: r })),
  "tick-rates": [
    [50, 50],
    [33, 33],
    [25, 50],
    [20, 60],
  ].map(([tick, sync]) => ({
    label: `tick ${tick} / sync ${sync}`,
    players: 50,
    rooms: 1,
    query: `tickMs=${tick}&syncIntervalMs=${sync}`,
  })),
};

/** Reads a sweep file: a JSON array of entries (or `{ "entries": [...] }`). */
export function readSweepFile(path: string): SweepEntry[] {
  const raw = JSON.parse(readFileSync(path, "utf8")) as unknown;
  const list = Array.isArray(raw) ? raw : (raw as { entries?: unknown })?.entries;
  if (!Array.isArray(list) || list.length === 0) throw new Error(`${path}: expected a non-empty array of sweep entries`);
  return list.map((e, i) => {
    const x = e as Partial<SweepEntry>;
    if (!Number.isInteger(x.players) || !Number.isInteger(x.rooms)) throw new Error(`${path}: entry ${i} needs integer players and rooms`);
    return { ...x, label: x.label ?? `${x.players}p x ${x.rooms}` } as SweepEntry;
  });
}

/** One finished configuration. */
export interface SweepRow {
  entry: SweepEntry;
  reportPath: string;
  report: Report;
}

const n = (v: number | null): string => (v === null ? "n/a" : String(v));

/** Markdown table of a finished sweep. */
export function sweepMarkdown(name: string, rows: readonly SweepRow[]): string {
  const head =
    "| config | players x rooms | query | joined / refused / failed | ack p50 ms | ack p99 ms | ack max ms | jitter p99 ms | spikes | unexpected closes | frames/s/client | down KiB/s/client | flush p99 ms | gen CPU % | on schedule % | status | report |";
  const sep = `|${head.split("|").slice(1, -1).map(() => "---").join("|")}|`;
  const body = rows.map(({ entry, report, reportPath }) => {
    const s = report.summary;
    const c = s.clients;
    return `| ${entry.label} | ${report.config.players} x ${report.config.rooms} | ${report.config.query || "-"} | ${c.joined} / ${c.refused} / ${c.failed + c.throttled} | ${s.ackRttMs.p50} | ${s.ackRttMs.p99} | ${s.ackRttMs.max} | ${s.frameJitterMs.p99} | ${s.spikes} | ${s.unexpectedCloses} | ${s.perClient.framesPerSec} | ${round2(s.perClient.downlinkBytesPerSec / 1024)} | ${n(s.roomStats.flushP99Ms)} | ${s.generator.cpuPercent} | ${s.inputs.onSchedulePct} | ${report.status} | ${basename(reportPath)} |`;
  });
  return [`## Sweep ${name}`, "", head, sep, ...body, ""].join("\n");
}

/**
 * Runs each entry in turn with a fresh room id and a cooldown in between (so one run's rooms
 * and connections are gone before the next starts), writing each report plus one markdown
 * table and one JSON index.
 */
export async function runSweep(args: {
  name: string;
  entries: readonly SweepEntry[];
  base: Omit<LoadConfig, "players" | "rooms">;
  cooldownSec: number;
  outDir?: string;
  onRun?: (i: number, entry: SweepEntry, report: Report, path: string) => void;
}): Promise<{ rows: SweepRow[]; markdownPath: string; jsonPath: string; htmlPath: string }> {
  const outDir = args.outDir ?? RESULTS_DIR;
  const rows: SweepRow[] = [];
  for (let i = 0; i < args.entries.length; i++) {
    const e = args.entries[i];
    if (i > 0 && args.cooldownSec > 0) await new Promise((r) => setTimeout(r, args.cooldownSec * 1000));
    const report = await runLoad({
      ...args.base,
      players: e.players,
      rooms: e.rooms,
      durationSec: e.durationSec ?? args.base.durationSec,
      rampSec: e.rampSec ?? args.base.rampSec,
      rate: e.rate ?? args.base.rate,
      query: mergeQuery(args.base.query, e.query),
      roomPrefix: args.base.roomPrefix ? `${args.base.roomPrefix}-${i}` : undefined,
      name: `sweep-${args.name}-${i}`,
    });
    const path = writeReport(report, outDir);
    rows.push({ entry: e, reportPath: path, report });
    args.onRun?.(i, e, report, path);
  }
  mkdirSync(outDir, { recursive: true });
  const stem = resultStem(outDir, "sweep", args.name);
  const markdownPath = `${stem}.md`;
  const jsonPath = `${stem}.json`;
  const htmlPath = `${stem}.html`;
  writeFileSync(markdownPath, sweepMarkdown(args.name, rows));
  writeFileSync(htmlPath, sweepHtml(args.name, rows.map((r) => ({ label: r.entry.label, report: r.report }))));
  writeFileSync(
    jsonPath,
    `${JSON.stringify(
      { sweep: args.name, runs: rows.map((r) => ({ entry: r.entry, report: basename(r.reportPath), status: r.report.status, summary: r.report.summary })) },
      null,
      2,
    )}\n`,
  );
  return { rows, markdownPath, jsonPath, htmlPath };
}
