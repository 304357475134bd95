/**
 * Runs a load test while sampling a local server's CPU over the steady window (after the ramp,
 * for the measured duration), and starts a local `wrangler dev` for it when asked.
 */
import { startWranglerDev, type Affinity, type WranglerDevServer } from "@tikron/devserver";
import type { ResolvedConfig } from "../load/config";
import type { Report } from "../report/report";
import { attachServerCpu } from "../live/series";
import { runLoad, runResolved, type RunOptions } from "./runner";
import { steadyMessages } from "./steadyWindow";
import { ServerCpuSampler } from "../server/serverCpu";

/** The server whose CPU is read: the root pid (wrangler's; its process group holds workerd). */
export interface ServerTarget {
  pid: number;
  /** Pinning asked for when the tool started the server itself. */
  affinity?: Affinity;
}

/**
 * {@link runResolved} plus `report.server`: workerd CPU over the steady window and per message.
 * When the server's CPU cannot be read the run still happens and the section says why.
 */
export async function runWithServerCpu(cfg: ResolvedConfig, target: ServerTarget, opts: RunOptions = {}): Promise<Report> {
  const problem = ServerCpuSampler.problem(target.pid);
  const sampler = new ServerCpuSampler(target.pid);
  let sampling: Promise<void> | undefined;
  try {
    const report = await runResolved(cfg, {
      ...opts,
      serverCpuNow: () => sampler.latestCpuPct(),
      onStart: (startAt) => {
        opts.onStart?.(startAt);
        if (problem !== null) return;
        const steadyStart = startAt + cfg.rampSec * 1000;
        sampling = sampler.run(steadyStart, steadyStart + cfg.durationSec * 1000);
      },
    });
    if (sampling) await sampling;
    const server = sampler.result(steadyMessages(report.total.counters));
    if (problem !== null) server.warnings.unshift(problem);
    if (target.affinity) server.affinity = target.affinity;
    report.server = server;
    attachServerCpu(report);
    return report;
  } finally {
    sampler.cancel();
  }
}

/** Named configs for `--server`: anything else is a path to a wrangler config. */
export const SERVER_CONFIGS: Readonly<Record<string, string>> = {
  staging: "wrangler.staging.jsonc",
};

/** Options for {@link startLocalServer}. */
export interface LocalServerOptions {
  /** "staging" or a wrangler config path (absolute or relative to `root`). */
  config: string;
  /** Checkout to serve from (default: this repository). */
  root?: string;
  /** `taskset -c` CPU list for the server. */
  cpus?: string;
  /** How long a warm-up join may take before the server is given up (default 60 s). */
  warmupTimeoutMs?: number;
  /** Keep its state directory when it stops (a server the run restarts on the same storage). */
  keepState?: boolean;
}

/**
 * Starts `wrangler dev` on free loopback ports and waits until a room seats one player (the first
 * Durable Object request of a fresh workerd can be slow). The warm-up room is its own id, gone
 * before the measured run (its player leaves, so no seat is held).
 */
export async function startLocalServer(o: LocalServerOptions): Promise<WranglerDevServer> {
  const server = await startWranglerDev({ config: SERVER_CONFIGS[o.config] ?? o.config, root: o.root, cpus: o.cpus, keepState: o.keepState });
  try {
    const deadline = Date.now() + (o.warmupTimeoutMs ?? 60_000);
    for (;;) {
      const r = await runLoad({ url: server.wsUrl, players: 1, rooms: 1, durationSec: 0.3, rampSec: 0, roomStats: false, name: "warmup" });
      if (r.summary.clients.joined === 1) break;
      if (Date.now() > deadline) throw new Error(`no room seated a player within the warm-up: ${JSON.stringify(r.summary.failureReasons)}`);
      await new Promise((res) => setTimeout(res, 500));
    }
    return server;
  } catch (err) {
    await server.stop();
    throw err;
  }
}
