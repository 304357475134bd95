/** How every command that produces a report ends: judged if asked, written, summarized, an exit code. */
import { writeHtmlReport } from "../report/html";
import type { Report } from "../report/report";
import { RESULTS_DIR, writeReport, writeReportFile } from "../report/reportFiles";
import { formatSummary } from "../report/summaryText";
import { ExitCode, evaluateReport, exitCodeFor, formatGateResult } from "../report/verdict";

/** How a command finishes its report. */
export interface FinishOptions {
  /** Results directory, where the report gets a timestamped file name (default RESULTS_DIR). */
  outDir?: string;
  /** Write the report to exactly this path instead (`merge -o`). */
  file?: string;
  /** Also write the HTML page next to the JSON. */
  html?: boolean;
  /**
   * Judge the run (`run`, `gate`): its thresholds, its validity and an early abort go into the
   * report's verdict, and a run that no player could join is "could not run".
   */
  judge?: { name: string; thresholds: readonly string[] };
}

/**
 * Finishes a report on the command line: judges it when asked, writes the JSON (and the HTML
 * page), prints the summary, where it went and the verdict, and returns the exit code (see
 * {@link ExitCode}; always `pass` when not judged).
 */
export function finishReport(report: Report, o: FinishOptions = {}): number {
  const c = report.summary.clients;
  const judge = o.judge;
  const couldNotRun = judge !== undefined && c.planned > 0 && c.joined === 0 && c.refused === 0;
  const judged = judge !== undefined && (judge.thresholds.length > 0 || report.status !== "ok" || report.aborted !== undefined);
  const verdict = judged ? evaluateReport(judge.name, judge.thresholds, report) : null;
  if (verdict) report.verdict = { name: verdict.gate, valid: verdict.valid, passed: verdict.passed, checks: verdict.checks };
  const path = o.file !== undefined ? writeReportFile(report, o.file) : writeReport(report, o.outDir ?? RESULTS_DIR);
  console.log(formatSummary(report));
  console.log(`\nreport: ${path}`);
  if (o.html) console.log(`html:   ${writeHtmlReport(report, path)}`);
  if (couldNotRun) {
    console.log(`\ncould not run: no player joined (${JSON.stringify(report.summary.failureReasons)})`);
    return ExitCode.couldNotRun;
  }
  if (!verdict) return ExitCode.pass;
  console.log(`\n${formatGateResult(verdict)}`);
  return exitCodeFor(verdict);
}
