import { resolveConfig, type LoadConfig, type ResolvedConfig } from "./config";
import { collectEnvironment } from "./environment";
import { ProcessMonitor } from "./genHealth";
import { mergeRoomsById } from "./metrics/mergeRoomData";
import { assembleReport, generatorProcess, type Report } from "./report";
import { runShard, type ShardResult } from "./shardRun";
import { runOnWorkers } from "./workers";

/**
 * Runs one load test and returns its report (not written to disk; see writeReport). With
 * `workers` ≥ 2 the clients are spread over worker threads and their metrics merged exactly.
 */
export async function runLoad(config: LoadConfig): Promise<Report> {
  return runResolved(resolveConfig(config));
}

/** Observers of a run (e.g. server CPU sampling aligned with the run's timeline). */
export interface RunHooks {
  /** Called once the run's start time (epoch ms; joins begin then) is fixed, before any client connects. */
  onStart?: (startAtEpochMs: number) => void;
}

/** {@link runLoad} for an already resolved config (gates and sweeps resolve first to print it). */
export async function runResolved(cfg: ResolvedConfig, hooks: RunHooks = {}): Promise<Report> {
  const environment = collectEnvironment();
  const monitor = new ProcessMonitor();
  let results: ShardResult[];
  if (cfg.workers >= 2) {
    results = await runOnWorkers(cfg, cfg.workers, (startAt) => {
      monitor.start();
      hooks.onStart?.(startAt);
    });
  } else {
    monitor.start();
    // A short lead lets the event-loop monitor take its first sample before any load.
    const startAtEpochMs = cfg.startAtEpochMs ?? Date.now() + 50;
    hooks.onStart?.(startAtEpochMs);
    results = [await runShard({ config: cfg, shard: cfg.shard, startAtEpochMs, thread: "main" })];
  }
  const threads = results.map((r) => r.thread);
  const joined = results.reduce((s, r) => s + r.joined, 0);
  const process = monitor.stop(threads, joined);
  const shardRooms = results.flatMap((r) => r.rooms);
  const label = `shard ${cfg.shard.index}/${cfg.shard.count}`;
  const generator = generatorProcess(label, cfg.runId, shardRooms, threads, process);
  return assembleReport({
    name: cfg.name,
    config: cfg,
    environment,
    generators: [generator],
    rooms: mergeRoomsById(shardRooms),
  });
}
