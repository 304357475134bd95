/**
 * What a matchmaking run's joins cost each object on their path (issue 32's measurement): the
 * thread time of the gateway, the matchmaker and the rooms, the storage writes (rows, bytes,
 * how many were confirmed, i.e. held the object's messages until durable) and the calls between
 * objects, per seated player. Read from the server's DEV_MODE figures: the gateway's
 * (`GET /gateway/stats`) and the matchmaker's (`GET /match/<kind>/stats`) before the first
 * arrival and after the drain, the difference being the run's; each room's from its final
 * tk:stats (the run's rooms are its own, made by it). Probes of stats are labelled apart by the
 * server and left out.
 */
import { at } from "./tkStats";
import { round2 } from "./round2";
import type { RoomData } from "./roomMetrics";

/** The writes of one kind (the server's `StorageMeter` counts). */
export interface WriteCounts {
  calls: number;
  confirmed: number;
  rows: number;
  bytes: number;
}

/** The gateway's figures at one moment (its isolate's). */
export interface GatewayReading {
  /** Busy ms by entry label (`request`, `stats`). */
  busy: Record<string, number>;
  /** Calls into objects and service bindings, by binding name. */
  objectCalls: Record<string, number>;
}

/** What one matchmaker shard's stats say it cost (`MatchmakerShardStats` holds these). */
export interface ShardCost {
  /** Its object's own time by entry label, ms. */
  busy?: Record<string, number>;
  /** Its storage writes by kind. */
  storage?: Record<string, WriteCounts>;
  /** Seat requests it sent to rooms. */
  reserves?: number;
}

/** The gateway's and matchmaker's figures before the first arrival. */
export interface PathStart {
  gateway: GatewayReading | null;
  matchmaker: ShardCost[] | null;
}

/** One object class's share of a join, per seated player. */
export interface PathPart {
  /** Thread time, ms. */
  ms: number;
  /** Storage writes by kind. */
  writes: Record<string, WriteCounts>;
}

/** The join path per seated player (and the run's totals it divides). */
export interface JoinPathSummary {
  /** Players welcomed into a seat by the run (the divisor). */
  seated: number;
  /**
   * Thread time per seated player on the join path, ms: the gateway's requests, the matchmaker's
   * calls, the rooms' requests, RPCs, socket messages and reports; null when a part is not measured.
   */
  ms: number | null;
  /** Confirmed storage writes per seated player, all objects. */
  confirmedWrites: number | null;
  gateway: PathPart | null;
  matchmaker: PathPart | null;
  /** The rooms' join-path part (requests, RPCs, sockets, reports) and, apart, their play and checkpoints. */
  rooms: (PathPart & { playMs: number; checkpointMs: number; otherMs: number }) | null;
  /** Calls between objects per seated player: gateway → matchmaker and rooms, matchmaker → rooms (seat requests), rooms → matchmaker (reports). */
  calls: { gatewayToMatchmaker: number; gatewayToRooms: number; matchmakerToRooms: number | null; roomsToMatchmaker: number | null } | null;
  /** What could not be read. */
  missing: string[];
}

/** Room entry labels on a join's path (the rest is play: ticks and flushes, checkpoints, links). */
const ROOM_JOIN_LABELS = ["request", "rpc", "socket", "report"] as const;

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

function entriesOf(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) if (typeof x === "number") out[k] = x;
  return out;
}

/** A `StorageCounts` object read leniently. */
export function readWrites(v: unknown): Record<string, WriteCounts> {
  const out: Record<string, WriteCounts> = {};
  if (!v || typeof v !== "object") return out;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const o = (x ?? {}) as Record<string, unknown>;
    out[k] = { calls: num(o.calls), confirmed: num(o.confirmed), rows: num(o.rows), bytes: num(o.bytes) };
  }
  return out;
}

/** The gateway's `GET /gateway/stats` answer read leniently, or null. */
export function readGatewayStats(v: unknown): GatewayReading | null {
  const o = v as Record<string, unknown> | null;
  if (!o || typeof o !== "object" || typeof o.busy !== "object" || o.busy === null) return null;
  return { busy: entriesOf((o.busy as Record<string, unknown>).entries), objectCalls: entriesOf(o.objectCalls) };
}

function addWrites(into: Record<string, WriteCounts>, from: Record<string, WriteCounts>, sign = 1): void {
  for (const [k, w] of Object.entries(from)) {
    const t = (into[k] ??= { calls: 0, confirmed: 0, rows: 0, bytes: 0 });
    t.calls += sign * w.calls;
    t.confirmed += sign * w.confirmed;
    t.rows += sign * w.rows;
    t.bytes += sign * w.bytes;
  }
}

function perSeated(w: Record<string, WriteCounts>, n: number): Record<string, WriteCounts> {
  const out: Record<string, WriteCounts> = {};
  for (const [k, c] of Object.entries(w)) out[k] = { calls: round3(c.calls / n), confirmed: round3(c.confirmed / n), rows: round3(c.rows / n), bytes: round2(c.bytes / n) };
  return out;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const sumLabels = (e: Record<string, number>, skip: readonly string[]): number => Object.entries(e).reduce((s, [k, v]) => (skip.includes(k) ? s : s + v), 0);
const confirmedOf = (w: Record<string, WriteCounts>): number => Object.values(w).reduce((s, c) => s + c.confirmed, 0);

/**
 * The join path of a run: its start and end readings and its rooms' final tk:stats, per seated
 * player. A run that `restarted` its server has none: its end readings are another instance's,
 * which saw the reconnects, not the joins.
 */
export function summarizeJoinPath(start: PathStart | null | undefined, endGateway: GatewayReading | null | undefined, endMatchmaker: readonly ShardCost[] | null, rooms: readonly RoomData[], seated: number, restarted = false): JoinPathSummary {
  if (restarted) {
    const missing = ["all of it: the server restarted during the run, and its figures after the restart are another instance's (the reconnects'); measure joins without --restart-at"];
    return { seated, ms: null, confirmedWrites: null, gateway: null, matchmaker: null, rooms: null, calls: null, missing };
  }
  const missing: string[] = [];
  const n = Math.max(1, seated);
  let gateway: PathPart | null = null;
  let gatewayCalls: Record<string, number> | null = null;
  if (start?.gateway && endGateway) {
    const ms = sumLabels(endGateway.busy, ["stats"]) - sumLabels(start.gateway.busy, ["stats"]);
    gateway = { ms: round3(ms / n), writes: {} };
    gatewayCalls = {};
    for (const [k, v] of Object.entries(endGateway.objectCalls)) gatewayCalls[k] = v - (start.gateway.objectCalls[k] ?? 0);
  } else missing.push("gateway (GET /gateway/stats)");
  let matchmaker: PathPart | null = null;
  let reserves: number | null = null;
  if (start?.matchmaker && endMatchmaker && endMatchmaker.every((s) => s.busy !== undefined)) {
    let ms = 0;
    const writes: Record<string, WriteCounts> = {};
    reserves = 0;
    for (const [i, end] of endMatchmaker.entries()) {
      const before = start.matchmaker[i];
      ms += sumLabels(end.busy ?? {}, ["stats"]) - sumLabels(before?.busy ?? {}, ["stats"]);
      addWrites(writes, end.storage ?? {});
      if (before?.storage) addWrites(writes, before.storage, -1);
      reserves += (end.reserves ?? 0) - (before?.reserves ?? 0);
    }
    matchmaker = { ms: round3(ms / n), writes: perSeated(writes, n) };
  } else missing.push("matchmaker (its busy time and writes in GET /match/<kind>/stats)");
  let roomsPart: JoinPathSummary["rooms"] = null;
  let reports: number | null = null;
  const withStats = rooms.filter((r) => r.tkStats);
  if (withStats.length > 0 && withStats.every((r) => at(r.tkStats!.stats, "busy.entries") !== undefined)) {
    let join = 0;
    let play = 0;
    let checkpoint = 0;
    let other = 0;
    const writes: Record<string, WriteCounts> = {};
    reports = 0;
    for (const r of withStats) {
      const e = entriesOf(at(r.tkStats!.stats, "busy.entries"));
      for (const [k, v] of Object.entries(e)) {
        if ((ROOM_JOIN_LABELS as readonly string[]).includes(k)) join += v;
        else if (k === "timer") play += v;
        else if (k === "checkpoint") checkpoint += v;
        else if (k !== "stats") other += v;
      }
      addWrites(writes, readWrites(at(r.tkStats!.stats, "adapter.storage")));
      reports += num(at(r.tkStats!.stats, "adapter.reports"));
    }
    roomsPart = { ms: round3(join / n), playMs: round3(play / n), checkpointMs: round3(checkpoint / n), otherMs: round3(other / n), writes: perSeated(writes, n) };
    if (withStats.length < rooms.length) missing.push(`${rooms.length - withStats.length} rooms' tk:stats`);
  } else missing.push("rooms (tk:stats busy.entries and adapter.storage)");
  const parts = [gateway, matchmaker, roomsPart];
  const whole = parts.every((p) => p !== null);
  return {
    seated,
    ms: whole ? round3(parts.reduce((s, p) => s + p!.ms, 0)) : null,
    confirmedWrites: matchmaker && roomsPart ? round3(confirmedOf(matchmaker.writes) + confirmedOf(roomsPart.writes)) : null,
    gateway,
    matchmaker,
    rooms: roomsPart,
    calls: gatewayCalls
      ? {
          gatewayToMatchmaker: round3((gatewayCalls.MATCHMAKER ?? 0) / n),
          gatewayToRooms: round3((gatewayCalls.ROOMS ?? 0) / n),
          matchmakerToRooms: reserves === null ? null : round3(reserves / n),
          roomsToMatchmaker: reports === null ? null : round3(reports / n),
        }
      : null,
    missing,
  };
}
