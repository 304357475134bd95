/**
 * Starts real `wrangler dev` servers on loopback (for integration tests and the load tool) and
 * guarantees they die.
 *
 * Each server runs in its own process group (wrangler spawns a second node, esbuild and workerd),
 * so stopping kills the whole group rather than the wrangler pid alone. Three independent nets
 * make sure no workerd outlives the test process: `stop()`, exit/signal handlers in this process,
 * and a tiny detached watchdog that kills the group once this process is gone, which also covers
 * a test worker killed with SIGKILL, where no handler can run.
 *
 * Longer than most files on purpose: start, readiness, port retries and the three ways a server
 * is stopped are one lifecycle, and its "nothing is left running" guarantee is easiest to check
 * when all of it is read together.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { affinityFor, ensureWebBuilt, wranglerBin, type Affinity } from "./checkout";
import { REPO_ROOT } from "./repoRoot";
import { launchWatchdog } from "./watchdogProcess";

export { hasTaskset, type Affinity } from "./checkout";
export { REPO_ROOT } from "./repoRoot";

/** Options for {@link startWranglerDev}. */
export interface WranglerDevOptions {
  /** Wrangler config file, absolute or relative to the repository root. */
  config: string;
  /** `--var` overrides, e.g. `{ DEV_MODE: "true" }`. */
  vars?: Record<string, string>;
  /** HTTP port; a free one is picked when omitted. */
  port?: number;
  /** Devtools inspector port; a free one is picked when omitted. */
  inspectorPort?: number;
  /** How long to wait for `GET /health` to answer 200 (default 60 s). */
  readyTimeoutMs?: number;
  /** Extra arguments appended to `wrangler dev`. */
  extraArgs?: string[];
  /**
   * What runs `wrangler dev`, the server's arguments appended: by default this checkout's (or
   * `root`'s) wrangler. A project's own dev script instead, e.g. `["npm", "run", "dev", "--"]`
   * for a `dev` that runs `wrangler dev` with the arguments it is given; run in `root`.
   */
  command?: readonly string[];
  /** Extra environment for the wrangler process; a key set to `undefined` is left out of it. */
  env?: Record<string, string | undefined>;
  /** Echo wrangler's output to this process's stderr (default: env `TIKRON_WRANGLER_LOGS=1`). */
  echoOutput?: boolean;
  /** Keep the `--persist-to` directory after `stop()` (default false). */
  keepState?: boolean;
  /**
   * Reuse this state directory (an earlier server's `persistDir`, started with `keepState`), so
   * Durable Object storage survives a restart the way it does in production.
   */
  persistDir?: string;
  /**
   * Checkout to run from (default: this repository): the config resolves against it, wrangler
   * and the web assets come from it. Used to serve another git revision from a worktree, or a
   * project outside the repository (its own wrangler; no demo page is built there).
   */
  root?: string;
  /**
   * CPU list for `taskset -c` (e.g. "0"): wrangler, and so workerd, run pinned to those cores.
   * Without `taskset` on the machine the server runs unpinned and {@link WranglerDevServer.affinity}
   * says why.
   */
  cpus?: string;
}

/** A running `wrangler dev` server. */
export interface WranglerDevServer {
  /** Base HTTP URL without trailing slash, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Base WebSocket URL without trailing slash, e.g. `ws://127.0.0.1:40123`. */
  wsUrl: string;
  port: number;
  inspectorPort: number;
  /** Pid of the wrangler process (or of the `command` that runs it); also the id of the process group holding workerd. */
  pid: number;
  /** Local state directory passed as `--persist-to`. */
  persistDir: string;
  /** CPU pinning of the server's process group. */
  affinity: Affinity;
  /** Recent stdout+stderr of wrangler (bounded), for assertions and failure messages. */
  output(): string;
  /** Kills the whole process group and waits until none of it is left. Idempotent. */
  stop(): Promise<void>;
}

const OUTPUT_LIMIT = 64 * 1024;
const STOP_GRACE_MS = 5_000;
const STOP_KILL_WAIT_MS = 5_000;
const MAX_START_ATTEMPTS = 3;

const live = new Map<number, { watchdog: ChildProcess | undefined; persistDir: string | undefined }>();
const handedOutPorts = new Set<number>();
let instanceCounter = 0;
let handlersInstalled = false;

/**
 * Starts `wrangler dev --ip 127.0.0.1` with the given config and resolves once `GET /health`
 * answers 200. Ports and the persistence directory are unique per call, so several servers can
 * run at once. On failure the error carries wrangler's output and nothing is left running.
 */
export async function startWranglerDev(options: WranglerDevOptions): Promise<WranglerDevServer> {
  installExitHandlers();
  let lastError: unknown;
  // Free-port probing is racy (another process may grab the port before wrangler binds it), so
  // an "address in use" failure with picked ports is retried with fresh ones.
  const attempts = options.port === undefined || options.inspectorPort === undefined ? MAX_START_ATTEMPTS : 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      lastError = err;
      if (!(err instanceof StartError) || !err.addressInUse) break;
    }
  }
  throw lastError;
}

/** Thrown when a server does not become ready; by then its process group is already gone. */
export class StartError extends Error {
  constructor(
    message: string,
    /** True when wrangler reported a port clash (worth retrying with other ports). */
    readonly addressInUse: boolean,
    /** Process group id of the failed attempt, so tests can check nothing of it survived. */
    readonly pid: number,
  ) {
    super(message);
    this.name = "StartError";
  }
}

async function startOnce(options: WranglerDevOptions): Promise<WranglerDevServer> {
  const port = options.port ?? (await pickFreePort());
  const inspectorPort = options.inspectorPort ?? (await pickFreePort());
  const root = options.root ?? REPO_ROOT;
  const configPath = isAbsolute(options.config) ? options.config : resolve(root, options.config);
  if (!existsSync(configPath)) throw new Error(`wrangler config not found: ${configPath}`);
  await ensureWebBuilt(root);

  const persistDir = options.persistDir ?? join(REPO_ROOT, ".tmp", "wrangler-dev", `${Date.now()}-${process.pid}-${++instanceCounter}`);
  mkdirSync(persistDir, { recursive: true });

  const [launcher, ...launcherArgs] = options.command ?? [process.execPath, wranglerBin(root), "dev"];
  if (launcher === undefined) throw new Error("command: name what runs wrangler dev");
  const args = [
    ...launcherArgs,
    "--config", configPath,
    "--ip", "127.0.0.1",
    "--port", String(port),
    "--inspector-port", String(inspectorPort),
    "--inspector-ip", "127.0.0.1",
    "--persist-to", join(persistDir, "state"),
    "--show-interactive-dev-session=false",
    "--live-reload=false",
  ];
  for (const [key, value] of Object.entries(options.vars ?? {})) args.push("--var", `${key}:${value}`);
  args.push(...(options.extraArgs ?? []));

  const affinity = affinityFor(options.cpus);
  // taskset execs the launcher in place, so the pid (and process group) is still its own.
  const [command, commandArgs] = affinity.applied ? ["taskset", ["-c", options.cpus!, launcher, ...args]] : [launcher, args];
  const child = spawn(command, commandArgs, {
    cwd: root,
    // Own process group: lets stop() kill wrangler's children too, and keeps a terminal's Ctrl-C
    // from racing our orderly shutdown.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_SEND_ERROR_REPORTS: "false",
      WRANGLER_NO_SKILLS_UPDATE_PROMPTS: "true",
      WRANGLER_HIDE_BANNER: "true",
      // Keeps debug logs and the dev registry out of the home directory and apart per instance.
      WRANGLER_LOG_PATH: join(persistDir, "logs"),
      WRANGLER_REGISTRY_PATH: join(persistDir, "registry"),
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      ...options.env,
    },
  });
  let ready = false;
  const pid = child.pid;
  if (pid === undefined) {
    await once(child, "error", 5_000);
    throw new Error(`could not spawn wrangler (${launcher} ${args[0]})`);
  }
  const ownedDir = options.keepState ? undefined : persistDir;
  live.set(pid, { watchdog: spawnWatchdog(pid, ownedDir), persistDir: ownedDir });

  let output = "";
  let startupError: string | undefined;
  const echo = options.echoOutput ?? process.env.TIKRON_WRANGLER_LOGS === "1";
  const onData = (chunk: Buffer): void => {
    const text = stripAnsi(chunk.toString("utf8"));
    output = (output + text).slice(-OUTPUT_LIMIT);
    // After a failed build wrangler keeps watching for edits instead of exiting; waiting out the
    // whole readiness timeout would only delay the same error.
    // The whole output is searched because a marker may straddle two chunks.
    if (!ready && startupError === undefined && output.includes("[ERROR]")) {
      startupError = output.split("\n").find((line) => line.includes("[ERROR]"))?.trim();
    }
    if (echo) process.stderr.write(`[wrangler:${port}] ${text}`);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);

  let exitInfo: string | undefined;
  const exited = new Promise<void>((resolveExit) => {
    child.once("exit", (code, signal) => {
      exitInfo = signal ? `signal ${signal}` : `code ${code}`;
      resolveExit();
    });
  });

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= stopGroup(pid, exited).finally(() => {
      if (!options.keepState) rmSync(persistDir, { recursive: true, force: true });
    });
    return stopped;
  };

  const url = `http://127.0.0.1:${port}`;
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  try {
    await waitForHealth(url, timeoutMs, () =>
      exitInfo !== undefined ? `wrangler exited early (${exitInfo})` : startupError !== undefined ? `wrangler reported: ${startupError}` : undefined,
    );
    ready = true;
  } catch (err) {
    // Let the rest of an error report (file, line, hint) arrive before silencing wrangler.
    if (startupError !== undefined) await sleep(300);
    await stop();
    const reason = err instanceof Error ? err.message : String(err);
    throw new StartError(
      `wrangler dev (${options.config}, port ${port}) did not become ready: ${reason}\n--- wrangler output ---\n${output.trim()}\n---`,
      /address already in use|EADDRINUSE/i.test(output),
      pid,
    );
  }

  return {
    url,
    wsUrl: `ws://127.0.0.1:${port}`,
    port,
    inspectorPort,
    pid,
    persistDir,
    affinity,
    output: () => output,
    stop,
  };
}

/** Polls `GET /health` until 200; `fatal()` returning a reason aborts the wait early. */
async function waitForHealth(url: string, timeoutMs: number, fatal: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = "no answer yet";
  while (Date.now() < deadline) {
    const reason = fatal();
    if (reason !== undefined) throw new Error(reason);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(Math.min(5_000, Math.max(1, deadline - Date.now()))) });
      const body = await res.text();
      if (res.status === 200) return;
      lastProblem = `GET /health answered ${res.status}: ${body.slice(0, 200)}`;
    } catch (err) {
      lastProblem = err instanceof Error ? `${err.message}${err.cause ? ` (${String(err.cause)})` : ""}` : String(err);
    }
    await sleep(200);
  }
  throw new Error(`GET /health not ready within ${timeoutMs} ms; last: ${lastProblem}`);
}

async function stopGroup(pgid: number, exited: Promise<void>): Promise<void> {
  const entry = live.get(pgid);
  // The leader first: wrangler then stops workerd and reaps it. Signalling the whole group at
  // once can let workerd outlive its parent and linger as an orphaned zombie on hosts whose
  // init does not reap orphans.
  try {
    process.kill(pgid, "SIGTERM");
  } catch {
    // already gone
  }
  let graceful = await waitUntil(() => groupMembers(pgid).length === 0, STOP_GRACE_MS);
  if (!graceful) {
    signalGroup(pgid, "SIGTERM");
    graceful = await waitUntil(() => groupMembers(pgid).length === 0, STOP_GRACE_MS);
  }
  if (!graceful) {
    signalGroup(pgid, "SIGKILL");
    const killed = await waitUntil(() => groupMembers(pgid).length === 0, STOP_KILL_WAIT_MS);
    if (!killed) throw new Error(`process group ${pgid} still has members after SIGKILL: ${groupMembers(pgid).join(", ")}`);
  }
  // The 'exit' event follows the group's death closely; bounded so stop() can never hang.
  await Promise.race([exited, sleep(STOP_KILL_WAIT_MS)]);
  if (entry?.watchdog?.pid !== undefined) {
    try {
      process.kill(entry.watchdog.pid, "SIGKILL");
    } catch {
      // Already gone: it exits on its own once the group is empty.
    }
  }
  live.delete(pgid);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Live (non-zombie) pids whose process group is `pgid`. Zombies are excluded: they are dead and
 * only wait to be reaped by whoever inherited them. Falls back to `kill(-pgid, 0)` without /proc.
 */
export function groupMembers(pgid: number): number[] {
  if (!existsSync("/proc/self/stat")) {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited while scanning
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") members.push(Number(name));
  }
  return members;
}

/**
 * A detached process that kills the group once this process disappears (its stdin pipe closes
 * when we die, however we die), and exits by itself when the group is empty.
 */
function spawnWatchdog(pgid: number, persistDir: string | undefined): ChildProcess | undefined {
  const script = `
    const pgid = ${pgid};
    const dir = ${JSON.stringify(persistDir ?? null)};
    let ownerGone = false;
    const alive = () => { try { process.kill(-pgid, 0); return true; } catch { return false; } };
    const finish = () => {
      if (ownerGone && dir) { try { require("node:fs").rmSync(dir, { recursive: true, force: true }); } catch {} }
      process.exit(0);
    };
    const reap = () => {
      if (ownerGone) return;
      ownerGone = true;
      // Leader first (it stops and reaps workerd), then the group, then SIGKILL.
      try { process.kill(pgid, "SIGTERM"); } catch {}
      setTimeout(() => { try { process.kill(-pgid, "SIGTERM"); } catch {} }, 2000);
      setTimeout(() => { try { process.kill(-pgid, "SIGKILL"); } catch {} setTimeout(finish, 500); }, 4000);
    };
    process.stdin.on("end", reap);
    process.stdin.on("error", reap);
    process.stdin.resume();
    setInterval(() => { if (!alive()) finish(); }, 500);
  `;

  return launchWatchdog(script);
}

/** Synchronous, for exit and signal handlers: no awaiting is possible there. */
function killAllNow(): void {
  for (const [pgid, entry] of live) {
    signalGroup(pgid, "SIGKILL");
    if (entry.watchdog?.pid !== undefined) {
      try {
        process.kill(entry.watchdog.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    if (entry.persistDir !== undefined) rmSync(entry.persistDir, { recursive: true, force: true });
  }
  live.clear();
}

/**
 * Removes state directories left by test processes that died without cleaning up. Directory
 * names start with `<time>-<owner pid>-`; a directory whose owner is alive is left alone.
 */
function sweepStaleStateDirs(): void {
  const base = join(REPO_ROOT, ".tmp", "wrangler-dev");
  if (!existsSync(base)) return;
  for (const name of readdirSync(base)) {
    const owner = Number(name.split("-")[1]);
    if (!Number.isInteger(owner) || owner <= 0 || owner === process.pid) continue;
    let ownerAlive = true;
    try {
      process.kill(owner, 0);
    } catch (err) {
      ownerAlive = (err as NodeJS.ErrnoException).code === "EPERM";
    }
    if (!ownerAlive) rmSync(join(base, name), { recursive: true, force: true });
  }
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  sweepStaleStateDirs();
  process.on("exit", killAllNow);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const handler = (): void => {
      killAllNow();
      // Only restore the default "die on signal" when nobody else handles it; otherwise the
      // other handler (e.g. the test runner's) decides how to shut down.
      if (process.listenerCount(signal) === 1) {
        process.off(signal, handler);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, handler);
  }
}

/** A loopback port that was free a moment ago and that this process has not handed out before. */
export async function pickFreePort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await new Promise<number>((resolvePort, reject) => {
      const server = createServer();
      server.unref();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        const picked = typeof address === "object" && address !== null ? address.port : 0;
        server.close(() => resolvePort(picked));
      });
    });
    if (port > 0 && !handedOutPorts.has(port)) {
      handedOutPorts.add(port);
      return port;
    }
  }
  throw new Error("could not find a free loopback port");
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(50);
  }
  return condition();
}

function once(child: ChildProcess, event: string, timeoutMs: number): Promise<void> {
  return Promise.race([new Promise<void>((r) => child.once(event, () => r())), sleep(timeoutMs)]);
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
