/**
 * The A/B command: configurations A and B run alternately, each repeat on a fresh `wrangler dev`
 * (server and generator pinned to separate cores when the machine allows), with a cooldown in
 * between; the result gives every figure as median [min–max] per side and the ratio B/A.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { mergeQuery, type LoadConfig } from "../load/config";
import { collectEnvironment, type Environment } from "../report/environment";
import { resultStem, writeReport } from "../report/reportFiles";
import { runOnFreshServer } from "../run/freshRun";
import type { Pinning } from "../server/pinning";
import { checkoutRev, type RevCheckout } from "../server/revCheckout";
import { abOrder, describeSpec, type AbOrder, type AbSpec } from "./abSpec";
import { abRows, abTable, runFigures, type AbFigureRow, type AbRunRecord } from "./abStats";

/** The run options both sides share; a spec's own keys override them. */
export interface AbBase {
  scenario: string;
  players: number;
  durationSec: number;
  rampSec?: number;
  rate?: number;
  query?: string;
  workers?: number;
}

/** Everything `ab` needs. */
export interface AbOptions {
  name: string;
  a: AbSpec;
  b: AbSpec;
  repeats: number;
  order: AbOrder;
  base: AbBase;
  cooldownSec: number;
  pinning: Pinning;
  outDir: string;
  log?: (line: string) => void;
}

/** The JSON result (`ab.json`). */
export interface AbResult {
  format: "tikron-loadtest-ab/1";
  name: string;
  createdAt: string;
  environment: Environment;
  a: AbSpec & { commit?: string };
  b: AbSpec & { commit?: string };
  repeats: number;
  order: AbOrder;
  base: AbBase;
  cooldownSec: number;
  pinning: Pinning;
  runs: AbRunRecord[];
  figures: AbFigureRow[];
  /** Sides whose medians had to use saturated runs (no healthy run finished). */
  usedSaturated: ("A" | "B")[];
  notes: string[];
}

/** The load of one side: the base with the spec's keys on top. */
export function sideLoad(base: AbBase, spec: AbSpec, name: string): Omit<LoadConfig, "url"> {
  return {
    scenario: spec.scenario ?? base.scenario,
    players: spec.players ?? base.players,
    rooms: 1,
    durationSec: base.durationSec,
    rampSec: base.rampSec,
    rate: spec.rate ?? base.rate,
    ...(spec.spectators ? { spectators: spec.spectators } : {}),
    query: mergeQuery(base.query, spec.query),
    workers: base.workers,
    name,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs the comparison and writes `ab.json`, `ab.md` and every run's report into one directory. */
export async function runAb(o: AbOptions): Promise<{ result: AbResult; dir: string; jsonPath: string; markdownPath: string }> {
  const log = o.log ?? (() => {});
  const createdAt = new Date();
  const dir = resultStem(o.outDir, "ab", o.name, createdAt);
  mkdirSync(dir, { recursive: true });
  const checkouts = new Map<string, RevCheckout>();
  const runs: AbRunRecord[] = [];
  const notes: string[] = [];
  if (o.pinning.note) notes.push(o.pinning.note);
  const specs = { A: o.a, B: o.b };
  try {
    for (const spec of [o.a, o.b]) {
      if (spec.rev && !checkouts.has(spec.rev)) checkouts.set(spec.rev, await checkoutRev(spec.rev, log));
    }
    const order = abOrder(o.repeats, o.order);
    const repeatOf = { A: 0, B: 0 };
    for (let i = 0; i < order.length; i++) {
      const side = order[i];
      const spec = specs[side];
      const repeat = ++repeatOf[side];
      if (i > 0 && o.cooldownSec > 0) await sleep(o.cooldownSec * 1000);
      log(`[${i + 1}/${order.length}] ${side}${repeat} (${spec.label}: ${describeSpec(spec)})`);
      const record: AbRunRecord = { side, repeat, figures: {} };
      try {
        const report = await runOnFreshServer(
          {
            serverConfig: spec.config,
            root: spec.rev ? checkouts.get(spec.rev)!.dir : undefined,
            load: sideLoad(o.base, spec, `ab-${side}${repeat}-${spec.label}`),
            pinning: o.pinning,
            workDir: join(dir, "tmp"),
          },
          log,
        );
        record.report = basename(writeReport(report, dir));
        record.status = report.status;
        if (report.status !== "ok") record.saturationReasons = report.saturationReasons;
        record.figures = runFigures(report);
        if (report.server?.warnings.length) record.serverWarnings = report.server.warnings;
        const f = record.figures;
        log(
          `  ${report.status}: server CPU ${f.serverCpuPct ?? "n/a"}%, ${f.serverCpuUsPerMsg ?? "n/a"} µs/msg, ack p99 ${f.ackP99Ms ?? "n/a"} ms, ${f.joined}/${report.summary.clients.planned} joined`,
        );
      } catch (err) {
        record.error = err instanceof Error ? err.message.split("\n")[0] : String(err);
        log(`  FAILED: ${record.error}`);
      }
      runs.push(record);
    }
  } finally {
    for (const c of checkouts.values()) await c.remove();
    rmSync(join(dir, "tmp"), { recursive: true, force: true });
  }
  const { rows, usedSaturated } = abRows(runs);
  const excluded = runs.filter((r) => r.status === "generator_saturated" && !usedSaturated.includes(r.side));
  if (excluded.length) notes.push(`${excluded.length} run(s) had a saturated generator and are left out of the medians: ${excluded.map((r) => `${r.side}${r.repeat}`).join(", ")}`);
  for (const side of usedSaturated) notes.push(`!! side ${side} had no healthy run: its medians come from saturated runs and describe the generator`);
  for (const side of ["A", "B"] as const) {
    const n = rows[0]?.[side === "A" ? "a" : "b"].n ?? 0;
    if (n < 3) notes.push(`side ${side} has ${n} usable run(s): with fewer than 3 the spread says little; use --repeats 5 for claims`);
  }
  const failed = runs.filter((r) => r.error !== undefined);
  if (failed.length) notes.push(`${failed.length} run(s) failed: ${failed.map((r) => `${r.side}${r.repeat} (${r.error})`).join("; ")}`);
  const result: AbResult = {
    format: "tikron-loadtest-ab/1",
    name: o.name,
    createdAt: createdAt.toISOString(),
    environment: collectEnvironment(),
    a: { ...o.a, ...(o.a.rev ? { commit: checkouts.get(o.a.rev)?.commit } : {}) },
    b: { ...o.b, ...(o.b.rev ? { commit: checkouts.get(o.b.rev)?.commit } : {}) },
    repeats: o.repeats,
    order: o.order,
    base: o.base,
    cooldownSec: o.cooldownSec,
    pinning: o.pinning,
    runs,
    figures: rows,
    usedSaturated,
    notes,
  };
  const jsonPath = join(dir, "ab.json");
  const markdownPath = join(dir, "ab.md");
  writeFileSync(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(markdownPath, abMarkdown(result));
  return { result, dir, jsonPath, markdownPath };
}

/** Header lines shared by the console and markdown output. */
export function abHeader(r: AbResult): string[] {
  const b = r.base;
  const pin = r.pinning.serverCpus ? `server on CPU ${r.pinning.serverCpus}, generator on CPU ${r.pinning.generatorCpus}` : `unpinned (${r.pinning.note ?? "no pinning"})`;
  const hop = r.pinning.hop === "dev-proxy" ? "sockets through the dev proxy" : "sockets straight to the worker (past the dev proxy)";
  return [
    `A = ${r.a.label}: ${describeSpec(r.a)}${r.a.commit ? ` (${r.a.commit.slice(0, 10)})` : ""}`,
    `B = ${r.b.label}: ${describeSpec(r.b)}${r.b.commit ? ` (${r.b.commit.slice(0, 10)})` : ""}`,
    `load: ${b.scenario}, ${b.players} players, 1 room, ${b.durationSec} s steady after ${b.rampSec ?? b.players / 10} s ramp${b.rate ? `, ${b.rate} Hz` : ""}${b.query ? `, base query ${b.query}` : ""}`,
    `${r.repeats} repeats per side, order ${r.order}, fresh wrangler dev per run, ${r.cooldownSec} s cooldown; ${pin}; ${hop}`,
    `commit ${r.environment.commit}${r.environment.dirty ? "+dirty" : ""}, ${r.environment.cpus} cores (${r.environment.cpuModel}), load avg ${r.environment.loadAvg1} at the end`,
  ];
}

/** The result as markdown: header, table, runs, notes. */
export function abMarkdown(r: AbResult): string {
  const runs = r.runs.map(
    (x) =>
      `| ${x.side}${x.repeat} | ${x.error ? `failed: ${x.error}` : x.status} | ${x.figures.serverCpuPct ?? "n/a"} | ${x.figures.serverCpuUsPerMsg ?? "n/a"} | ${x.figures.ackP99Ms ?? "n/a"} | ${x.report ?? "-"} |`,
  );
  return [
    `## A/B ${r.name} (${r.createdAt})`,
    "",
    ...abHeader(r).map((l) => `- ${l}`),
    "",
    abTable(r.figures, { a: r.a.label, b: r.b.label }, true),
    "",
    "| run | status | server CPU % | µs/msg | ack p99 ms | report |",
    "|---|---|---|---|---|---|",
    ...runs,
    "",
    ...(r.notes.length ? ["Notes:", "", ...r.notes.map((n) => `- ${n}`), ""] : []),
  ].join("\n");
}
