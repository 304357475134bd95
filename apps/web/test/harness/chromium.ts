/**
 * Headless Chromium for browser tests: finds (or installs) the distribution's browser and
 * launches it through playwright-core so that it can never outlive the test process.
 *
 * Playwright starts the browser as the leader of its own process group; `close()` kills that
 * whole group and waits until it is empty, exit/signal handlers do the same synchronously, and a
 * small detached watchdog kills the group once this process is gone however it died (SIGKILL
 * included, where no handler runs).
 *
 * Chromium also starts crash handlers (`chrome_crashpad_handler`) that daemonise into process
 * groups of their own, out of reach of a group kill. They cannot be switched off without
 * breaking page loads, so the ones that appear during a launch are remembered by pid and get the
 * same treatment: awaited on close (they exit by themselves shortly after the browser) and
 * killed if they linger, by the handlers and by the watchdog.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chromium, type Browser, type BrowserServer } from "playwright-core";
import { groupMembers } from "../../../gateway/test/harness/wranglerDev";
import { launchWatchdog } from "../../../gateway/test/harness/watchdogProcess";

/** Where Debian puts the browser; `TIKRON_CHROMIUM` overrides. */
const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const CLOSE_TIMEOUT_MS = 5_000;
const KILL_WAIT_MS = 5_000;
/** How long crash handlers get to leave on their own after the browser is gone. */
const CRASHPAD_GRACE_MS = 3_000;

/** Flags for a quiet, sandbox-less (we run as root in containers) software-rendered browser. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-breakpad",
];

function findChromium(): string | undefined {
  const override = process.env.TIKRON_CHROMIUM;
  if (override) return existsSync(override) ? override : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

/**
 * Returns the Chromium executable, installing Debian's `chromium` package first when it is
 * missing and this process may (root with apt-get). Throws an error that says what to do
 * otherwise. Blocking: meant for a `beforeAll` with a long timeout.
 */
export function ensureChromium(): string {
  const found = findChromium();
  if (found) return found;
  if (process.env.TIKRON_CHROMIUM) throw new Error(`TIKRON_CHROMIUM=${process.env.TIKRON_CHROMIUM} does not exist`);
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hasApt = existsSync("/usr/bin/apt-get");
  if (!isRoot || !hasApt) {
    throw new Error(
      "Chromium is needed for the browser tests but /usr/bin/chromium is missing and cannot be installed from here " +
        `(${!hasApt ? "no apt-get" : "not root"}). Install it with: sudo apt-get update && sudo apt-get install -y chromium, ` +
        "or point TIKRON_CHROMIUM at a Chromium executable.",
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const run = (args: string[]): void => {
    const res = spawnSync("apt-get", args, { env, encoding: "utf8", timeout: INSTALL_TIMEOUT_MS });
    if (res.status !== 0) {
      const out = `${res.stdout ?? ""}${res.stderr ?? ""}`.trim().split("\n").slice(-15).join("\n");
      throw new Error(`apt-get ${args.join(" ")} failed (${res.error?.message ?? `exit ${res.status}`}) while installing Chromium for the browser tests:\n${out}`);
    }
  };
  // Another apt run (e.g. CI's own install) may hold the lock for a while.
  run(["-o", "DPkg::Lock::Timeout=300", "update", "-qq"]);
  run(["-o", "DPkg::Lock::Timeout=300", "install", "-y", "-qq", "--no-install-recommends", "chromium"]);
  const installed = findChromium();
  if (!installed) throw new Error("apt-get installed chromium but no executable appeared at /usr/bin/chromium");
  return installed;
}

/** A running headless browser. */
export interface ChromiumHandle {
  browser: Browser;
  /** Pid of the browser process; also the id of its process group. */
  pid: number;
  /** Pids of the crash handlers this browser started (outside its process group). */
  helpers: readonly number[];
  /** Closes the browser, kills whatever is left of its process group and waits until it is empty. Idempotent. */
  close(): Promise<void>;
}

interface Launched {
  watchdog: ChildProcess | undefined;
  /** Crash handler pids that appeared while this browser started. */
  helpers: number[];
}

const live = new Map<number, Launched>();
let handlersInstalled = false;

/** Launches headless Chromium and connects to it. */
export async function launchChromium(executablePath: string): Promise<ChromiumHandle> {
  installExitHandlers();
  const helpersBefore = new Set(crashHandlers());
  const server: BrowserServer = await chromium.launchServer({
    executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS],
    host: "127.0.0.1",
    port: 0,
  });
  const pid = server.process().pid;
  if (pid === undefined) {
    await server.kill();
    throw new Error("chromium started without a pid");
  }
  const helpers = crashHandlers().filter((p) => !helpersBefore.has(p));
  live.set(pid, { watchdog: spawnWatchdog(pid, helpers), helpers });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // Polite first (flushes nothing we need, but lets Chromium tidy its temp profile) ...
      await withTimeout(browser?.close().catch(() => {}), CLOSE_TIMEOUT_MS);
      await withTimeout(server.close().catch(() => {}), CLOSE_TIMEOUT_MS);
      // ... then certain: nothing of the group may survive.
      await killGroup(pid);
    })();
    return closing;
  };

  let browser: Browser | undefined;
  try {
    browser = await chromium.connect(server.wsEndpoint(), { timeout: 30_000 });
  } catch (err) {
    await close();
    throw err;
  }
  return { browser, pid, helpers, close };
}

async function killGroup(pgid: number): Promise<void> {
  if (groupMembers(pgid).length > 0) signalGroup(pgid, "SIGKILL");
  const deadline = Date.now() + KILL_WAIT_MS;
  while (groupMembers(pgid).length > 0 && Date.now() < deadline) await sleep(50);
  const left = groupMembers(pgid);
  const entry = live.get(pgid);
  const helpers = entry?.helpers ?? [];
  const graceEnd = Date.now() + CRASHPAD_GRACE_MS;
  while (helpers.some(isAlive) && Date.now() < graceEnd) await sleep(50);
  for (const h of helpers) killPid(h);
  const helpersLeft = helpers.filter(isAlive);
  live.delete(pgid);
  if (entry?.watchdog?.pid !== undefined) killPid(entry.watchdog.pid);
  if (left.length > 0) throw new Error(`chromium process group ${pgid} still has members after SIGKILL: ${left.join(", ")}`);
  if (helpersLeft.length > 0) throw new Error(`chromium crash handlers survived SIGKILL: ${helpersLeft.join(", ")}`);
}

/** Pids of running Chromium crash handlers (Linux /proc; empty elsewhere). */
function crashHandlers(): number[] {
  if (!existsSync("/proc/self/stat")) return [];
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, "utf8").startsWith("chrome_crashpad")) out.push(Number(name));
    } catch {
      // exited while scanning
    }
  }
  return out;
}

/** True while `pid` runs (zombies count as gone: they only wait to be reaped). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

function killPid(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/**
 * A detached process that kills the group (and the crash handlers) when our end of its stdin
 * pipe closes, i.e. when we died.
 */
function spawnWatchdog(pgid: number, helpers: readonly number[]): ChildProcess | undefined {
  const script = `
    const pgid = ${pgid};
    const helpers = ${JSON.stringify(helpers)};
    const alive = () => { try { process.kill(-pgid, 0); return true; } catch { return false; } };
    const reap = () => {
      try { process.kill(-pgid, "SIGKILL"); } catch {}
      for (const h of helpers) { try { process.kill(h, "SIGKILL"); } catch {} }
      process.exit(0);
    };
    process.stdin.on("end", reap);
    process.stdin.on("error", reap);
    process.stdin.resume();
    setInterval(() => { if (!alive()) process.exit(0); }, 500);
  `;
  return launchWatchdog(script);
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const killAll = (): void => {
    for (const [pgid, entry] of live) {
      signalGroup(pgid, "SIGKILL");
      for (const h of entry.helpers) killPid(h);
      if (entry.watchdog?.pid !== undefined) killPid(entry.watchdog.pid);
    }
    live.clear();
  };
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const handler = (): void => {
      killAll();
      if (process.listenerCount(signal) === 1) {
        process.off(signal, handler);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, handler);
  }
}

async function withTimeout(p: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!p) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Stops the browser and the server together and returns the process groups that outlived them
 * (a suite asserts this is empty: nothing may outlive it, on any path). Rethrows a failed stop
 * after both were attempted.
 */
export async function stopBrowserAndServer(
  chrome: ChromiumHandle | undefined,
  server: { pid: number; stop(): Promise<void> } | undefined,
): Promise<number[]> {
  const results = await Promise.allSettled([chrome?.close(), server?.stop()]);
  const left = [...(chrome ? groupMembers(chrome.pid) : []), ...(server ? groupMembers(server.pid) : [])];
  for (const r of results) if (r.status === "rejected") throw r.reason;
  return left;
}
