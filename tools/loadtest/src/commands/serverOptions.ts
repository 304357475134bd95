/**
 * The server options of commands: `run`'s (start a local wrangler dev, or read a given one's CPU)
 * and the core pinning of `ab`, `capacity` and `profile`, which start a fresh server per run.
 */
import { rmSync } from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import { startWranglerDev, type WranglerDevServer } from "@tikron/devserver";
import type { RestartTimes } from "../metrics/restartSummary";
import type { ResolvedConfig } from "../load/config";
import type { Report } from "../report/report";
import { runResolved, type RunOptions } from "../run/runner";
import { runWithServerCpu, SERVER_CONFIGS, startLocalServer } from "../run/serverRun";
import { defaultPinning, type Pinning } from "../server/pinning";
import { workerEntryUrl } from "../server/workerEntry";

/** Parsed values of {@link addServerOptions}. */
export interface ServerCliOptions {
  server?: string;
  serverPid?: number;
  serverCpus?: string;
  viaDevProxy?: boolean;
}

const pidArg = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 2) throw new InvalidArgumentError("server-pid must be a process id");
  return n;
};

/** Adds --server, --server-pid and --server-cpus to a command. */
export function addServerOptions(cmd: Command): Command {
  return cmd
    .option("--server <config>", "start a local wrangler dev for this run (\"staging\" or a wrangler config path) on free ports and read its CPU; overrides --url")
    .option("--server-pid <pid>", "read the CPU of this local wrangler dev (wrangler's pid / process group, or workerd's) over the steady window", pidArg)
    .option("--server-cpus <list>", "with --server: pin the server to these cores (taskset -c), e.g. 0")
    .option("--via-dev-proxy", "with --server: send through wrangler's dev proxy (the public port) instead of straight to the worker's entry socket");
}

/**
 * Runs `cfg` as the options say: against a server it starts (then stops), against a given pid
 * (sampling its CPU), or plainly. `log` gets progress lines.
 */
export async function runWithServerOptions(cfg: ResolvedConfig, o: ServerCliOptions, log: (line: string) => void, opts: RunOptions = {}): Promise<Report> {
  if (o.server !== undefined && o.serverPid !== undefined) throw new Error("--server and --server-pid exclude each other");
  if (o.serverCpus !== undefined && o.server === undefined) throw new Error("--server-cpus needs --server (a server the tool starts)");
  const restartAtSec = cfg.restartAtSec;
  if (restartAtSec !== undefined && o.server === undefined) throw new Error("--restart-at restarts the server the tool starts: it needs --server");
  if (o.serverPid !== undefined) return runWithServerCpu(cfg, { pid: o.serverPid }, opts);
  if (o.server === undefined) return runResolved(cfg, opts);
  log(`starting wrangler dev (${o.server})${o.serverCpus ? ` pinned to CPU ${o.serverCpus}` : ""}…`);
  const server = await startLocalServer({ config: o.server, cpus: o.serverCpus, keepState: restartAtSec !== undefined });
  const restart = restartAtSec === undefined ? null : new ServerRestart(server, restartAtSec, { config: SERVER_CONFIGS[o.server] ?? o.server, cpus: o.serverCpus }, log);
  try {
    // A restarted server's worker has another entry port; its public port (the dev proxy's) is the same.
    const direct = o.viaDevProxy || restart ? null : await workerEntryUrl(server.pid);
    if (!o.viaDevProxy && !restart && direct === null) throw new Error("the worker's entry socket was not found: run with --via-dev-proxy");
    const url = direct ?? server.wsUrl;
    log(`server ${url}${direct ? " (worker entry, past the dev proxy)" : ""} (pid ${server.pid}) ready${restart ? `; restarted ${restartAtSec} s into the run` : ""}`);
    return await runWithServerCpu({ ...cfg, url }, { pid: server.pid, affinity: server.affinity }, {
      ...opts,
      ...(restart ? { restartTimes: () => restart.times } : {}),
      onStart: (startAt) => {
        opts.onStart?.(startAt);
        restart?.schedule(startAt);
      },
    });
  } finally {
    if (restart) await restart.finish();
    else await server.stop();
  }
}

/**
 * The restart of a server the run started (`--restart-at`): at its time the server is stopped
 * (its process group killed, as a crash or `wrangler dev` stopping would) and started again on
 * the same port and state directory, so every Durable Object comes back from its storage.
 */
class ServerRestart {
  readonly times: RestartTimes;
  private current: WranglerDevServer;
  private done: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly first: WranglerDevServer,
    atSec: number,
    private readonly how: { config: string; cpus?: string },
    private readonly log: (line: string) => void,
  ) {
    this.current = first;
    this.times = { atSec, downAtSec: null, upAtSec: null, error: null };
  }

  /** Arms the restart for `atSec` after the run's start (epoch ms). */
  schedule(startAtEpochMs: number): void {
    const sec = () => Math.round(Date.now() - startAtEpochMs) / 1000;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.done = (async () => {
        try {
          await this.current.stop();
          this.times.downAtSec = sec();
          this.current = await startWranglerDev({ config: this.how.config, cpus: this.how.cpus, port: this.first.port, persistDir: this.first.persistDir, keepState: true });
          this.times.upAtSec = sec();
          this.log(`server restarted: down at ${this.times.downAtSec} s, answering again at ${this.times.upAtSec} s (pid ${this.current.pid})`);
        } catch (e) {
          this.times.error = e instanceof Error ? e.message.slice(0, 300) : String(e);
          this.log(`server restart failed: ${this.times.error}`);
        }
      })();
    }, Math.max(0, startAtEpochMs + this.times.atSec * 1000 - Date.now()));
  }

  /** Waits for a restart under way, stops the server and removes its state directory. */
  async finish(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.done;
    await this.current.stop();
    await this.first.stop();
    rmSync(this.first.persistDir, { recursive: true, force: true });
  }
}

/** Pinning from the command's options: the default split, none, or explicit core lists. */
export function pinningFrom(o: { pin: boolean; serverCpus?: string; generatorCpus?: string; viaDevProxy?: boolean }): Pinning {
  const hop = o.viaDevProxy ? "dev-proxy" : "direct";
  if (!o.pin) return { serverCpus: null, generatorCpus: null, note: "pinning turned off (--no-pin)", hop };
  const d = defaultPinning();
  if (o.serverCpus === undefined && o.generatorCpus === undefined) return { ...d, hop };
  if (d.serverCpus === null && d.note?.startsWith("taskset")) return { ...d, hop };
  return { serverCpus: o.serverCpus ?? d.serverCpus, generatorCpus: o.generatorCpus ?? d.generatorCpus, hop };
}

/** Adds the pinning options of the commands that start a fresh server per run (`ab`, `capacity`, `profile`). */
export function addPinningOptions(cmd: Command): Command {
  return cmd
    .option("--no-pin", "do not pin server and generator to separate cores")
    .option("--server-cpus <list>", "cores for wrangler/workerd (default: the first online core when there are ≥ 2)")
    .option("--generator-cpus <list>", "cores for the generator's process (default: the other cores)")
    .option("--via-dev-proxy", "send through wrangler's dev proxy (the public port) instead of straight to the worker's entry socket; the proxy is not on the edge and shares the generator's core");
}
