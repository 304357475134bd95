/**
 * The capacity sweep: the most players one room holds while every condition of
 * {@link CAPACITY_LIMITS} holds. Each point runs on a fresh, pinned `wrangler dev` with the
 * room's cap raised to the point's players and joins ramped below the room's admission rate.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { collectEnvironment, type Environment } from "../report/environment";
import { fileTimestamp, writeReport, type Report } from "../report/report";
import { runOnFreshServer, type Pinning } from "../server/freshRun";
import { mergeQuery } from "../sweep/sweep";
import { CAPACITY_LIMITS, judgeCapacityPoint } from "./capacityJudge";
import { capacityMarkdown, capacitySvg } from "./capacityReport";
import { CapacitySearch, type CapacityPlan } from "./capacitySearch";

/** The room admits 20 joins/s (burst 40); the sweep ramps below that so no join is throttled. */
export const MAX_JOIN_RATE = 15;

/** Everything `capacity` needs. */
export interface CapacityOptions {
  name: string;
  scenario: string;
  /** "staging" or a wrangler config path. */
  serverConfig: string;
  /** DEV_MODE query; `cap=<players>` is set on top of it for each point. */
  query?: string;
  rate?: number;
  durationSec: number;
  /** Joins per second during the ramp (≤ {@link MAX_JOIN_RATE}). */
  joinRate: number;
  plan: CapacityPlan;
  /** The whole sweep stops starting new points after this long. */
  maxMinutes: number;
  cooldownSec: number;
  /**
   * Runs per point, each on a fresh server (default 1; runs stop once the majority is settled). With more than one a point passes when
   * most of its runs pass, and its figures are the runs' medians: on a noisy machine one run's
   * p99 can miss a limit by chance, in either direction.
   */
  runsPerPoint?: number;
  pinning: Pinning;
  workers?: number;
  outDir: string;
  log?: (line: string) => void;
}

/** One measured point of the curve. */
export interface CapacityPoint {
  players: number;
  passed: boolean;
  /** The generator was saturated: the point is inconclusive (retried once, then the search stops). */
  generatorSaturated: boolean;
  /** Runs it took (a saturated generator gets one retry). */
  attempts: number;
  failed: string[];
  unchecked: string[];
  report?: string;
  /** With several runs per point: how many ran, how many passed, and every run's report. */
  runs?: { count: number; passed: number; reports: string[] };
  error?: string;
  serverCpuPct: number | null;
  serverCpuUsPerMsg: number | null;
  downKiBpsPerClient: number | null;
  flushP99Ms: number | null;
  ackP99Ms: number | null;
  gapP99Ms: number | null;
  framesPerSecPerClient: number | null;
}

/** The JSON result (`capacity.json`). */
export interface CapacityResult {
  format: "tikron-loadtest-capacity/1";
  name: string;
  createdAt: string;
  environment: Environment;
  options: Omit<CapacityOptions, "log" | "outDir">;
  limits: typeof CAPACITY_LIMITS;
  /** Highest passing player count (0 when none passed). */
  capacity: number;
  lowestFailure: number | null;
  /** True when the upper bound passed: the room holds at least `capacity`, maybe more. */
  hitMax: boolean;
  /** Points in the order they ran. */
  points: CapacityPoint[];
  notes: string[];
}

const r2 = (v: number): number => Math.round(v * 100) / 100;

/** The figures of a point from its report. */
export function pointFrom(players: number, r: Report): CapacityPoint {
  const v = judgeCapacityPoint(r);
  const s = r.summary;
  return {
    players,
    passed: v.passed,
    generatorSaturated: v.generatorSaturated,
    attempts: 1,
    failed: v.failed,
    unchecked: v.unchecked,
    serverCpuPct: r.server?.cpuPct ?? null,
    serverCpuUsPerMsg: r.server?.cpuUsPerMsg ?? null,
    downKiBpsPerClient: r2(s.perClient.downlinkBytesPerSec / 1024),
    flushP99Ms: s.roomStats.flushP99Ms,
    ackP99Ms: s.ackRttMs.count ? s.ackRttMs.p99 : null,
    gapP99Ms: s.frameGapMs.count ? s.frameGapMs.p99 : null,
    framesPerSecPerClient: s.perClient.framesPerSec,
  };
}

/** Seconds a point is expected to take, start-up and cooldown included (for the time budget). */
export function pointSeconds(players: number, o: Pick<CapacityOptions, "joinRate" | "durationSec" | "cooldownSec">): number {
  return 20 + players / o.joinRate + o.durationSec + 6 + o.cooldownSec;
}

/** Runs the sweep and writes `capacity.json`, `.md`, `.svg` and each point's report. */
export async function runCapacity(o: CapacityOptions): Promise<{ result: CapacityResult; dir: string; files: string[] }> {
  if (!(o.joinRate > 0 && o.joinRate <= MAX_JOIN_RATE)) throw new Error(`join rate must be in (0, ${MAX_JOIN_RATE}] joins/s: the room admits 20/s`);
  const log = o.log ?? (() => {});
  const createdAt = new Date();
  const dir = join(o.outDir, `${fileTimestamp(createdAt)}-capacity-${o.name.replace(/[^A-Za-z0-9._-]+/g, "_")}`);
  mkdirSync(dir, { recursive: true });
  const search = new CapacitySearch(o.plan);
  const points: CapacityPoint[] = [];
  const notes: string[] = [];
  if (o.pinning.note) notes.push(o.pinning.note);
  const deadline = Date.now() + o.maxMinutes * 60_000;
  try {
    for (let players = search.next(); players !== null; players = search.next()) {
      if (Date.now() + pointSeconds(players, o) * 1000 > deadline) {
        notes.push(`time budget of ${o.maxMinutes} min reached before the ${players}-player point: the search is incomplete`);
        break;
      }
      if (points.length > 0 && o.cooldownSec > 0) await new Promise((r) => setTimeout(r, o.cooldownSec * 1000));
      const rampSec = players / o.joinRate;
      log(`[point ${points.length + 1}] ${players} players, ${r2(rampSec)} s ramp + ${o.durationSec} s`);
      let point: CapacityPoint | undefined;
      const runs: CapacityPoint[] = [];
      const k = o.runsPerPoint ?? 1;
      try {
        for (let run = 1; run <= k && (point === undefined || !point.generatorSaturated) && !majorityDecided(runs, k); run++) {
          if (run > 1) {
            log(`  run ${run} of ${k}`);
            await new Promise((r) => setTimeout(r, o.cooldownSec * 1000));
          }
          point = undefined;
          for (let attempt = 1; attempt <= SATURATED_ATTEMPTS; attempt++) {
            if (attempt > 1) {
              log(`  the generator was saturated: retrying the ${players}-player point once`);
              await new Promise((r) => setTimeout(r, Math.max(o.cooldownSec, 5) * 1000));
            }
            point = { ...(await runPoint(o, players, rampSec, dir, log)), attempts: attempt };
            if (!point.generatorSaturated) break;
          }
          if (point && !point.generatorSaturated) runs.push(point);
          if (point && k > 1 && !point.generatorSaturated) log(`    run ${run}: ${point.passed ? "pass" : `fail (${point.failed.join("; ")})`}`);
        }
        if (point && !point.generatorSaturated && k > 1) point = combineRuns(players, runs);
      } catch (err) {
        const error = err instanceof Error ? err.message.split("\n")[0] : String(err);
        points.push({ ...emptyPoint(players), error });
        notes.push(`the ${players}-player point could not run (${error}): the search stopped`);
        log(`  FAILED TO RUN: ${error}`);
        break;
      }
      if (point === undefined) break;
      if (point.generatorSaturated) {
        points.push(point);
        notes.push(
          `the generator was saturated at ${players} players in ${SATURATED_ATTEMPTS} attempts: this machine cannot drive that load, so the search stopped (the capacity found is a lower bound)`,
        );
        log(`  generator saturated again: stopping (${point.failed.join("; ")})`);
        break;
      }
      points.push(point);
      search.record(players, point.passed);
      log(`  ${point.passed ? "PASS" : `FAIL: ${point.failed.join("; ")}`} — server CPU ${point.serverCpuPct ?? "n/a"}%, ack p99 ${point.ackP99Ms ?? "n/a"} ms, gap p99 ${point.gapP99Ms ?? "n/a"} ms`);
    }
  } finally {
    rmSync(join(dir, "tmp"), { recursive: true, force: true });
  }
  const res = search.result();
  if (res.hitMax) notes.push(`the upper bound (${o.plan.max} players) passed: capacity is at least that`);
  const { log: _log, outDir: _out, ...options } = o;
  const result: CapacityResult = {
    format: "tikron-loadtest-capacity/1",
    name: o.name,
    createdAt: createdAt.toISOString(),
    environment: collectEnvironment(),
    options,
    limits: CAPACITY_LIMITS,
    capacity: res.capacity,
    lowestFailure: res.lowestFailure,
    hitMax: res.hitMax,
    points,
    notes,
  };
  const files = [join(dir, "capacity.json"), join(dir, "capacity.md"), join(dir, "capacity.svg")];
  writeFileSync(files[0], `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(files[1], capacityMarkdown(result));
  writeFileSync(files[2], capacitySvg(result));
  return { result, dir, files };
}

/** A saturated generator gets this many runs of a point before the search gives up. */
const SATURATED_ATTEMPTS = 2;

async function runPoint(o: CapacityOptions, players: number, rampSec: number, dir: string, log: (line: string) => void): Promise<CapacityPoint> {
  const report = await runOnFreshServer(
    {
      serverConfig: o.serverConfig,
      load: {
        scenario: o.scenario,
        players,
        rooms: 1,
        durationSec: o.durationSec,
        rampSec,
        rate: o.rate,
        query: mergeQuery(o.query, `cap=${players}`),
        workers: o.workers,
        name: `capacity-${players}`,
      },
      pinning: o.pinning,
      workDir: join(dir, "tmp"),
    },
    log,
  );
  return { ...pointFrom(players, report), report: basename(writeReport(report, dir)) };
}

function emptyPoint(players: number): CapacityPoint {
  return {
    players,
    passed: false,
    generatorSaturated: false,
    attempts: 1,
    failed: [],
    unchecked: [],
    serverCpuPct: null,
    serverCpuUsPerMsg: null,
    downKiBpsPerClient: null,
    flushP99Ms: null,
    ackP99Ms: null,
    gapP99Ms: null,
    framesPerSecPerClient: null,
  };
}

/** True once `runs` settle a majority of `k` either way: the remaining runs could not change it. */
export function majorityDecided(runs: readonly CapacityPoint[], k: number): boolean {
  const passed = runs.filter((r) => r.passed).length;
  return passed * 2 > k || (runs.length - passed) * 2 >= k;
}

const median = (xs: (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : r2((v[m - 1]! + v[m]!) / 2);
};

/**
 * One point from several healthy runs of it: passed when most runs passed; figures are the
 * runs' medians; a failed point lists what each failing run missed.
 */
export function combineRuns(players: number, runs: readonly CapacityPoint[]): CapacityPoint {
  const passedRuns = runs.filter((r) => r.passed).length;
  const passed = passedRuns * 2 > runs.length;
  const failed = passed ? [] : runs.flatMap((r, i) => (r.passed ? [] : [`run ${i + 1}: ${r.failed.join("; ")}`]));
  return {
    players,
    passed,
    generatorSaturated: false,
    attempts: runs.reduce((n, r) => n + r.attempts, 0),
    failed,
    unchecked: [...new Set(runs.flatMap((r) => r.unchecked))],
    report: runs[0]?.report,
    runs: { count: runs.length, passed: passedRuns, reports: runs.map((r) => r.report ?? "") },
    serverCpuPct: median(runs.map((r) => r.serverCpuPct)),
    serverCpuUsPerMsg: median(runs.map((r) => r.serverCpuUsPerMsg)),
    downKiBpsPerClient: median(runs.map((r) => r.downKiBpsPerClient)),
    flushP99Ms: median(runs.map((r) => r.flushP99Ms)),
    ackP99Ms: median(runs.map((r) => r.ackP99Ms)),
    gapP99Ms: median(runs.map((r) => r.gapP99Ms)),
    framesPerSecPerClient: median(runs.map((r) => r.framesPerSecPerClient)),
  };
}
