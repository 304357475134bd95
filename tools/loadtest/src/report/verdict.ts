/**
 * The verdict on a run: its thresholds checked, the run's validity (a saturated generator
 * measured itself), an early abort, and the exit code the command line returns for it.
 */
import { evaluateThresholds, type ThresholdCheck } from "../thresholds/evaluate";
import type { Report } from "./report";

/** Verdict of a set of thresholds on a run. `valid` is false when the generator was saturated: nothing was measured. */
export interface GateResult {
  gate: string;
  valid: boolean;
  passed: boolean;
  checks: ThresholdCheck[];
  /** One line per failed threshold (and the invalidity reason, if any). */
  failures: string[];
}

/** Exit codes of `run` and `gate` (like k6's 99 for failed thresholds). */
export const ExitCode = {
  pass: 0,
  /** At least one threshold failed (the run itself was valid). */
  thresholdFailed: 99,
  /** The generator saturated: the figures describe the generator, not the server. */
  invalidRun: 98,
  /** The run could not happen: bad arguments or config, server unreachable, workers lost. */
  couldNotRun: 97,
} as const;

/** Checks thresholds on a report. A saturated generator makes the run invalid, which fails it. */
export function evaluateReport(name: string, thresholds: readonly string[], report: Report): GateResult {
  const checks = evaluateThresholds(report, thresholds);
  const failures = checks.filter((c) => !c.ok).map((c) => `${c.threshold}: got ${c.actual}`);
  const valid = report.status === "ok";
  if (!valid) failures.unshift(`invalid run: ${report.status} (${report.saturationReasons.join("; ")})`);
  if (report.aborted) failures.push(`aborted at ${report.aborted.atSec} s: ${report.aborted.threshold} (got ${report.aborted.actual})`);
  return { gate: name, valid, passed: valid && failures.length === 0, checks, failures };
}

/** The exit code for a verdict (see {@link ExitCode}). */
export function exitCodeFor(res: GateResult): number {
  if (!res.valid) return ExitCode.invalidRun;
  return res.passed ? ExitCode.pass : ExitCode.thresholdFailed;
}

/** Text verdict: one line per threshold, then PASS/FAIL. */
export function formatGateResult(res: GateResult): string {
  const w = Math.max(10, ...res.checks.map((c) => c.threshold.length));
  const lines = res.checks.map((c) => `  ${c.ok ? "ok  " : "FAIL"}  ${c.threshold.padEnd(w)}  ${c.actual}`);
  if (!res.valid) lines.unshift(`  INVALID  ${res.failures[0]}`);
  lines.push(res.passed ? `${res.gate}: PASS` : `${res.gate}: FAIL\n${res.failures.map((f) => `  - ${f}`).join("\n")}`);
  return lines.join("\n");
}
