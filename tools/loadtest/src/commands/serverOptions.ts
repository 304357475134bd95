/**
 * The server options of commands: `run`'s (start a local wrangler dev, or read a given one's CPU)
 * and the core pinning of `ab`, `capacity` and `profile`, which start a fresh server per run.
 */
import { InvalidArgumentError, type Command } from "commander";
import type { ResolvedConfig } from "../load/config";
import type { Report } from "../report/report";
import { runResolved, type RunOptions } from "../run/runner";
import { runWithServerCpu, startLocalServer } from "../run/serverRun";
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
  if (o.serverPid !== undefined) return runWithServerCpu(cfg, { pid: o.serverPid }, opts);
  if (o.server === undefined) return runResolved(cfg, opts);
  log(`starting wrangler dev (${o.server})${o.serverCpus ? ` pinned to CPU ${o.serverCpus}` : ""}…`);
  const server = await startLocalServer({ config: o.server, cpus: o.serverCpus });
  try {
    const direct = o.viaDevProxy ? null : await workerEntryUrl(server.pid);
    if (!o.viaDevProxy && direct === null) throw new Error("the worker's entry socket was not found: run with --via-dev-proxy");
    const url = direct ?? server.wsUrl;
    log(`server ${url}${direct ? " (worker entry, past the dev proxy)" : ""} (pid ${server.pid}) ready`);
    return await runWithServerCpu({ ...cfg, url }, { pid: server.pid, affinity: server.affinity }, opts);
  } finally {
    await server.stop();
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
