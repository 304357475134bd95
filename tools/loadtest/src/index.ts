/**
 * Programmatic API of the load tool: run a load test, merge and compare reports, evaluate gates,
 * and start the loopback echo server used by tests and the generator benchmark.
 */
export { runLoad, runResolved } from "./runner";
export { resolveConfig, type LoadConfig, type ResolvedConfig } from "./config";
export {
  assembleReport,
  formatSummary,
  writeReport,
  RESULTS_DIR,
  REPORT_FORMAT,
  type Report,
  type Summary,
  type RoomSummary,
  type GeneratorProcess,
} from "./report";
export { mergeReports, readReport } from "./merge";
export { compareReports, formatComparison, type Comparison } from "./compare";
export { gates, getGate, gateConfig, evaluateGate, formatGateResult, runGate, type Gate, type GateResult } from "./gates";
export { runSweep, builtInSweeps, type SweepEntry } from "./sweep";
export { startEchoServer, type EchoServer, type EchoServerOptions } from "./echoServer";
export { benchGenerator, benchChecks, BENCH_TARGETS, type BenchOptions } from "./benchGenerator";
export { probeTimerNoise, type NoiseProbe } from "./noiseProbe";
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
export type { Rng } from "./rng";
