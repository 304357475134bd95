#!/usr/bin/env node
/**
 * Sums vitest JSON reports into the suite's closing line, `tests: N passed, M failed`.
 *
 * Usage: node scripts/summarize-tests.mjs [--failed-steps K] [--expect NAME=FILE ...] report.json ...
 *   --failed-steps K  non-test steps (typecheck, build) that failed; each counts as one failure
 *                     so the closing line never reads "0 failed" for a broken run.
 *   --expect NAME=FILE  a vitest run that should have written FILE; a missing or unreadable report
 *                     (crashed run) counts as one failure, reported under NAME.
 * A test file that failed without any failing test (e.g. it threw on import) counts as one
 * failure too. Exit code: 0 when nothing failed, 1 otherwise.
 */
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
let failedSteps = 0;
const reports = new Map();
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === "--failed-steps") failedSteps += Number(args[++i] ?? 0) || 0;
  else if (arg === "--expect") {
    const [name, file] = String(args[++i]).split("=");
    reports.set(file, name);
  } else reports.set(arg, arg);
}

let passed = 0;
let failed = failedSteps;
let skipped = 0;
const notes = [];
for (const [file, name] of reports) {
  if (!existsSync(file)) {
    failed += 1;
    notes.push(`${name}: no report written (the run crashed or was killed)`);
    continue;
  }
  let report;
  try {
    report = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    failed += 1;
    notes.push(`${name}: unreadable report (${err instanceof Error ? err.message : err})`);
    continue;
  }
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    const anyFailedTest = (suite.assertionResults ?? []).some((t) => t.status === "failed");
    if (suite.status === "failed" && !anyFailedTest) {
      failed += 1;
      notes.push(`${name}: ${suite.name} failed outside any test: ${String(suite.message ?? "").split("\n")[0]}`);
    }
  }
}

for (const note of notes) console.log(`  ! ${note}`);
if (skipped > 0) console.log(`  (${skipped} skipped)`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
