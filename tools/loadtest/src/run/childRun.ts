/**
 * Entry of a measured run in its own process (so `ab` and `capacity` can pin the generator to its
 * own cores with `taskset` and start every run with a fresh generator). Usage:
 * `node --import tsx childRun.ts <job.json>`; writes the report where the job says.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolveConfig, type LoadConfig } from "../load/config";
import { runWithServerCpu, type ServerTarget } from "./serverRun";

/** What the parent hands a child run. */
export interface ChildJob {
  config: LoadConfig;
  server: ServerTarget;
  /** Where to write the report JSON. */
  reportPath: string;
}

async function main(): Promise<void> {
  const jobPath = process.argv[2];
  if (!jobPath) throw new Error("usage: childRun.ts <job.json>");
  const job = JSON.parse(readFileSync(jobPath, "utf8")) as ChildJob;
  const report = await runWithServerCpu(resolveConfig(job.config), job.server);
  writeFileSync(job.reportPath, `${JSON.stringify(report)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(2);
  },
);
