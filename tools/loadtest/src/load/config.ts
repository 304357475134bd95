/**
 * What to run: the load config as given (LoadConfig), its one resolution with every default and
 * check (ResolvedConfig, recorded in the report), and the room ids, URLs and shards derived from it.
 */
import { randomBytes } from "node:crypto";
import type { TicketMode } from "../players/tickets";
import { getScenario, isTextScenario } from "../scenarios/index";
import { parseThresholds } from "../thresholds/parse";
import { windowSec, type DropSpec, type LoadModel, type Stage } from "./loadPlan";

/** What to run. Only `url`, `players`, `rooms` and `durationSec` are required. */
export interface LoadConfig {
  /** Base URL of the room server: ws://127.0.0.1:8787 or wss://… (path and query are added). */
  url: string;
  /** Scenario name (default "agar"). */
  scenario?: string;
  /** Simulated players per room. Above the room's cap, the excess is expected to be refused. */
  players: number;
  rooms: number;
  /** Steady phase after the ramp, in seconds; inputs stop when it ends. */
  durationSec: number;
  /** Joins are paced evenly over this many seconds. Default: players/10 (10 joins/s per room). */
  rampSec?: number;
  /** All joins at once (overrides rampSec). */
  storm?: boolean;
  /** Inputs per second per player (default: the scenario's rate, 20 for agar; 0: idle players, who join and read but send nothing). Not for turn-based scenarios. */
  rate?: number;
  /** Turn-based scenarios: delay between seeing your turn (or the round's end) and acting, ms (default 1000). */
  thinkMs?: number;
  /** Turn-based scenarios: keepalive ping period, ms (default 2000, the client SDK's; 0 = none). */
  keepaliveMs?: number;
  /** Room ids are `<roomPrefix>-<n>`. Default: a fresh `lt-<runId>` so no earlier room is reused. */
  roomPrefix?: string;
  /** Query string appended to every room URL (DEV_MODE overrides: tickMs, syncIntervalMs, cap, ...). */
  query?: string;
  /** Spread clients over this many worker threads (0 or 1: the current thread). */
  workers?: number;
  /** This process runs shard `index` of `count` (machines); clients i with i % count == index. */
  shard?: { index: number; count: number };
  /** Common start time (epoch ms) so shards on several machines ramp together. */
  startAtEpochMs?: number;
  /** Report name (file name suffix). */
  name?: string;
  /** PRNG seed for steering (default: random, recorded in the report). */
  seed?: number;
  /** Per-client deadline from connect to welcome (ms). */
  connectTimeoutMs?: number;
  /** After the last input, wait up to this long for outstanding acks (ms). */
  drainMs?: number;
  /** How long to wait for each room's tk:stats reply (ms). */
  statsTimeoutMs?: number;
  /** Fetch each room's tk:stats at the end (default true). */
  roomStats?: boolean;
  /** Also sample each room's tk:stats every this many seconds during the run (default 5; 0 = only at the end). */
  statsEverySec?: number;
  /** Spectators beside the players (`--spectators N`), spread over the rooms; 0: none. */
  spectators?: number;
  /**
   * Seconds behind the live match each spectator asks for (`--spectator-delay`). Default 2: a
   * watched match is broadcast with a delay, and a delayed spectator gets its frames in bundles
   * (protocol bundle.ts: 4 frames a message at 2 s); 0 watches live, one frame a message.
   */
  spectatorDelaySec?: number;
  /** Stages (per-room targets over time) instead of one ramp; see loadPlan.ts. */
  stages?: Stage[];
  /** Open model: joins per second across all rooms for `durationSec`, whatever the server does. */
  arrivalRate?: number;
  /** Open model: new players in all (default: arrival rate × duration); the window may run on after the last. */
  arrivals?: number;
  /** Churn: exponential session lengths with this mean (s). */
  sessionMeanSec?: number;
  /** Open model with churn: the share (%) of leaving players who come back shortly after (see loadPlan.ts). */
  rejoinPct?: number;
  /**
   * Matchmaking: every player gets its room from the matchmaker of the scenario's room kind
   * (`POST /match/<kind>`, joinOrCreate; `query` is sent as the request's DEV_MODE overrides)
   * and joins with the reservation it answers. `rooms` must be 1: the matchmaker picks rooms.
   */
  match?: boolean;
  /** Reconnect storms: drop `pct`% of the joined sockets `atSec` into the run. */
  drops?: DropSpec[];
  /**
   * A server restart's storm: this many seconds into the run the tool restarts the server it
   * started (`--server`; same port and state directory), and every player whose socket drops
   * comes back with its seat token (see `runWithServerOptions`).
   */
  restartAtSec?: number;
  /** Pass/fail rules in the threshold language (see thresholds/figures.ts for the names). */
  thresholds?: string[];
  /** Stop the run as soon as a live-evaluable threshold fails (after `abortGraceSec`). */
  abortOnFail?: boolean;
  /** No live abort before this many seconds into the run (default 5). */
  abortGraceSec?: number;
  /** Absolute path of a scenario file (set by loadScenarioFile; worker threads import it). */
  scenarioFile?: string;
  /** How players get join tickets (the secret itself is never part of the config). */
  tickets?: TicketMode;
}

/** A config with every default filled in, as recorded in the report. */
export interface ResolvedConfig {
  url: string;
  scenario: string;
  roomKind: string;
  players: number;
  rooms: number;
  durationSec: number;
  rampSec: number;
  storm: boolean;
  /** Inputs per second per player; 0 for turn-based scenarios, which are paced by `turnBased`. */
  rate: number;
  /** Present only for turn-based (text-mode) scenarios. */
  turnBased?: { thinkMs: number; keepaliveMs: number };
  runId: string;
  roomPrefix: string;
  query: string;
  workers: number;
  shard: { index: number; count: number };
  startAtEpochMs: number | null;
  name: string;
  seed: number;
  connectTimeoutMs: number;
  drainMs: number;
  statsTimeoutMs: number;
  roomStats: boolean;
  statsEverySec: number;
  /** Spectators beside the players (0: none) and the delay they ask for (run/spectatorSwarm.ts). */
  spectators: number;
  spectatorDelaySec: number;
  /** Who joins when (ramp, stages, open arrival; sessions; rejoins; drops). */
  load: LoadModel;
  /** Players get their rooms from the matchmaker (`run --match`); absent in reports of runs without. */
  match?: boolean;
  /** Seconds into the run the server is restarted (`--restart-at`); absent otherwise. */
  restartAtSec?: number;
  thresholds: string[];
  abortOnFail: boolean;
  abortGraceSec: number;
  scenarioFile: string | null;
  tickets: TicketMode;
}

function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer (got ${v})`);
  return v;
}

function nonNegative(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a non-negative number (got ${v})`);
  return v;
}

/** A fresh run id: time-ordered and unique enough that two runs never share a room. */
export function newRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

/** Fills defaults and validates; throws a message naming the bad option. */
/** The spectators' delay when a run names none (see {@link LoadConfig.spectatorDelaySec}). */
export const DEFAULT_SPECTATOR_DELAY_SEC = 2;

export function resolveConfig(c: LoadConfig): ResolvedConfig {
  const url = new URL(c.url);
  if (url.protocol !== "ws:" && url.protocol !== "wss:") throw new Error(`url must be ws:// or wss:// (got ${c.url})`);
  const scenarioName = c.scenario ?? "agar";
  const scenario = getScenario(scenarioName);
  const rooms = positiveInt("rooms", c.rooms);
  const load = resolveLoadModel(c);
  const match = c.match ?? false;
  if (match) {
    if (rooms !== 1) throw new Error("--match: the matchmaker picks the rooms; leave --rooms at 1");
    if (c.roomPrefix !== undefined) throw new Error("--match: the matchmaker names the rooms; --room-prefix does not apply");
    if (load.drops.length > 0) throw new Error("--match: reconnect storms (--drop) are not modelled for matched players");
  } else if (load.rejoinPct !== undefined) {
    throw new Error("--rejoin: players come back through the matchmaker; it needs --match");
  }
  // Stages set the peak per room; the open model's nominal players are its arrivals per room.
  const players =
    load.kind === "stages"
      ? positiveInt("peak stage target", Math.max(...load.stages!.map((s) => s.target)))
      : load.kind === "open"
        ? Math.max(1, Math.ceil((load.arrivals ?? load.arrivalRate! * c.durationSec) / rooms))
        : positiveInt("players", c.players);
  const durationSec = load.kind === "stages" ? windowSec({ rampSec: 0, durationSec: 0, load }) : nonNegative("durationSec", c.durationSec);
  if (durationSec <= 0) throw new Error("durationSec must be > 0");
  const storm = c.storm ?? false;
  const rampSec = storm || load.kind !== "ramp" ? 0 : nonNegative("rampSec", c.rampSec ?? players / 10);
  let rate = 0;
  let turnBased: ResolvedConfig["turnBased"];
  if (isTextScenario(scenario)) {
    if (load.drops.length > 0) throw new Error(`${scenario.name} is a text-mode scenario: reconnect storms (--drop) need a binary scenario`);
    if (c.rate !== undefined) throw new Error(`${scenario.name} is turn-based: it is paced by thinkMs (--think-ms), not rate`);
    const thinkMs = nonNegative("thinkMs", c.thinkMs ?? scenario.defaultThinkMs);
    const keepaliveMs = nonNegative("keepaliveMs", c.keepaliveMs ?? scenario.defaultKeepaliveMs);
    // Faster than one ping per 20 ms (50/s), pings alone would use up most of the room's
    // per-socket budget of 60 messages/s and the player's moves would be dropped.
    if (keepaliveMs > 0 && keepaliveMs < 20) throw new Error(`keepaliveMs must be 0 (off) or >= 20 (got ${keepaliveMs})`);
    turnBased = { thinkMs, keepaliveMs };
  } else {
    if (c.thinkMs !== undefined || c.keepaliveMs !== undefined) {
      throw new Error(`thinkMs and keepaliveMs apply to turn-based scenarios only, not ${scenario.name}`);
    }
    rate = c.rate ?? scenario.defaultRate;
    if (!(rate >= 0 && rate <= 1000)) throw new Error(`rate must be in [0, 1000] inputs/s, 0 for idle players (got ${rate})`);
  }
  if (c.restartAtSec !== undefined) {
    if (isTextScenario(scenario)) throw new Error(`${scenario.name} is a text-mode scenario: a restart's reconnect storm needs a binary scenario`);
    if (!(c.restartAtSec > 0 && c.restartAtSec < rampSec + durationSec)) throw new Error(`restart-at must fall inside the run (0, ${rampSec + durationSec}) s (got ${c.restartAtSec})`);
  }
  const shard = c.shard ?? { index: 0, count: 1 };
  positiveInt("shard count", shard.count);
  if (!Number.isInteger(shard.index) || shard.index < 0 || shard.index >= shard.count) {
    throw new Error(`shard index must be in 0..${shard.count - 1} (got ${shard.index})`);
  }
  if (shard.count > 1 && !c.roomPrefix && !match) {
    throw new Error("a sharded run needs --room-prefix shared by every shard (otherwise shards load different rooms)");
  }
  if (shard.count > 1 && c.startAtEpochMs === undefined) {
    throw new Error("a sharded run needs --start-at shared by every shard (otherwise their ramps do not line up)");
  }
  if (c.startAtEpochMs !== undefined && c.startAtEpochMs < Date.now() - 5_000) {
    throw new Error(`start-at ${new Date(c.startAtEpochMs).toISOString()} is in the past`);
  }
  const runId = newRunId();
  const workers = c.workers ?? 0;
  if (!Number.isInteger(workers) || workers < 0 || workers > 64) throw new Error(`workers must be 0..64 (got ${workers})`);
  const query = [scenario.wire === "json" ? "" : (scenario.query ?? ""), (c.query ?? "").replace(/^\?/, "")].filter(Boolean).join("&");
  const thresholds = [...(scenario.wire === "json" ? [] : (scenario.thresholds ?? [])), ...(c.thresholds ?? [])];
  parseThresholds(thresholds);
  const abortGraceSec = nonNegative("abortGraceSec", c.abortGraceSec ?? 5);
  const statsEverySec = nonNegative("statsEverySec", c.statsEverySec ?? 5);
  if (statsEverySec > 0 && statsEverySec < 1) throw new Error("statsEverySec must be 0 (off) or >= 1 (the room spaces stats replies)");
  const tickets = c.tickets ?? { mode: "none" };
  if (tickets.mode === "url") new URL(tickets.url);
  return {
    url: c.url.replace(/\/+$/, ""),
    scenario: scenario.name,
    roomKind: scenario.roomKind,
    players,
    rooms,
    durationSec,
    rampSec,
    storm,
    rate,
    ...(turnBased ? { turnBased } : {}),
    runId,
    roomPrefix: c.roomPrefix ?? `lt-${runId}`,
    query,
    workers,
    shard,
    startAtEpochMs: c.startAtEpochMs ?? null,
    name: c.name ?? "run",
    seed: (c.seed ?? randomBytes(4).readUInt32LE(0)) >>> 0,
    connectTimeoutMs: c.connectTimeoutMs ?? 10_000,
    drainMs: c.drainMs ?? 3_000,
    statsTimeoutMs: c.statsTimeoutMs ?? 5_000,
    roomStats: c.roomStats ?? true,
    statsEverySec,
    spectators: nonNegative("spectators", c.spectators ?? 0),
    spectatorDelaySec: nonNegative("spectatorDelaySec", c.spectatorDelaySec ?? DEFAULT_SPECTATOR_DELAY_SEC),
    load,
    ...(match ? { match } : {}),
    ...(c.restartAtSec !== undefined ? { restartAtSec: c.restartAtSec } : {}),
    thresholds,
    abortOnFail: c.abortOnFail ?? false,
    abortGraceSec,
    scenarioFile: c.scenarioFile ?? null,
    tickets,
  };
}

/** Picks and checks the load model: at most one of stages / arrival rate; sessions and drops on top. */
function resolveLoadModel(c: LoadConfig): LoadModel {
  if (c.stages && c.arrivalRate !== undefined) throw new Error("--stages and --arrival-rate are two different load models: pick one");
  if ((c.stages || c.arrivalRate !== undefined) && (c.storm || c.rampSec !== undefined)) {
    throw new Error("--ramp/--storm apply to the default model only (stages and arrival rate pace joins themselves)");
  }
  const drops = (c.drops ?? []).map((d) => {
    if (!(d.pct > 0 && d.pct <= 100)) throw new Error(`drop share must be in (0, 100]% (got ${d.pct})`);
    return { pct: d.pct, atSec: nonNegative("drop time", d.atSec) };
  });
  const sessionMeanSec = c.sessionMeanSec === undefined ? undefined : nonNegative("sessionMeanSec", c.sessionMeanSec);
  if (sessionMeanSec !== undefined && sessionMeanSec < 1) throw new Error("sessionMeanSec must be >= 1 s");
  if (c.rejoinPct !== undefined) {
    if (!(c.rejoinPct >= 0 && c.rejoinPct <= 100)) throw new Error(`rejoinPct must be in 0..100 (got ${c.rejoinPct})`);
    if (c.arrivalRate === undefined || !sessionMeanSec) throw new Error("--rejoin brings back players who left: it needs the open model (--arrival-rate) with --session-mean");
  }
  if (c.arrivals !== undefined && c.arrivalRate === undefined) throw new Error("--arrivals counts the open model's new players: it needs --arrival-rate");
  const extra = { drops, ...(sessionMeanSec ? { sessionMeanSec } : {}), ...(c.rejoinPct !== undefined ? { rejoinPct: c.rejoinPct } : {}) };
  if (c.stages) {
    if (c.stages.length === 0) throw new Error("stages must not be empty");
    for (const s of c.stages) {
      nonNegative("stage duration", s.durationSec);
      if (!Number.isInteger(s.target) || s.target < 0) throw new Error(`stage target must be a non-negative integer (got ${s.target})`);
    }
    if (!c.stages.some((s) => s.target > 0)) throw new Error("at least one stage needs a target above 0");
    return { kind: "stages", stages: c.stages.map((s) => ({ ...s })), ...extra };
  }
  if (c.arrivalRate !== undefined) {
    if (!(c.arrivalRate > 0 && c.arrivalRate <= 1000)) throw new Error(`arrivalRate must be in (0, 1000] joins/s (got ${c.arrivalRate})`);
    if (c.arrivals === undefined) return { kind: "open", arrivalRate: c.arrivalRate, ...extra };
    positiveInt("arrivals", c.arrivals);
    // The last arrival joins at (arrivals − 1) / rate: it must fall inside the window.
    if ((c.arrivals - 1) / c.arrivalRate >= c.durationSec) {
      throw new Error(`${c.arrivals} arrivals at ${c.arrivalRate}/s take ${Math.ceil((c.arrivals - 1) / c.arrivalRate)} s: lengthen --duration`);
    }
    return { kind: "open", arrivalRate: c.arrivalRate, arrivals: c.arrivals, ...extra };
  }
  return { kind: "ramp", ...extra };
}

/** A base query string with the keys of `extra` layered on top (DEV_MODE overrides of a sweep entry, an A/B side, a capacity point). */
export function mergeQuery(base: string | undefined, extra: string | undefined): string {
  const q = new URLSearchParams(base ?? "");
  for (const [k, v] of new URLSearchParams(extra ?? "")) q.set(k, v);
  return q.toString();
}

/** Id of room `r` (0-based). */
export function roomId(cfg: Pick<ResolvedConfig, "roomPrefix">, r: number): string {
  return `${cfg.roomPrefix}-${r}`;
}

/** WebSocket URL of room `r`. */
export function roomUrl(cfg: Pick<ResolvedConfig, "url" | "roomKind" | "roomPrefix" | "query">, r: number): string {
  const base = `${cfg.url}/rooms/${encodeURIComponent(cfg.roomKind)}/${encodeURIComponent(roomId(cfg, r))}`;
  return cfg.query ? `${base}?${cfg.query}` : base;
}

/**
 * Global join order: rooms fill in parallel (client i goes to room i % rooms), so a ramp loads
 * every room at the same pace and capacity refusals hit every room at the same time.
 */
export function clientRoom(cfg: Pick<ResolvedConfig, "rooms">, i: number): number {
  return i % cfg.rooms;
}

/**
 * Whether client i belongs to shard (index, count). Worker threads inside a machine shard are
 * shards too: worker w of K inside machine shard s of n is shard s + n·w of n·K.
 */
export function inShard(i: number, shard: { index: number; count: number }): boolean {
  return i % shard.count === shard.index;
}

/**
 * The shard that fetches room r's tk:stats: the one holding the room's first client (i = r),
 * which is also the first to join, so exactly one statsRequest per room even across machines.
 */
export function statsOwner(r: number, shard: { index: number; count: number }): boolean {
  return inShard(r, shard);
}
