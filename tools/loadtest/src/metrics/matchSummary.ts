/**
 * The figures of a matchmaking run, derived from its match data and its rooms' data (recomputed
 * after every merge, like the rest of the summary). Only the rooms this run's players were sent
 * to count: the directory samples list every room of the server.
 */
import { summarizeEncoded, type DurationSummary } from "./histogram";
import type { DirectoryRoom, MatchData } from "./matchMetrics";
import { summarizeJoinPath, type JoinPathSummary } from "./joinPath";
import type { RoomData } from "./roomMetrics";
import { round2 } from "./round2";
import { at } from "./tkStats";

/** How full the run's rooms were when arrivals ended (the matchmaker's directory then). */
export interface FillSample {
  /** When the sample was taken, seconds since the run's start. */
  atSec: number;
  /** The run's rooms the directory listed (a room nobody holds a seat in is not listed). */
  rooms: number;
  /** Rooms whose seats taken and held reached their cap. */
  full: number;
  /** Rooms with a free seat. */
  partlyFilled: number;
  /** full / rooms, %. */
  fillPct: number | null;
}

/** What the rooms' final tk:stats say of their seat reservations. */
export interface ReservationFates {
  /** Given up unused after their lifetime. */
  expired: number;
  /** Joins that named a reservation the room did not hold (closed 4020 `reservation_invalid`). */
  invalid: number;
  /** Still held when the stats were read, after every player of the run had joined or given up. */
  pendingAtEnd: number;
  /** expired + invalid + pendingAtEnd: seats the matchmaker reserved that nobody took. */
  lost: number;
}

/** The matchmaking part of a summary. */
export interface MatchSummary {
  requests: number;
  seats: number;
  refusals: number;
  retries: number;
  /** Matchmaker refusals by code. */
  refused: Record<string, number>;
  unmatched: number;
  unmatchedReasons: Record<string, number>;
  rejoins: number;
  /** Match request → its answer (ms). */
  requestMs: DurationSummary;
  /** Rooms this run's players were sent to. */
  roomsUsed: number;
  /** Rooms this run's requests created (answers with `created: true`). */
  roomsCreated: number;
  /** Null when no directory sample was taken at the end of arrivals. */
  fill: FillSample | null;
  /**
   * Seats above a room's cap: per room the larger of max(0, peakCcu − cap) from its final
   * tk:stats and the most its directory samples showed above the cap, summed. Null when a room's
   * tk:stats is missing and the directory showed nothing above a cap.
   */
  overCap: number | null;
  /** Null when a room's tk:stats is missing. */
  reservations: ReservationFates | null;
  /** The matchmaker's own view (its counters run from its object's start); null when not read. */
  matchmaker: { shards: number; decisionP99Ms: number | null; roomsCreated: number; requests: number; refused: Record<string, number> } | null;
  matchmakerError: string | null;
  /** What the joins cost each object on their path, per seated player (metrics/joinPath.ts). */
  joinPath: JoinPathSummary;
}

const count = (stats: unknown, path: string): number | null => {
  const v = at(stats, path);
  return typeof v === "number" && Number.isFinite(v) ? v : null;
};

/** Seats above the cap in one directory entry. */
const aboveCap = (r: DirectoryRoom): number => Math.max(0, r.clients + r.reserved - r.maxClients);

function fillOf(match: MatchData, ours: ReadonlySet<string>): FillSample | null {
  const sample = match.directory.find((d) => d.kind === "arrivals_end");
  if (!sample) return null;
  const rooms = sample.rooms.filter((r) => ours.has(r.roomId));
  const full = rooms.filter((r) => r.clients + r.reserved >= r.maxClients).length;
  return {
    atSec: sample.tSec,
    rooms: rooms.length,
    full,
    partlyFilled: rooms.length - full,
    fillPct: rooms.length ? round2((full / rooms.length) * 100) : null,
  };
}

function overCapOf(match: MatchData, rooms: readonly RoomData[]): number | null {
  const seen = new Map<string, number>();
  for (const d of match.directory) for (const r of d.rooms) seen.set(r.roomId, Math.max(seen.get(r.roomId) ?? 0, aboveCap(r)));
  let sum = 0;
  let missing = false;
  for (const room of rooms) {
    const dir = seen.get(room.roomId) ?? 0;
    const peak = room.tkStats ? count(room.tkStats.stats, "peakCcu") : null;
    const cap = room.tkStats ? count(room.tkStats.stats, "cap") : null;
    if (peak === null || cap === null) {
      missing = true;
      sum += dir;
    } else sum += Math.max(dir, Math.max(0, peak - cap));
  }
  return missing && sum === 0 ? null : sum;
}

function reservationsOf(rooms: readonly RoomData[]): ReservationFates | null {
  const out = { expired: 0, invalid: 0, pendingAtEnd: 0, lost: 0 };
  for (const room of rooms) {
    const s = room.tkStats?.stats;
    const expired = count(s, "reservations.expired");
    const invalid = count(s, "reservations.invalid");
    const pending = count(s, "reservations.pending");
    if (expired === null || invalid === null || pending === null) return null;
    out.expired += expired;
    out.invalid += invalid;
    out.pendingAtEnd += pending;
  }
  out.lost = out.expired + out.invalid + out.pendingAtEnd;
  return out;
}

/** The matchmaking figures of a run whose rooms are `rooms` (the room totals in `total`); `restarted`: the run restarted its server. */
export function summarizeMatch(match: MatchData, rooms: readonly RoomData[], total: RoomData, restarted = false): MatchSummary {
  const ours = new Set(rooms.map((r) => r.roomId));
  const mm = match.matchmaker;
  let matchmaker: MatchSummary["matchmaker"] = null;
  if (mm) {
    const refused: Record<string, number> = {};
    for (const s of mm) for (const [k, v] of Object.entries(s.refused)) refused[k] = (refused[k] ?? 0) + v;
    const p99s = mm.filter((s) => s.decision.count > 0).map((s) => s.decision.p99);
    matchmaker = {
      shards: mm.length,
      decisionP99Ms: p99s.length ? Math.max(...p99s) : null,
      roomsCreated: mm.reduce((a, s) => a + s.roomsCreated, 0),
      requests: mm.reduce((a, s) => a + (s.requests.match ?? 0), 0),
      refused,
    };
  }
  const c = match.counters;
  return {
    requests: c.requests,
    seats: c.seats,
    refusals: c.refusals,
    retries: c.retries,
    refused: match.refused,
    unmatched: c.unmatched,
    unmatchedReasons: match.unmatchedReasons,
    rejoins: c.rejoins,
    requestMs: summarizeEncoded(match.histograms.request),
    roomsUsed: rooms.length,
    roomsCreated: total.counters.matchCreated ?? 0,
    fill: fillOf(match, ours),
    overCap: rooms.length ? overCapOf(match, rooms) : null,
    reservations: rooms.length ? reservationsOf(rooms) : null,
    matchmaker,
    matchmakerError: match.matchmakerError,
    joinPath: summarizeJoinPath(match.pathStart, match.gateway, match.matchmaker, rooms, total.counters.joined, restarted),
  };
}
