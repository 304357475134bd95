/**
 * One thread's share of a run: its players joined, driven and dropped as the load plan says,
 * their inputs on the fixed schedule, the rooms' tk:stats asked for, then drain and leave. In a
 * matchmaking run the players get their rooms from the matchmaker first (matchJoins.ts), and
 * one thread of the run samples the matchmaker's directory (matchmakerReads.ts).
 */
import type { RoomStatsSample } from "../live/series";
import { ThreadSampler, type ThreadTick } from "../live/threadTick";
import { inShard, roomId, roomUrl, type ResolvedConfig } from "../load/config";
import { buildPlan } from "../load/loadPlan";
import { ThreadMonitor, type ThreadHealth } from "../metrics/genHealth";
import type { DirectorySampleKind, MatchData } from "../metrics/matchMetrics";
import { RoomMetrics, type RoomData } from "../metrics/roomMetrics";
import { JsonClientContext, JsonSimClient } from "../players/jsonSimClient";
import { httpBase } from "../players/matchRequest";
import { FixedScheduler } from "../players/schedule";
import { ClientContext, SimClient } from "../players/simClient";
import { PHASE_STEP, type SimSocket, type SocketContext } from "../players/simSocket";
import { ticketPlayerId, type TicketSource } from "../players/tickets";
import { getScenario, isTextScenario, type AnyScenario } from "../scenarios/index";
import { Rng, playerSeed } from "../scenarios/rng";
import { MatchJoins, type MatchedSession } from "./matchJoins";
import { DirectorySampler, fetchRoomStatsHttp } from "./matchmakerReads";
import { STATS_SPACING_MS, fetchRoomStats, sampleRoomStats } from "./roomStatsRequests";
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

/** Live hooks of a shard: per-second ticks out, an abort signal in, join tickets. */
export interface ShardHooks {
  /** Called once per second with the thread's tick (see live/threadTick.ts). */
  onTick?: (tick: ThreadTick) => void;
  /** Encode the tick's histograms (for posting to another thread). */
  encodeTicks?: boolean;
  /** Aborting ends the window at once: inputs stop, the run drains and leaves as usual. */
  signal?: AbortSignal;
  /** Join tickets (production rooms); null = none. */
  tickets?: TicketSource | null;
}

/** What one thread measured: per-room metrics (mergeable) and its own health. */
export interface ShardResult {
  rooms: RoomData[];
  thread: ThreadHealth;
  clients: number;
  joined: number;
  /** tk:stats sampled during the run by this thread's stats-owning clients. */
  roomStats: RoomStatsSample[];
  /** Matchmaking runs: this thread's match requests (and, on one thread, the matchmaker's samples). */
  match?: MatchData;
}

/** Time to wait for each socket's close handshake after LEAVE before terminating it. */
const LEAVE_TIMEOUT_MS = 2_000;
/**
 * The fill sample is taken this long after the last planned arrival: the last requests are
 * answered by then (the directory counts a seat as reserved before its answer leaves).
 */
export const ARRIVALS_SETTLE_MS = 200;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** A timed action of the plan for this thread. */
interface PlanEvent {
  at: number;
  run: () => void;
}

/**
 * Drives this thread's clients through the whole run: joins and leaves as the load model plans
 * them, drops, fixed-schedule inputs until the window ends (or an abort), a bounded drain for
 * in-flight acks, one tk:stats request per owned room, then LEAVE and close. Every phase has a
 * deadline, so the run always ends by itself.
 */
export async function runShard(spec: ShardSpec, hooks: ShardHooks = {}): Promise<ShardResult> {
  const cfg = spec.config;
  const scenario = getScenario(cfg.scenario);
  const monitor = new ThreadMonitor();
  monitor.start();

  const plan = buildPlan(cfg);
  const t0 = spec.startAtEpochMs - performance.timeOrigin;
  const windowEnd = t0 + plan.windowMs;
  const scheduler = new FixedScheduler(windowEnd);

  const statsWaiters = new Map<number, (json: string) => void>();
  const { ctx, create } = clientFactory(cfg, scenario, scheduler, windowEnd, (id, json) => {
    statsWaiters.get(id)?.(json);
  });
  // A run that restarts its server: every dropped player comes back with its token, for as long
  // as a restart and the storm after it take.
  if (cfg.restartAtSec !== undefined) ctx.restartStorm = { startAtEpochMs: spec.startAtEpochMs, giveUpMs: RESTART_GIVE_UP_MS };

  // A matchmaking run learns its rooms from the matchmaker's answers.
  const rooms: RoomMetrics[] = [];
  for (let r = 0; r < (cfg.match ? 0 : cfg.rooms); r++) {
    const room = new RoomMetrics(roomId(cfg, r));
    for (const c of scenario.counters) room.scenario[c] = 0;
    rooms.push(room);
  }
  const urls = rooms.map((_, r) => roomUrl(cfg, r));

  const clients: SimSocket[] = [];
  const events: PlanEvent[] = [];
  let ended = false;
  let sampler: ThreadSampler | null = null;
  const matched = cfg.match
    ? new MatchJoins({
        config: cfg,
        rooms,
        clients,
        scenarioCounters: scenario.counters,
        create,
        onRoom: (room) => sampler?.watch(room),
        tickets: hooks.tickets ?? null,
        ended: () => ended,
      })
    : null;
  const join = (c: SimSocket, r: number): void => {
    if (ended) return;
    const tickets = hooks.tickets;
    if (!tickets) return c.connect();
    tickets.roomUrl(urls[r]!, cfg.roomKind, roomId(cfg, r), ticketPlayerId(cfg.runId, c.index)).then(
      (url) => (ended ? c.failBeforeConnect("ticket:run_ended") : c.connect(url)),
      (e: unknown) => c.failBeforeConnect(`ticket:${e instanceof Error ? e.message.slice(0, 40) : "error"}`),
    );
  };
  for (const pc of plan.clients) {
    if (!inShard(pc.index, spec.shard)) continue;
    if (matched) {
      const session: MatchedSession = { plan: pc, socket: null, gone: false };
      events.push({ at: t0 + pc.joinAtMs, run: () => (ended ? undefined : matched.arrive(session)) });
      if (pc.leaveAtMs !== null && pc.leaveAtMs < plan.windowMs) events.push({ at: t0 + pc.leaveAtMs, run: () => matched.leave(session, LEAVE_TIMEOUT_MS) });
      continue;
    }
    const room = rooms[pc.room]!;
    room.counters.planned++;
    const c = create(pc.index, room, urls[pc.room]!, new Rng(playerSeed(cfg.seed, pc.index)));
    clients.push(c);
    events.push({ at: t0 + pc.joinAtMs, run: () => join(c, pc.room) });
    if (pc.leaveAtMs !== null && pc.leaveAtMs < plan.windowMs) {
      events.push({ at: t0 + pc.leaveAtMs, run: () => void c.leave(LEAVE_TIMEOUT_MS, true) });
    }
  }
  for (const d of plan.drops) events.push({ at: t0 + d.atSec * 1000, run: () => dropShare(clients, d.pct) });
  events.sort((a, b) => a.at - b.at);

  if (hooks.onTick) sampler = new ThreadSampler(rooms, () => matched?.metrics.counters.unmatched ?? 0);
  const statsScope = { shard: spec.shard, timeoutMs: cfg.statsTimeoutMs };
  const roomStats: RoomStatsSample[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  /** Calls fn(k) at t0 + k·period (k = 1, 2, …) until the window ends; aligned, so no drift. */
  const every = (periodMs: number, fn: (k: number) => void): void => {
    let k = 1;
    const arm = (): void => {
      const t = setTimeout(() => {
        timers.delete(t);
        if (ended) return;
        fn(k++);
        arm();
      }, Math.max(0, t0 + k * periodMs - performance.now()));
      timers.add(t);
    };
    arm();
  };
  /** The next whole second a tick is due for (ticks cover seconds 1, 2, … of the window). */
  let nextTick = 1;
  const emitTick = (k: number): void => {
    nextTick = k + 1;
    hooks.onTick!(sampler!.tick(k, hooks.encodeTicks ?? false));
  };
  if (sampler) every(1000, emitTick);
  let lastStatsSampleAt = -Infinity;
  // The matchmaker's directory, sampled by one thread of the run: every few seconds (rooms above
  // their cap), right after the last planned arrival (the fill sample) and after the drain.
  const directory =
    matched && cfg.roomStats && spec.shard.index === 0 ? new DirectorySampler(httpBase(cfg.url), cfg.roomKind, cfg.statsTimeoutMs, matched.metrics) : null;
  const sampleDirectory = (kind: DirectorySampleKind): void => directory?.sample(kind, (performance.now() - t0) / 1000);
  if (directory) {
    if (cfg.statsEverySec > 0) every(cfg.statsEverySec * 1000, () => sampleDirectory("periodic"));
    const at = setTimeout(() => {
      timers.delete(at);
      if (!ended) sampleDirectory("arrivals_end");
    }, Math.max(0, t0 + plan.arrivalsEndMs + ARRIVALS_SETTLE_MS - performance.now()));
    timers.add(at);
  }
  if (!matched && cfg.roomStats && cfg.statsEverySec > 0) {
    every(cfg.statsEverySec * 1000, (k) => {
      if (performance.now() < windowEnd) {
        lastStatsSampleAt = performance.now();
        sampleRoomStats(statsScope, clients, rooms, statsWaiters, roomStats, k, (lastStatsSampleAt - t0) / 1000);
      }
    });
  }

  scheduler.start();
  const steady = new SteadyWindow();
  const steadyTimer = setTimeout(() => steady.mark(rooms, clients), Math.max(0, t0 + cfg.rampSec * 1000 - performance.now()));

  // The plan's events (joins, leaves, drops) walked by one timer in time order, until the window
  // ends or the run is aborted.
  await new Promise<void>((resolve) => {
    let next = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const finish = (): void => {
      if (ended) return;
      ended = true;
      if (timer) clearTimeout(timer);
      hooks.signal?.removeEventListener("abort", finish);
      resolve();
    };
    const step = (): void => {
      timer = null;
      const now = performance.now();
      while (next < events.length && events[next]!.at <= now) events[next++]!.run();
      if (now >= windowEnd) return finish();
      const wake = next < events.length ? Math.min(events[next]!.at, windowEnd) : windowEnd;
      timer = setTimeout(step, Math.max(0, wake - performance.now()));
    };
    if (hooks.signal?.aborted) return finish();
    hooks.signal?.addEventListener("abort", finish);
    step();
  });
  const stoppedAt = performance.now();
  if (stoppedAt < windowEnd) ctx.measureEndAt = stoppedAt;
  // The window's last whole second races the window's end: tick it here if its timer lost.
  if (sampler && nextTick * 1000 <= Math.min(stoppedAt, windowEnd) - t0 + 5) emitTick(nextTick);
  scheduler.stop();
  for (const t of timers) clearTimeout(t);
  clearTimeout(steadyTimer);
  // The steady window is the ramp model's (after the ramp, everyone seated); with stages, arrivals
  // or churn players come and go by design, so nobody is judged short of frames. An aborted run's
  // window ends at the abort.
  if (!cfg.turnBased && cfg.load.kind === "ramp" && !cfg.load.sessionMeanSec) {
    steady.finish(clients, Math.max(0, (Math.min(stoppedAt, windowEnd) - (t0 + cfg.rampSec * 1000)) / 1000));
  }

  // A window too short for the fill sample's settle time takes it now, before anyone leaves.
  if (directory && !directory.has("arrivals_end")) sampleDirectory("arrivals_end");
  // Match requests in flight at the end are answered (and their seats go unused), or time out.
  await matched?.settle(cfg.connectTimeoutMs + 1_000);

  // Drain: inputs sent just before the end deserve their ack; bounded by drainMs.
  const drainDeadline = performance.now() + cfg.drainMs;
  while (performance.now() < drainDeadline && clients.some((c) => c.joined && c.outstanding > 0)) await sleep(20);

  if (matched && cfg.roomStats) {
    // Every room this thread's players were sent to, whether or not one of them is still in it.
    sampleDirectory("end");
    await fetchRoomStatsHttp(httpBase(cfg.url), cfg.roomKind, rooms, cfg.statsTimeoutMs);
    await directory?.settle();
  } else if (cfg.roomStats) {
    // The room spaces stats replies per connection (minStatsIntervalMs, 250 ms) and answers an
    // early request with rate_limited instead: the final fetch must not follow the last periodic
    // sample too closely, or it would wait out its timeout for a reply that never comes.
    const wait = lastStatsSampleAt + STATS_SPACING_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await fetchRoomStats(statsScope, clients, rooms, statsWaiters, roomStats, (performance.now() - t0) / 1000);
  }
  sampler?.stop();

  await Promise.all(clients.map((c) => c.leave(LEAVE_TIMEOUT_MS)));

  const joined = rooms.reduce((s, r) => s + r.counters.joined, 0);
  return {
    rooms: rooms.filter((r) => r.counters.planned > 0 || r.tkStats !== null).map((r) => r.toData()),
    thread: monitor.stop(spec.thread, clients.length),
    clients: clients.length,
    joined,
    roomStats,
    ...(matched ? { match: matched.metrics.toData() } : {}),
  };
}

/** How long a player whose server went down keeps trying to come back (a `wrangler dev` start takes seconds). */
const RESTART_GIVE_UP_MS = 60_000;

/** Drops `pct`% of this thread's joined players at once (a fixed spread of them, not the first ones). */
function dropShare(clients: readonly SimSocket[], pct: number): void {
  const joined = clients.filter((c) => c.joined);
  const n = Math.round((joined.length * pct) / 100);
  joined.sort((a, b) => ((a.index * PHASE_STEP) % 1) - ((b.index * PHASE_STEP) % 1));
  for (let i = 0; i < n; i++) joined[i]!.drop();
}

/** Builds this thread's players in the scenario's wire mode, sharing one context. */
function clientFactory(
  cfg: ResolvedConfig,
  scenario: AnyScenario,
  scheduler: FixedScheduler,
  measureEndAt: number,
  onStats: (requestId: number, json: string) => void,
): { ctx: SocketContext; create: (index: number, room: RoomMetrics, url: string, rng: Rng) => SimSocket } {
  if (isTextScenario(scenario)) {
    const pace = cfg.turnBased;
    if (!pace) throw new Error(`${scenario.name} is turn-based but the config has no turnBased pacing`);
    const ctx = new JsonClientContext(scenario, scheduler, pace.thinkMs, pace.keepaliveMs, measureEndAt, cfg.connectTimeoutMs, onStats);
    return { ctx, create: (i, room, url, rng) => new JsonSimClient(i, room, ctx, url, rng) };
  }
  const ctx = new ClientContext(scenario, scheduler, 1000 / cfg.rate, measureEndAt, cfg.connectTimeoutMs, onStats);
  return { ctx, create: (i, room, url, rng) => new SimClient(i, room, ctx, url, rng) };
}
