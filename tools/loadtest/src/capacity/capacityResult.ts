/**
 * What a capacity sweep is given and what it finds: its options, each point of the curve (its
 * first run's figures and verdict, with how many of its runs passed when it had several) and
 * the JSON result.
 */
import { round2 } from "../metrics/round2";
import type { Environment } from "../report/environment";
import type { Report } from "../report/report";
import type { Pinning } from "../server/pinning";
import { CAPACITY_LIMITS, judgeCapacityPoint } from "./capacityJudge";
import type { CapacityDensity } from "./capacityDensity";
import type { CapacityPlan } from "./capacitySearch";

/** The room admits 20 joins/s (burst 40); the sweep ramps below that so no join is throttled. */
export const MAX_JOIN_RATE = 15;

/** Everything `capacity` needs. */
export interface CapacityOptions {
  name: string;
  scenario: string;
  /** "staging" or a wrangler config path. */
  serverConfig: string;
  /** DEV_MODE query; the density's `aoi` and `world` and `cap=<players>` are set on top of it for each point. */
  query?: string;
  /** How crowded the world is at each point (capacityDensity.ts); default: the scenario's `defaultDensity`. */
  density?: CapacityDensity;
  rate?: number;
  durationSec: number;
  /** Joins per second during the ramp (≤ {@link MAX_JOIN_RATE}). */
  joinRate: number;
  plan: CapacityPlan;
  /** The whole sweep stops starting new points after this long. */
  maxMinutes: number;
  cooldownSec: number;
  /**
   * Runs per point, each on a fresh server (default 1). The point's verdict and figures are its
   * first run's, as a user running it once would see; the others give how many of k runs passed
   * (on a noisy machine one run's p99 can miss a limit by chance, in either direction), reported
   * beside the verdict, never instead of it.
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
  /** The join query the point ran with (density, cap). */
  query?: string;
  /** With several runs per point: how many ran, how many passed (the first is the verdict), and every run's report. */
  runs?: { count: number; passed: number; reports: string[] };
  error?: string;
  serverCpuPct: number | null;
  /** The room object's own time, % of one thread (tk:stats `busy`; a relayed room's simulation alone). Absent in older results. */
  ownTimePct?: number | null;
  /** A relayed room's relays' own time, summed, % of one thread. Absent for single rooms and older results. */
  relaysOwnTimePct?: number | null;
  serverCpuUsPerMsg: number | null;
  downKiBpsPerClient: number | null;
  flushP99Ms: number | null;
  /** The p99 of a flush's longest slice (tk:stats `flushSlice`): the longest task a flush ran. Absent in older results. */
  flushSliceP99Ms?: number | null;
  /** The tick timer's lateness p99 (tk:stats `timerLate`). Absent in older results. */
  timerLateP99Ms?: number | null;
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
    ownTimePct: s.roomStats.busyPct ?? null,
    relaysOwnTimePct: s.roomStats.relaysBusyPct ?? null,
    serverCpuUsPerMsg: r.server?.cpuUsPerMsg ?? null,
    downKiBpsPerClient: round2(s.perClient.downlinkBytesPerSec / 1024),
    flushP99Ms: s.roomStats.flushP99Ms,
    flushSliceP99Ms: s.roomStats.flushSliceP99Ms ?? null,
    timerLateP99Ms: s.roomStats.timerLateP99Ms ?? null,
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

/**
 * One point from its healthy runs: the first run is the verdict and the figures (one run per
 * point is the headline); with more than one, `runs` says how many of them passed.
 */
export function headlinePoint(players: number, runs: readonly CapacityPoint[]): CapacityPoint {
  const first = runs[0];
  if (!first) throw new Error(`no run of the ${players}-player point`);
  if (runs.length === 1) return first;
  return {
    ...first,
    attempts: runs.reduce((n, r) => n + r.attempts, 0),
    runs: { count: runs.length, passed: runs.filter((r) => r.passed).length, reports: runs.map((r) => r.report ?? "") },
  };
}
