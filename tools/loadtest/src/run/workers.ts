import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ResolvedConfig } from "../load/config";
import type { LiveRun } from "../live/liveRun";
import type { ThreadTick } from "../live/threadTick";
import type { ShardResult, ShardSpec } from "./shardRun";
import type { TicketSpec } from "../players/tickets";

/**
 * Node flags that let a worker thread (or child process) load this tool's TypeScript: the tsx
 * loader, resolved to an absolute URL so it works whatever the current directory or test runner.
 */
export function tsxExecArgv(): string[] {
  const loader = createRequire(import.meta.url).resolve("tsx");
  return ["--import", pathToFileURL(loader).href];
}

/** How long a worker may take to load its modules before the run is abandoned. */
const READY_TIMEOUT_MS = 60_000;
/** Margin on top of the run's own phases before a silent worker is declared lost. */
const RESULT_MARGIN_MS = 30_000;

type WorkerMsg =
  | { type: "ready" }
  | { type: "tick"; tick: ThreadTick }
  | { type: "result"; result: ShardResult }
  | { type: "error"; message: string };

/** What a worker thread is started with. */
export interface WorkerInit {
  spec: Omit<ShardSpec, "startAtEpochMs">;
  tickets: TicketSpec | null;
  /** Post a tick every second (off only when measuring what sampling costs). */
  live: boolean;
}

/**
 * Runs machine shard `machineShard` of the run on K worker threads: worker w drives shard
 * (s + n·w) of (n·K), so threads and machines partition clients the same way. `beforeStart`
 * runs once every worker is loaded, with the run's start time (the process baseline for memory
 * is taken there).
 */
export async function runOnWorkers(
  cfg: ResolvedConfig,
  k: number,
  beforeStart: (startAtEpochMs: number) => void,
  extra: { live?: LiveRun; tickets?: TicketSpec } = {},
): Promise<ShardResult[]> {
  const n = cfg.shard.count;
  const workers: Worker[] = [];
  const ready: Promise<void>[] = [];
  const results: Promise<ShardResult>[] = [];
  try {
    for (let w = 0; w < k; w++) {
      const spec: Omit<ShardSpec, "startAtEpochMs"> = {
        config: cfg,
        shard: { index: cfg.shard.index + n * w, count: n * k },
        thread: `worker ${w + 1}/${k}`,
      };
      const init: WorkerInit = { spec, tickets: extra.tickets ?? null, live: extra.live !== undefined };
      const worker = new Worker(new URL("./workerMain.ts", import.meta.url), { workerData: init, execArgv: tsxExecArgv() });
      workers.push(worker);
      const sink = extra.live?.tickSink(w);
      let onReady!: () => void;
      ready.push(new Promise<void>((r) => (onReady = r)));
      results.push(
        new Promise<ShardResult>((resolve, reject) => {
          worker.on("message", (m: WorkerMsg) => {
            if (m.type === "ready") onReady();
            else if (m.type === "tick") sink?.(m.tick);
            else if (m.type === "result") resolve(m.result);
            else reject(new Error(`worker ${w + 1} failed: ${m.message}`));
          });
          worker.on("error", (e) => reject(e));
          worker.on("exit", (code) => reject(new Error(`worker ${w + 1} exited with code ${code} before reporting`)));
        }),
      );
    }
    await withTimeout(Promise.all(ready), READY_TIMEOUT_MS, "workers did not start");
    const startAtEpochMs = cfg.startAtEpochMs ?? Date.now() + 200;
    beforeStart(startAtEpochMs);
    for (const w of workers) w.postMessage({ type: "start", startAtEpochMs });
    extra.live?.controller.signal.addEventListener("abort", () => {
      for (const w of workers) w.postMessage({ type: "abort" });
    });
    const runMs =
      Math.max(0, startAtEpochMs - Date.now()) +
      (cfg.rampSec + cfg.durationSec) * 1000 +
      cfg.drainMs +
      cfg.statsTimeoutMs +
      cfg.connectTimeoutMs +
      RESULT_MARGIN_MS;
    return await withTimeout(Promise.all(results), runMs, "workers did not report in time");
  } finally {
    // Swallow the exit rejections that terminate() triggers on results already settled.
    for (const r of results) r.catch(() => {});
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} within ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
