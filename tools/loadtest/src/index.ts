/**
 * Programmatic API of the load tool: run a load test (matchmaking runs too), merge and compare
 * reports, evaluate gates, and benchmark the generator and the matchmaker. The loopback room server its tests and benchmark use is
 * `serveRooms` from `@tikron/node`.
 */
// What to run: the config and the load models.
export { resolveConfig, type LoadConfig, type ResolvedConfig } from "./load/config";
export { buildPlan, parseStages, parseArrivalRate, parseDrop, parseRejoin, REJOIN_DELAY_MS, type Stage, type DropSpec, type LoadModel } from "./load/loadPlan";
export { ticketSource, type TicketSpec } from "./players/tickets";
// Scenarios (the public scenario API).
export {
  scenarios,
  getScenario,
  isTextScenario,
  defineScenario,
  loadScenarioFile,
  agarScenario,
  movementScenario,
  fpsScenario,
  tttJsonScenario,
  type AnyScenario,
  type Scenario,
  type TextScenario,
  type ScenarioEntry,
  type WelcomeInfo,
} from "./scenarios/index";
/** Scenario authors: the PRNG handed to createPlayer/writeInput. */
export type { Rng } from "./scenarios/rng";
// Running.
export { runLoad, runResolved, withScenarioFile, type RunOptions } from "./run/runner";
export type { LiveSample, RoomStatsSample, RunSeries } from "./live/series";
export { formatProgress, progressPrinter } from "./live/progress";
// Measuring.
export type { RoomData, RoomCounters } from "./metrics/roomMetrics";
export type { Summary, RoomSummary } from "./metrics/summary";
export type { MatchData, MatchCounters, DirectorySample, DirectoryRoom, MatchmakerShardStats } from "./metrics/matchMetrics";
export type { MatchSummary, FillSample, ReservationFates } from "./metrics/matchSummary";
export type { GeneratorProcess } from "./metrics/generatorProcess";
export { probeTimerNoise, type NoiseProbe } from "./metrics/noiseProbe";
// Judging: thresholds, verdicts, gates.
export { evaluateThreshold, evaluateThresholds, type ThresholdCheck } from "./thresholds/evaluate";
export { FIGURES, LIVE_FIGURES } from "./thresholds/figures";
export { parseThreshold } from "./thresholds/parse";
export { ExitCode, evaluateReport, exitCodeFor, formatGateResult, type GateResult } from "./report/verdict";
export { gates, getGate, gateConfig, evaluateGate, runGate, type Gate } from "./gates/gates";
// Reports.
export { assembleReport, REPORT_FORMAT, type Report } from "./report/report";
export { writeReport, readReport, RESULTS_DIR } from "./report/reportFiles";
export { formatSummary } from "./report/summaryText";
export { runHtml, compareHtml, sweepHtml, writeHtmlReport } from "./report/html";
export { lineChartSvg, stackSvgs, type LineChartOptions, type ChartSeries } from "./report/lineChart";
export { mergeReports } from "./report/merge";
export { compareReports, formatComparison, type Comparison } from "./report/compare";
// Series of runs and benchmarks.
export { runSweep, builtInSweeps, type SweepEntry } from "./sweep/sweep";
export { benchGenerator, benchChecks, benchRoomQuery, BENCH_TARGETS, type BenchOptions } from "./bench/benchGenerator";
export { runMatchBench, kneeOf, matchBenchTable, matchBenchVerdict, type MatchBenchOptions, type MatchBenchResult, type MatchBenchStep } from "./bench/matchBench";
// Local servers: CPU, fresh servers, A/B, capacity.
export { runWithServerCpu, startLocalServer, type ServerTarget } from "./run/serverRun";
export { ServerCpuSampler, type ServerCpuReport } from "./server/serverCpu";
export { runOnFreshServer } from "./run/freshRun";
export { defaultPinning, type Pinning } from "./server/pinning";
export { runAb, type AbOptions, type AbResult } from "./ab/abRun";
export { parseAbSpec, type AbSpec } from "./ab/abSpec";
export { runCapacity } from "./capacity/capacityRun";
export type { CapacityOptions, CapacityResult } from "./capacity/capacityResult";
export { CAPACITY_DENSITIES, defaultDensity, densityLabel, pointQuery, type CapacityDensity } from "./capacity/capacityDensity";
