/**
 * The load report (`tikron-loadtest-report/1`): the one definition of its shape and how a run's
 * (or a merge's) parts are assembled into it. The figures it carries are derived in
 * metrics/summary.ts; files, text and HTML are reportFiles.ts, summaryText.ts and html.ts.
 */
import type { ResolvedConfig } from "../load/config";
import type { RunSeries } from "../live/series";
import type { GeneratorProcess } from "../metrics/generatorProcess";
import { mergeMatchData, type MatchData } from "../metrics/matchMetrics";
import { mergeRoomData } from "../metrics/mergeRoomData";
import type { NoiseProbe } from "../metrics/noiseProbe";
import type { RoomData } from "../metrics/roomMetrics";
import { summarize, type Summary } from "../metrics/summary";
import type { ServerCpuReport } from "../server/serverCpu";
import type { Environment } from "./environment";
import type { RestartTimes } from "../metrics/restartSummary";

/** Report format tag; bump when a field changes meaning. */
export const REPORT_FORMAT = "tikron-loadtest-report/1";

/** A run (or a merge of shard runs): config, environment, mergeable data and derived summary. */
export interface Report {
  format: typeof REPORT_FORMAT;
  name: string;
  createdAt: string;
  /** "generator_saturated" means the figures describe the generator, not the server. */
  status: "ok" | "generator_saturated";
  saturationReasons: string[];
  config: ResolvedConfig;
  environment: Environment;
  generators: GeneratorProcess[];
  /** Mergeable per-room data (histograms encoded). */
  rooms: RoomData[];
  /** All rooms merged. */
  total: RoomData;
  /** Matchmaking runs: the match requests and the matchmaker's samples, mergeable (metrics/matchMetrics.ts). */
  match?: MatchData;
  /** Runs that restarted their server (`--restart-at`): when it went down and came back. */
  restart?: RestartTimes;
  summary: Summary;
  /** Present on generator benchmarks: the capacity checks and the machine's idle-timer noise floor. */
  bench?: { checks: { target: string; actual: string; ok: boolean }[]; noise: { before: NoiseProbe; after: NoiseProbe } };
  /** Per-second samples and tk:stats sampled during the run (live/series.ts). */
  series?: RunSeries;
  /** Set when a live threshold stopped the run early (`--abort-on-fail`). */
  aborted?: { atSec: number; threshold: string; actual: string };
  /** Threshold verdict, when the run was checked (run --threshold, gate). */
  verdict?: { name: string; valid: boolean; passed: boolean; checks: { threshold: string; ok: boolean; actual: string }[] };
  /** Present when the run sampled a local server's CPU (`--server`, `--server-pid`, `ab`, `capacity`). */
  server?: ServerCpuReport;
  /** Present on merged reports: what went in, and anything that did not line up. */
  merge?: { inputs: { name: string; runId: string; shard: string; createdAt: string; commit: string }[]; warnings: string[] };
}

/** Assembles a report from merged room data and generator entries. */
export function assembleReport(args: {
  name: string;
  config: ResolvedConfig;
  environment: Environment;
  generators: GeneratorProcess[];
  rooms: RoomData[];
  /** Matchmaking runs: each thread's or shard's match data (merged here). */
  match?: readonly MatchData[];
  /** Runs that restarted their server. */
  restart?: RestartTimes;
  createdAt?: string;
  merge?: Report["merge"];
}): Report {
  const total = mergeRoomData(args.rooms, "*");
  const match = args.match?.length ? mergeMatchData(args.match) : undefined;
  const saturationReasons = args.generators.flatMap((g) => g.saturationReasons);
  const report: Report = {
    format: REPORT_FORMAT,
    name: args.name,
    createdAt: args.createdAt ?? new Date().toISOString(),
    status: saturationReasons.length > 0 ? "generator_saturated" : "ok",
    saturationReasons,
    config: args.config,
    environment: args.environment,
    generators: args.generators,
    rooms: args.rooms,
    total,
    ...(match ? { match } : {}),
    ...(args.restart ? { restart: args.restart } : {}),
    summary: summarize(args.rooms, total, args.generators, match, args.restart),
  };
  if (args.merge) report.merge = args.merge;
  return report;
}
