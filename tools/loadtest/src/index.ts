/**
 * Programmatic API of the load tool: run a load test, merge and compare reports, evaluate gates,
 * and benchmark the generator. The loopback room server its tests and benchmark use is
 * `serveRooms` from `@tikron/node`.
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
export { benchGenerator, benchChecks, benchRoomQuery, BENCH_TARGETS, type BenchOptions } from "./benchGenerator";
export { probeTimerNoise, type NoiseProbe } from "./noiseProbe";
export {
  scenarios,
  getScenario,
  isTextScenario,
  encodeAgarInput,
  tttJsonScenario,
  type AnyScenario,
  type Scenario,
  type TextScenario,
  type ScenarioEntry,
  type WelcomeInfo,
} from "./scenarios/index";
export type { RoomData, RoomCounters } from "./metrics/roomMetrics";
export { runWithServerCpu, startLocalServer, type ServerTarget } from "./server/serverRun";
export { ServerCpuSampler, type ServerCpuReport } from "./server/serverCpu";
export { runOnFreshServer, defaultPinning, type Pinning } from "./server/freshRun";
export { runAb, type AbOptions, type AbResult } from "./ab/abRun";
export { parseAbSpec, type AbSpec } from "./ab/abSpec";
export { runCapacity, type CapacityOptions, type CapacityResult } from "./capacity/capacityRun";
export { lineChartSvg, stackSvgs, type LineChartOptions, type ChartSeries } from "./lineChart";
