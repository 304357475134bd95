/** Where reports live on disk: the results directory, file names, writing and reading them back. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REPORT_FORMAT, type Report } from "./report";

/** Default directory for reports: tools/loadtest/results (gitignored). */
export const RESULTS_DIR = fileURLToPath(new URL("../../results", import.meta.url));

/** A file-name-safe UTC timestamp: 2025-01-31T12-00-00Z. */
export function fileTimestamp(d = new Date()): string {
  return d.toISOString().replace(/\.\d+Z$/, "Z").replace(/:/g, "-");
}

/** Writes `<dir>/<timestamp>-<name>.json` and returns its path. */
export function writeReport(report: Report, dir: string = RESULTS_DIR): string {
  mkdirSync(dir, { recursive: true });
  const safe = report.name.replace(/[^A-Za-z0-9._-]+/g, "_");
  return writeReportFile(report, join(dir, `${fileTimestamp(new Date(report.createdAt))}-${safe}.json`));
}

/** Writes the report's JSON to `path` (its directory must exist) and returns the path. */
export function writeReportFile(report: Report, path: string): string {
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}

/** Reads and sanity-checks a report file. */
export function readReport(path: string): Report {
  const r = JSON.parse(readFileSync(path, "utf8")) as Report;
  if (r?.format !== REPORT_FORMAT) throw new Error(`${path} is not a ${REPORT_FORMAT} report (format: ${String(r?.format)})`);
  return r;
}
