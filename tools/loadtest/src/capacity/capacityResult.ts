/**
 * What a capacity sweep is given and what it finds: its options, each point of the curve (from
 * one run's report, or the medians of several runs) and the JSON result.
 */
import { round2 } from "../metrics/round2";
import type { Environment } from "../report/environment";
import type { Report } from "../report/report";
import type { Pinning } from "../server/pinning";
import { CAPACITY_LIMITS, judgeCapacityPoint } from "./capacityJudge";
import type { CapacityPlan } from "./capacitySearch";

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
    downKiBpsPerClient: round2(s.perClient.downlinkBytesPerSec / 1024),
    flushP99Ms: s.roomStats.flushP99Ms,
    ackP99Ms: s.ackRttMs.count ? s.ackRttMs.p99 : null,
    gapP99Ms: s.frameGapMs.count ? s.frameGapMs.p99 : null,
    framesPerSecPerClient: s.perClient.framesPerSec,
  };
}

/** A point that could not run: no figures. */
export function emptyPoint(players: number): CapacityPoint {
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
  return v.length % 2 ? v[m]! : round2((v[m - 1]! + v[m]!) / 2);
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
