/**
 * One measured run on a fresh local server: start `wrangler dev` (pinned to the server's cores,
 * its dev proxy moved to the generator's), warm it up, run the load in a child process pinned to
 * the generator's cores, stop the server.
 * A fresh server per run means no room, seat or warmed-up state of an earlier run distorts it.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@tikron/devserver";
import { resolveConfig, type LoadConfig } from "../load/config";
import type { Report } from "../report/report";
import { tsxExecArgv } from "./workers";
import type { ChildJob } from "./childRun";
import type { Pinning } from "../server/pinning";
import { isWorkerd, listProcesses, processRole, serverProcesses } from "../server/procStat";
import { startLocalServer } from "./serverRun";
import { workerEntryUrl } from "../server/workerEntry";
import { captureCpuProfile, summarizeProfile, type ProfileSummary } from "../server/cpuProfile";

/** A run on a fresh server. */
export interface FreshRunJob {
  /** "staging" or a wrangler config path, relative to `root`. */
  serverConfig: string;
  /** Checkout to serve from (default: this repository). */
  root?: string;
  /** The load; `url` is filled in with the fresh server's. */
  load: Omit<LoadConfig, "url">;
  pinning: Pinning;
  /** Scratch directory for the job and report files. */
  workDir: string;
  /**
   * Also profile the Worker's isolate through the inspector for this many seconds from the
   * steady window's start (after `skipSec` more); the raw profile is written to `profilePath` and its summary lands
   * in `report.server.profile`.
   */
  profile?: { seconds: number; profilePath: string; skipSec?: number };
}

/** Phases after which a silent child is killed, on top of the run's own length. */
const CHILD_MARGIN_MS = 90_000;

/** Runs one job; throws when the server does not start or the child fails (nothing is left running). */
export async function runOnFreshServer(job: FreshRunJob, log: (line: string) => void = () => {}): Promise<Report> {
  mkdirSync(job.workDir, { recursive: true });
  const server = await startLocalServer({ config: job.serverConfig, root: job.root, cpus: job.pinning.serverCpus ?? undefined });
  try {
    const proxyMoved = job.pinning.generatorCpus && server.affinity.applied ? moveDevProxy(server.pid, job.pinning.generatorCpus) : [];
    const direct = (job.pinning.hop ?? "direct") === "direct" ? await workerEntryUrl(server.pid) : null;
    if ((job.pinning.hop ?? "direct") === "direct" && direct === null) throw new Error("the worker's entry socket was not found: run with --via-dev-proxy");
    const url = direct ?? server.wsUrl;
    log(`  server pid ${server.pid} on ${url}${direct ? " (worker entry, past the dev proxy)" : ""}${server.affinity.applied ? `, CPU ${server.affinity.requested}` : ""}${proxyMoved.length ? `, dev proxy ${proxyMoved.join(",")} on CPU ${job.pinning.generatorCpus}` : ""}`);
    const stem = join(job.workDir, `run-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
    const childJob: ChildJob = {
      config: { ...job.load, url },
      server: { pid: server.pid, affinity: server.affinity },
      reportPath: `${stem}.report.json`,
    };
    writeFileSync(`${stem}.job.json`, JSON.stringify(childJob));
    // The resolved ramp: none for arrivals and stages, whose window starts with the run.
    const ramp = resolveConfig(childJob.config).rampSec;
    const child = runChild(`${stem}.job.json`, job.pinning.generatorCpus, (ramp + job.load.durationSec) * 1000 + CHILD_MARGIN_MS);
    // Caught at once: a profile that fails while the run goes on must not become an unhandled
    // rejection; the report says why it is missing instead.
    let profileError: string | undefined;
    const profiling = job.profile
      ? profileSteadyWindow(server.inspectorPort, ramp, job.profile, child).catch((e: unknown) => {
          profileError = e instanceof Error ? e.message : String(e);
          return undefined;
        })
      : undefined;
    await child;
    const profile = await profiling;
    if (!existsSync(childJob.reportPath)) throw new Error("the run wrote no report");
    const report = JSON.parse(readFileSync(childJob.reportPath, "utf8")) as Report;
    if (profile && report.server) report.server.profile = profile;
    if (profileError && report.server) report.server.warnings.push(`no CPU profile: ${profileError}`);
    rmSync(`${stem}.job.json`, { force: true });
    rmSync(childJob.reportPath, { force: true });
    return report;
  } finally {
    await server.stop();
  }
}

/** Waits for the ramp (and the child's start-up), then profiles; null when the run ended first. */
async function profileSteadyWindow(
  inspectorPort: number,
  rampSec: number,
  o: { seconds: number; profilePath: string; skipSec?: number },
  child: Promise<void>,
): Promise<ProfileSummary | undefined> {
  let ended = false;
  child.then(() => (ended = true), () => (ended = true));
  // The child needs a few seconds to start before its ramp begins.
  await new Promise((r) => setTimeout(r, (rampSec + CHILD_STARTUP_SEC + (o.skipSec ?? 0)) * 1000));
  if (ended) return undefined;
  const profile = await captureCpuProfile(inspectorPort, o.seconds);
  writeFileSync(o.profilePath, JSON.stringify(profile));
  return summarizeProfile(profile);
}

/** Seconds a load child takes to load its code and open its first socket (generous). */
const CHILD_STARTUP_SEC = 4;

/**
 * Moves wrangler's dev proxy workerd (every socket's front hop under `wrangler dev`, absent on the
 * edge) onto the generator's cores, so the pinned server core holds only the worker that runs the
 * objects, as an edge machine would. Returns the pids moved; the proxy's CPU is still measured
 * and reported apart.
 */
function moveDevProxy(rootPid: number, cpus: string): number[] {
  const moved: number[] = [];
  for (const p of serverProcesses(listProcesses(), rootPid)) {
    if (!isWorkerd(p) || processRole(p) !== "proxy") continue;
    const r = spawnSync("taskset", ["-a", "-p", "-c", cpus, String(p.pid)], { stdio: "ignore", timeout: 5_000 });
    if (r.status === 0) moved.push(p.pid);
  }
  return moved;
}

function runChild(jobPath: string, cpus: string | null, timeoutMs: number): Promise<void> {
  const entry = new URL("./childRun.ts", import.meta.url).pathname;
  const nodeArgs = [...tsxExecArgv(), entry, jobPath];
  const [cmd, args] = cpus ? ["taskset", ["-c", cpus, process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString("utf8")).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`the run's process ended with ${signal ?? `code ${code}`}${stderr ? `: ${stderr.trim()}` : ""}`));
    });
  });
}
