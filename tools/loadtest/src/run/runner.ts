/**
 * One run in this process: resolve the config, drive the clients on this thread or on worker
 * threads, watch it live, and assemble the report from the threads' mergeable data.
 */
import { SpectatorSwarm, type SpectatorSummary } from "./spectatorSwarm";
import { LiveRun, type LiveOptions } from "../live/liveRun";
import { resolveConfig, type LoadConfig, type ResolvedConfig } from "../load/config";
import { ProcessMonitor } from "../metrics/genHealth";
import { generatorProcess } from "../metrics/generatorProcess";
import { mergeRoomsById } from "../metrics/mergeRoomData";
import { ticketMode, ticketSource, type TicketSpec } from "../players/tickets";
import { collectEnvironment } from "../report/environment";
import { assembleReport, type Report } from "../report/report";
import type { RestartTimes } from "../metrics/restartSummary";
import { isScenarioPath, loadScenarioFile } from "../scenarios/index";
import { httpBase } from "../players/matchRequest";
import { readPathStart, touchMatchmaker } from "./matchmakerReads";
import { runShard, type ShardResult } from "./shardRun";
import { runOnWorkers } from "./workers";

/** How a run is watched and joined, beyond its load (never written to the report). */
export interface RunOptions extends LiveOptions, RunHooks {
  /** Join tickets for production rooms (the secret stays out of the config). */
  tickets?: TicketSpec;
  /**
   * Per-second sampling (series, progress, live thresholds); default true. Off only to measure
   * what sampling costs the generator (`loadtest bench-live`, src/bench/liveOverhead.ts).
   */
  live?: boolean;
  /** A run that restarts its server: when it did, read once the run is over (see serverOptions.ts). */
  restartTimes?: () => RestartTimes;
}

/**
 * Runs one load test and returns its report (not written to disk; see writeReport). With
 * `workers` ≥ 2 the clients are spread over worker threads and their metrics merged exactly.
 */
export async function runLoad(config: LoadConfig, opts: RunOptions = {}): Promise<Report> {
  return runResolved(resolveConfig(await withScenarioFile({ ...config, tickets: config.tickets ?? ticketMode(opts.tickets) })), opts);
}

/** Loads a `scenario` given as a file path and points the config at it (name + absolute file). */
export async function withScenarioFile<C extends { scenario?: string; scenarioFile?: string }>(config: C): Promise<C> {
  const name = config.scenarioFile ?? config.scenario;
  if (!name || !isScenarioPath(name)) return config;
  const { scenario, file } = await loadScenarioFile(name);
  return { ...config, scenario: scenario.name, scenarioFile: file };
}

/** Observers of a run (e.g. server CPU sampling aligned with the run's timeline). */
export interface RunHooks {
  /** Called once the run's start time (epoch ms; joins begin then) is fixed, before any client connects. */
  onStart?: (startAtEpochMs: number) => void;
}

/** {@link runLoad} for an already resolved config (gates and sweeps resolve first to print it). */
export async function runResolved(cfg: ResolvedConfig, opts: RunOptions = {}): Promise<Report> {
  if (cfg.scenarioFile) await loadScenarioFile(cfg.scenarioFile);
  if ((cfg.tickets.mode === "none") !== (opts.tickets === undefined)) {
    throw new Error(cfg.tickets.mode === "none" ? "tickets given but the config says none" : "the config asks for tickets but none were given");
  }
  if (cfg.match) await touchMatchmaker(httpBase(cfg.url), cfg.roomKind, cfg.query, cfg.connectTimeoutMs);
  // The join path's start: what the gateway and the matchmaker had spent before the first arrival.
  const pathStart = cfg.match && cfg.roomStats ? await readPathStart(httpBase(cfg.url), cfg.roomKind, cfg.statsTimeoutMs) : null;
  const environment = collectEnvironment();
  const monitor = new ProcessMonitor();
  const live = new LiveRun(cfg, Math.max(1, cfg.workers >= 2 ? cfg.workers : 1), opts);
  const spectators = spectatorsFor(cfg);
  let results: ShardResult[];
  if (cfg.workers >= 2) {
    results = await runOnWorkers(
      cfg,
      cfg.workers,
      (startAt) => {
        monitor.start();
        opts.onStart?.(startAt);
      },
      { ...(opts.live === false ? {} : { live }), tickets: opts.tickets },
    );
  } else {
    monitor.start();
    // A short lead lets the event-loop monitor take its first sample before any load.
    const startAtEpochMs = cfg.startAtEpochMs ?? Date.now() + 50;
    opts.onStart?.(startAtEpochMs);
    results = [
      await runShard(
        { config: cfg, shard: cfg.shard, startAtEpochMs, thread: "main" },
        {
          ...(opts.live === false ? {} : { onTick: live.tickSink(0) }),
          signal: live.controller.signal,
          tickets: opts.tickets ? ticketSource(opts.tickets) : null,
        },
      ),
    ];
  }
  const spectated = spectators?.stop();
  const sampled = results.find((r) => r.match?.matchmaker || r.match?.gateway)?.match ?? results.find((r) => r.match)?.match;
  if (sampled && pathStart) sampled.pathStart = pathStart;
  const threads = results.map((r) => r.thread);
  const joined = results.reduce((s, r) => s + r.joined, 0);
  const process = monitor.stop(threads, joined);
  const shardRooms = results.flatMap((r) => r.rooms);
  const label = `shard ${cfg.shard.index}/${cfg.shard.count}`;
  const generator = generatorProcess(label, cfg.runId, shardRooms, threads, process);
  const report = assembleReport({
    name: cfg.name,
    config: cfg,
    environment,
    generators: [generator],
    rooms: mergeRoomsById(shardRooms),
    match: results.flatMap((r) => (r.match ? [r.match] : [])),
    ...(opts.restartTimes ? { restart: opts.restartTimes() } : {}),
  });
  if (spectated) report.summary.spectators = spectated;
  report.series = live.series(results.flatMap((r) => r.roomStats));
  if (live.aborted) report.aborted = live.aborted;
  return report;
}

/**
 * The run's spectators (`--spectators N`), opened once the players had time to join (half the
 * ramp, at most 5 s, after the run starts) and closed when the players are done.
 */
function spectatorsFor(cfg: ResolvedConfig): { stop(): SpectatorSummary } | null {
  if (cfg.spectators <= 0) return null;
  const swarm = new SpectatorSwarm(cfg);
  const leadMs = Math.min(5, cfg.load.kind === "ramp" ? cfg.rampSec / 2 : 1) * 1000;
  const timer = setTimeout(() => void swarm.start(), leadMs);
  return {
    stop: () => {
      clearTimeout(timer);
      return swarm.stop();
    },
  };
}
