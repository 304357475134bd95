/**
 * One matchmaker object's throughput (`loadtest match-bench`): `POST /match/<kind>` (joinOrCreate)
 * at a series of rising request rates, open loop (requests leave on schedule whatever the answers
 * do), each step's answers timed by the client (HTTP round trip) and by the matchmaker itself
 * (its decision time, DEV_MODE stats). The knee is the first rate whose p99 is at least twice the
 * first step's.
 *
 * What it models: players who reserve a seat and never come, so each reservation expires unused
 * after its lifetime. A request's cost to the matchmaker is then what a real one costs it (pick a
 * room over the directory, the reserve round trip to the room, a room created every cap-th
 * request, the signature), the directory holds about rate × lifetime / cap rooms, and the rooms
 * run no tick loop: under local `wrangler dev`, where every object shares one thread, a run with
 * playing players would measure the rooms. Left out: the two reports per player a join and a
 * leave send the matchmaker.
 */
import { MATCH_ERROR_STATUS } from "@tikron/protocol";
import type { DurationSummary } from "../metrics/histogram";
import { MatchMetrics } from "../metrics/matchMetrics";
import { summarizeEncoded } from "../metrics/histogram";
import { httpBase, requestSeat, type MatchTarget } from "../players/matchRequest";
import { writeBenchFiles } from "../report/reportFiles";
import { readMatchmaker, touchMatchmaker } from "../run/matchmakerReads";

/** Options of {@link runMatchBench}. */
export interface MatchBenchOptions {
  /** Server base URL (ws:// or http://; the matchmaker's HTTP paths are used). */
  url: string;
  /** Room kind whose matchmaker is measured. */
  kind: string;
  /** DEV_MODE overrides of every request (`cap=8`). */
  query: string;
  /** Request rates per second, one step each, in order. */
  rates: readonly number[];
  /** Length of each step (s). */
  stepSec: number;
  /** An unmeasured step at the first rate before the series (s; 0 = none): JIT and cold objects warm up. */
  warmupSec: number;
  /** Pause after each step (s): long enough for its reservations to expire and its rooms to empty. */
  cooldownSec: number;
  /** Deadline of one request (ms). */
  timeoutMs: number;
  name: string;
  /** Directory for `<ts>-match-bench-<name>/` (JSON and markdown); none written when absent. */
  outDir?: string;
  log?: (line: string) => void;
}

/** One rate's outcome. */
export interface MatchBenchStep {
  /** Requests per second asked for. */
  rate: number;
  /** Requests sent per second (the generator's own pace). */
  sentPerSec: number;
  /** Requests answered with a seat per second of the step. */
  seatsPerSec: number;
  /** Client-side round trip of every answered request (ms). */
  http: DurationSummary;
  /** The matchmaker's decision times over the step (over its life when it could not be restarted). */
  decision: { p50: number; p99: number; count: number } | null;
  /** Whether `decision` covers this step alone (the matchmaker was restarted before it). */
  decisionThisStep: boolean;
  refused: Record<string, number>;
  /** Requests with no answer (timeouts, network errors, answers that were neither seat nor refusal). */
  noAnswer: Record<string, number>;
  /** Rooms the matchmaker created during the step (its counter's growth). */
  roomsCreated: number | null;
  /** Rooms in its directory after the step. */
  directoryRooms: number | null;
}

/** The series and its knees. */
export interface MatchBenchResult {
  name: string;
  createdAt: string;
  options: Omit<MatchBenchOptions, "log" | "outDir">;
  steps: MatchBenchStep[];
  /** First rate whose HTTP p99 is ≥ 2× the first step's; null when none. */
  httpKnee: number | null;
  /** First rate whose decision p99 is ≥ 2× the first step's (steps measured alone only); null when none. */
  decisionKnee: number | null;
  notes: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resets the matchmaker (DEV_MODE restart); false when the server does not offer it (the Node host). */
async function restartMatchmaker(base: string, kind: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`${base}/match/${encodeURIComponent(kind)}/restart`, { method: "POST", signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** The first rate whose p99 is at least twice the first step's. */
export function kneeOf(steps: readonly { rate: number; p99: number | null }[]): number | null {
  const base = steps[0]?.p99;
  if (base === undefined || base === null || base <= 0) return null;
  return steps.find((s) => s.p99 !== null && s.p99 >= 2 * base)?.rate ?? null;
}

async function runStep(o: MatchBenchOptions, target: MatchTarget, rate: number): Promise<MatchBenchStep> {
  const base = target.httpBase;
  const restarted = await restartMatchmaker(base, o.kind, o.timeoutMs);
  // The restarted object builds itself again on its first request: not part of the step.
  await touchMatchmaker(base, o.kind, o.query, o.timeoutMs);
  const before = await readMatchmaker(base, o.kind, o.timeoutMs);
  const metrics = new MatchMetrics();
  const inFlight: Promise<void>[] = [];
  const n = Math.max(1, Math.round(rate * o.stepSec));
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(
      requestSeat(target, metrics, null, () => null, 1).then((out) => {
        // A refusal is counted by its code already; anything else got no answer.
        if (typeof out === "string" && !Object.hasOwn(MATCH_ERROR_STATUS, out)) metrics.unmatched(out);
      }),
    );
  }
  const sentSec = Math.max(1e-3, (performance.now() - t0) / 1000);
  await Promise.all(inFlight);
  const after = await readMatchmaker(base, o.kind, o.timeoutMs);
  const sum = (r: typeof after, f: (s: Exclude<typeof after, string>["shards"][number]) => number): number | null =>
    typeof r === "string" ? null : r.shards.reduce((a, s) => a + f(s), 0);
  const created = sum(after, (s) => s.roomsCreated);
  const createdBefore = restarted ? 0 : sum(before, (s) => s.roomsCreated);
  const decisions = typeof after === "string" ? [] : after.shards.filter((s) => s.decision.count > 0).map((s) => s.decision);
  return {
    rate,
    sentPerSec: Math.round((n / sentSec) * 100) / 100,
    seatsPerSec: Math.round((metrics.counters.seats / o.stepSec) * 100) / 100,
    http: summarizeEncoded(metrics.toData().histograms.request),
    decision: decisions.length
      ? { p50: Math.max(...decisions.map((d) => d.p50)), p99: Math.max(...decisions.map((d) => d.p99)), count: decisions.reduce((a, d) => a + d.count, 0) }
      : null,
    decisionThisStep: restarted,
    refused: { ...metrics.refused },
    noAnswer: { ...metrics.unmatchedReasons },
    roomsCreated: created === null || createdBefore === null ? null : created - createdBefore,
    directoryRooms: sum(after, (s) => s.rooms),
  };
}

/** The steps as a table (text or markdown). */
export function matchBenchTable(steps: readonly MatchBenchStep[], markdown: boolean): string {
  const head = ["rate/s", "sent/s", "seats/s", "http p50 ms", "http p99 ms", "http max ms", "decision p50 ms", "decision p99 ms", "rooms made", "directory", "refused / no answer"];
  const n = (v: number | null | undefined): string => (v === null || v === undefined ? "n/a" : String(v));
  const rows = steps.map((s) => [
    String(s.rate),
    String(s.sentPerSec),
    String(s.seatsPerSec),
    String(s.http.p50),
    String(s.http.p99),
    String(s.http.max),
    `${n(s.decision?.p50)}${s.decision && !s.decisionThisStep ? "*" : ""}`,
    `${n(s.decision?.p99)}${s.decision && !s.decisionThisStep ? "*" : ""}`,
    n(s.roomsCreated),
    n(s.directoryRooms),
    [...Object.entries(s.refused), ...Object.entries(s.noAnswer)].map(([k, v]) => `${k}:${v}`).join(" ") || "none",
  ]);
  if (markdown) return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((c) => `| ${c.join(" | ")} |`)].join("\n");
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((c) => c[i]!.length)));
  return [head, ...rows].map((c) => c.map((x, i) => x.padStart(w[i]!)).join("  ")).join("\n");
}

/** Runs the series; writes `<outDir>/<ts>-match-bench-<name>/match-bench.{json,md}` when asked. */
export async function runMatchBench(o: MatchBenchOptions): Promise<{ result: MatchBenchResult; files: string[] }> {
  const log = o.log ?? (() => {});
  const base = httpBase(o.url.replace(/^http/, "ws"));
  const target: MatchTarget = { httpBase: base, kind: o.kind, query: o.query, timeoutMs: o.timeoutMs };
  const steps: MatchBenchStep[] = [];
  if (o.warmupSec > 0 && o.rates.length > 0) {
    log(`warm-up: ${o.rates[0]} requests/s for ${o.warmupSec} s (not measured)`);
    await runStep({ ...o, stepSec: o.warmupSec }, target, o.rates[0]!);
    if (o.cooldownSec > 0) await sleep(o.cooldownSec * 1000);
  }
  for (const [i, rate] of o.rates.entries()) {
    log(`step ${i + 1}/${o.rates.length}: ${rate} requests/s for ${o.stepSec} s`);
    const step = await runStep(o, target, rate);
    steps.push(step);
    log(`  http p50 ${step.http.p50} p99 ${step.http.p99} ms; decision p99 ${step.decision?.p99 ?? "n/a"} ms; ${step.seatsPerSec} seats/s`);
    if (i < o.rates.length - 1 && o.cooldownSec > 0) await sleep(o.cooldownSec * 1000);
  }
  const notes: string[] = [];
  if (steps.some((s) => !s.decisionThisStep)) {
    notes.push("the matchmaker could not be restarted between steps (the Node host has no restart): decision times marked * cover its whole life");
  }
  if (steps.some((s) => s.sentPerSec < 0.95 * s.rate)) notes.push("the generator sent below some step's rate: that step's load is lower than its label");
  const result: MatchBenchResult = {
    name: o.name,
    createdAt: new Date().toISOString(),
    options: { url: o.url, kind: o.kind, query: o.query, rates: o.rates, stepSec: o.stepSec, warmupSec: o.warmupSec, cooldownSec: o.cooldownSec, timeoutMs: o.timeoutMs, name: o.name },
    steps,
    httpKnee: kneeOf(steps.map((s) => ({ rate: s.rate, p99: s.http.count ? s.http.p99 : null }))),
    decisionKnee: kneeOf(steps.filter((s) => s.decisionThisStep).map((s) => ({ rate: s.rate, p99: s.decision?.p99 ?? null }))),
    notes,
  };
  const files = o.outDir ? writeBenchFiles(o.outDir, "match-bench", o.name, result.createdAt, result, matchBenchMarkdown(result)) : [];
  return { result, files };
}

/** The knees in one line. */
export function matchBenchVerdict(r: MatchBenchResult): string {
  const knee = (v: number | null): string => (v === null ? `not reached up to ${r.options.rates.at(-1)}/s` : `${v}/s`);
  return `p99 doubles at: http ${knee(r.httpKnee)}, decision ${knee(r.decisionKnee)}`;
}

/** The result as markdown: setup, the table, the knees, notes. */
export function matchBenchMarkdown(r: MatchBenchResult): string {
  const o = r.options;
  return [
    `## Matchmaker throughput ${r.name} (${r.createdAt})`,
    "",
    `- **${matchBenchVerdict(r)}**`,
    `- \`POST /match/${o.kind}${o.query ? `?${o.query}` : ""}\` (joinOrCreate), open loop, ${o.stepSec} s per step after a ${o.warmupSec} s warm-up, ${o.cooldownSec} s between steps; nobody joins: each reservation expires unused`,
    "",
    matchBenchTable(r.steps, true),
    "",
    ...(r.notes.length ? ["Notes:", "", ...r.notes.map((x) => `- ${x}`), ""] : []),
  ].join("\n");
}
