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

/** A job's name made safe for a file name (runs of other characters become `_`). */
export function fileSafeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "_");
}

/** Where one job's files go: `<outDir>/<timestamp>-<kind>-<name>` (a directory or a file stem). */
export function resultStem(outDir: string, kind: string, name: string, at: Date = new Date()): string {
  return join(outDir, `${fileTimestamp(at)}-${kind}-${fileSafeName(name)}`);
}

/**
 * Writes a bench's result into its own directory under `outDir` (see {@link resultStem}) as
 * `<kind>.json` and `<kind>.md`, and returns both paths.
 */
export function writeBenchFiles(outDir: string, kind: string, name: string, createdAt: string, result: unknown, markdown: string): string[] {
  const dir = resultStem(outDir, kind, name, new Date(createdAt));
  mkdirSync(dir, { recursive: true });
  const files = [join(dir, `${kind}.json`), join(dir, `${kind}.md`)];
  writeFileSync(files[0]!, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(files[1]!, `${markdown}\n`);
  return files;
}

/** Writes `<dir>/<timestamp>-<name>.json` and returns its path. */
export function writeReport(report: Report, dir: string = RESULTS_DIR): string {
  mkdirSync(dir, { recursive: true });
  return writeReportFile(report, join(dir, `${fileTimestamp(new Date(report.createdAt))}-${fileSafeName(report.name)}.json`));
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
