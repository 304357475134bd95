import { randomBytes } from "node:crypto";
import { getScenario, isTextScenario } from "./scenarios/index";

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
  /** Inputs per second per player (default: the scenario's rate, 20 for agar). Not for turn-based scenarios. */
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
export function resolveConfig(c: LoadConfig): ResolvedConfig {
  const url = new URL(c.url);
  if (url.protocol !== "ws:" && url.protocol !== "wss:") throw new Error(`url must be ws:// or wss:// (got ${c.url})`);
  const scenarioName = c.scenario ?? "agar";
  const scenario = getScenario(scenarioName);
  const players = positiveInt("players", c.players);
  const rooms = positiveInt("rooms", c.rooms);
  const durationSec = nonNegative("durationSec", c.durationSec);
  if (durationSec <= 0) throw new Error("durationSec must be > 0");
  const storm = c.storm ?? false;
  const rampSec = storm ? 0 : nonNegative("rampSec", c.rampSec ?? players / 10);
  let rate = 0;
  let turnBased: ResolvedConfig["turnBased"];
  if (isTextScenario(scenario)) {
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
    if (!(rate > 0 && rate <= 1000)) throw new Error(`rate must be in (0, 1000] inputs/s (got ${rate})`);
  }
  const shard = c.shard ?? { index: 0, count: 1 };
  positiveInt("shard count", shard.count);
  if (!Number.isInteger(shard.index) || shard.index < 0 || shard.index >= shard.count) {
    throw new Error(`shard index must be in 0..${shard.count - 1} (got ${shard.index})`);
  }
  if (shard.count > 1 && !c.roomPrefix) {
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
  const query = (c.query ?? "").replace(/^\?/, "");
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
  };
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

/** Offset of client i's join from the run start (ms): evenly paced over the ramp. */
export function joinOffsetMs(cfg: Pick<ResolvedConfig, "rampSec" | "players" | "rooms">, i: number): number {
  const total = cfg.players * cfg.rooms;
  if (cfg.rampSec <= 0 || total <= 1) return 0;
  return (i * cfg.rampSec * 1000) / total;
}

/** Total simulated players of the run (all shards). */
export function totalClients(cfg: Pick<ResolvedConfig, "players" | "rooms">): number {
  return cfg.players * cfg.rooms;
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
