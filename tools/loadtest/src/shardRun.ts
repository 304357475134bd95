import { ThreadMonitor, type ThreadHealth } from "./genHealth";
import { clientRoom, inShard, joinOffsetMs, roomId, roomUrl, statsOwner, totalClients, type ResolvedConfig } from "./config";
import { JsonClientContext, JsonSimClient } from "./jsonSimClient";
import { RoomMetrics, type RoomData } from "./metrics/roomMetrics";
import { Rng, playerSeed } from "./rng";
import { FixedScheduler } from "./schedule";
import { getScenario, isTextScenario, type AnyScenario } from "./scenarios/index";
import { ClientContext, SimClient } from "./simClient";
import type { SimSocket } from "./simSocket";
import { SteadyWindow } from "./steadyWindow";

/** One thread's share of a run. */
export interface ShardSpec {
  config: ResolvedConfig;
  /** Which clients this thread drives (see inShard). */
  shard: { index: number; count: number };
  /** Common start (epoch ms) so every thread and machine paces joins on the same timeline. */
  startAtEpochMs: number;
  /** Label of the thread in the report. */
  thread: string;
}

/** What one thread measured: per-room metrics (mergeable) and its own health. */
export interface ShardResult {
  rooms: RoomData[];
  thread: ThreadHealth;
  clients: number;
  joined: number;
}

/** Time to wait for each socket's close handshake after LEAVE before terminating it. */
const LEAVE_TIMEOUT_MS = 2_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * Drives this thread's clients through the whole run: paced joins, fixed-schedule inputs until
 * the window ends, a bounded drain for in-flight acks, one tk:stats request per owned room, then
 * LEAVE and close. Every phase has a deadline, so the run always ends by itself.
 */
export async function runShard(spec: ShardSpec): Promise<ShardResult> {
  const cfg = spec.config;
  const scenario = getScenario(cfg.scenario);
  const monitor = new ThreadMonitor();
  monitor.start();

  const t0 = spec.startAtEpochMs - performance.timeOrigin;
  const measureEndAt = t0 + (cfg.rampSec + cfg.durationSec) * 1000;
  const scheduler = new FixedScheduler(measureEndAt);

  const statsWaiters = new Map<number, (json: string) => void>();
  const newClient = clientFactory(cfg, scenario, scheduler, measureEndAt, (id, json) => {
    statsWaiters.get(id)?.(json);
  });

  const rooms: RoomMetrics[] = [];
  for (let r = 0; r < cfg.rooms; r++) {
    const room = new RoomMetrics(roomId(cfg, r));
    for (const c of scenario.counters) room.scenario[c] = 0;
    rooms.push(room);
  }
  const urls = rooms.map((_, r) => roomUrl(cfg, r));

  const clients: SimSocket[] = [];
  const joinAt: number[] = [];
  const total = totalClients(cfg);
  for (let i = 0; i < total; i++) {
    if (!inShard(i, spec.shard)) continue;
    const r = clientRoom(cfg, i);
    rooms[r].counters.planned++;
    clients.push(newClient(i, rooms[r], urls[r], new Rng(playerSeed(cfg.seed, i))));
    joinAt.push(t0 + joinOffsetMs(cfg, i));
  }

  scheduler.start();
  const steady = new SteadyWindow();
  const steadyTimer = setTimeout(() => steady.mark(rooms, clients), Math.max(0, t0 + cfg.rampSec * 1000 - performance.now()));

  // Joins: one timer walks the (already ordered) join times instead of one timer per client.
  let nextJoin = 0;
  await new Promise<void>((resolve) => {
    const step = (): void => {
      const now = performance.now();
      while (nextJoin < clients.length && joinAt[nextJoin] <= now) clients[nextJoin++].connect();
      if (nextJoin >= clients.length) resolve();
      else setTimeout(step, Math.max(0, joinAt[nextJoin] - performance.now()));
    };
    setTimeout(step, Math.max(0, (joinAt[0] ?? t0) - performance.now()));
  });

  await sleep(measureEndAt - performance.now());
  scheduler.stop();
  clearTimeout(steadyTimer);
  if (!cfg.turnBased) steady.finish(clients, cfg.durationSec);

  // Drain: inputs sent just before the end deserve their ack; bounded by drainMs.
  const drainDeadline = performance.now() + cfg.drainMs;
  while (performance.now() < drainDeadline && clients.some((c) => c.joined && c.outstanding > 0)) await sleep(20);

  if (cfg.roomStats) await fetchRoomStats(spec, clients, rooms, statsWaiters);

  await Promise.all(clients.map((c) => c.leave(LEAVE_TIMEOUT_MS)));

  const joined = rooms.reduce((s, r) => s + r.counters.joined, 0);
  return {
    rooms: rooms.filter((r) => r.counters.planned > 0 || r.tkStats !== null).map((r) => r.toData()),
    thread: monitor.stop(spec.thread, clients.length),
    clients: clients.length,
    joined,
  };
}

/** Builds this thread's players in the scenario's wire mode, sharing one context. */
function clientFactory(
  cfg: ResolvedConfig,
  scenario: AnyScenario,
  scheduler: FixedScheduler,
  measureEndAt: number,
  onStats: (requestId: number, json: string) => void,
): (index: number, room: RoomMetrics, url: string, rng: Rng) => SimSocket {
  if (isTextScenario(scenario)) {
    const pace = cfg.turnBased;
    if (!pace) throw new Error(`${scenario.name} is turn-based but the config has no turnBased pacing`);
    const ctx = new JsonClientContext(scenario, scheduler, pace.thinkMs, pace.keepaliveMs, measureEndAt, cfg.connectTimeoutMs, onStats);
    return (i, room, url, rng) => new JsonSimClient(i, room, ctx, url, rng);
  }
  const ctx = new ClientContext(scenario, scheduler, 1000 / cfg.rate, measureEndAt, cfg.connectTimeoutMs, onStats);
  return (i, room, url, rng) => new SimClient(i, room, ctx, url, rng);
}

/** One statsRequest per room this shard owns, from one joined client; bounded by statsTimeoutMs. */
async function fetchRoomStats(
  spec: ShardSpec,
  clients: readonly SimSocket[],
  rooms: readonly RoomMetrics[],
  waiters: Map<number, (json: string) => void>,
): Promise<void> {
  const cfg = spec.config;
  const pending: Promise<void>[] = [];
  for (let r = 0; r < rooms.length; r++) {
    if (!statsOwner(r, spec.shard)) continue;
    const room = rooms[r];
    const requestId = r + 1;
    const client = clients.find((c) => c.room === room && c.joined);
    if (!client) {
      room.tkStatsError = "no joined client in this room to ask";
      continue;
    }
    pending.push(
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(requestId);
          room.tkStatsError = `no stats reply within ${cfg.statsTimeoutMs} ms`;
          resolve();
        }, cfg.statsTimeoutMs);
        waiters.set(requestId, (json) => {
          clearTimeout(timer);
          waiters.delete(requestId);
          try {
            room.tkStats = { stats: JSON.parse(json) as unknown, fetchedAt: Date.now() };
          } catch {
            room.tkStatsError = "stats reply is not valid JSON";
          }
          resolve();
        });
        if (!client.requestStats(requestId)) {
          clearTimeout(timer);
          waiters.delete(requestId);
          room.tkStatsError = "stats request could not be sent";
          resolve();
        }
      }),
    );
  }
  await Promise.all(pending);
}
