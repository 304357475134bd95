/**
 * Programmatic API of the load tool: run a load test, merge and compare reports, evaluate gates,
 * and benchmark the generator. The loopback room server its tests and benchmark use is
 * `serveRooms` from `@tikron/node`.
 */
export { runLoad, runResolved, withScenarioFile, type RunOptions } from "./run/runner";
export type { LiveSample, RoomStatsSample, RunSeries } from "./live/series";
export { formatProgress, progressPrinter } from "./live/progress";
export { ExitCode, evaluateReport, exitCodeFor } from "./gates/gates";
export { evaluateThreshold, evaluateThresholds, type ThresholdCheck } from "./thresholds/evaluate";
export { FIGURES, LIVE_FIGURES } from "./thresholds/figures";
export { parseThreshold } from "./thresholds/parse";
export { buildPlan, parseStages, parseArrivalRate, parseDrop, type Stage, type DropSpec, type LoadModel } from "./load/loadPlan";
export { ticketSource, type TicketSpec } from "./players/tickets";
export { runHtml, compareHtml, sweepHtml, writeHtmlReport } from "./report/html";
export { resolveConfig, type LoadConfig, type ResolvedConfig } from "./load/config";
export { assembleReport, REPORT_FORMAT, type Report } from "./report/report";
export { formatSummary } from "./report/summaryText";
export { writeReport, RESULTS_DIR } from "./report/reportFiles";
export { type Summary, type RoomSummary } from "./metrics/summary";
export { type GeneratorProcess } from "./metrics/generatorProcess";
export { mergeReports } from "./report/merge";
export { readReport } from "./report/reportFiles";
export { compareReports, formatComparison, type Comparison } from "./report/compare";
export { gates, getGate, gateConfig, evaluateGate, formatGateResult, runGate, type Gate, type GateResult } from "./gates/gates";
export { runSweep, builtInSweeps, type SweepEntry } from "./sweep/sweep";
export { benchGenerator, benchChecks, benchRoomQuery, BENCH_TARGETS, type BenchOptions } from "./bench/benchGenerator";
export { probeTimerNoise, type NoiseProbe } from "./metrics/noiseProbe";
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
export type { RoomData, RoomCounters } from "./metrics/roomMetrics";
/** Scenario authors: the PRNG handed to createPlayer/writeInput. */
export type { Rng } from "./scenarios/rng";
export { runWithServerCpu, startLocalServer, type ServerTarget } from "./server/serverRun";
export { ServerCpuSampler, type ServerCpuReport } from "./server/serverCpu";
export { runOnFreshServer, defaultPinning, type Pinning } from "./server/freshRun";
export { runAb, type AbOptions, type AbResult } from "./ab/abRun";
export { parseAbSpec, type AbSpec } from "./ab/abSpec";
export { runCapacity } from "./capacity/capacityRun";
export { type CapacityOptions, type CapacityResult } from "./capacity/capacityResult";
export { lineChartSvg, stackSvgs, type LineChartOptions, type ChartSeries } from "./report/lineChart";
