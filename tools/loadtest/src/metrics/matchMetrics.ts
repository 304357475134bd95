/**
 * What a matchmaking run (`run --match`) measures besides its rooms: the players' match requests
 * (answers, refusals by code, retries, players never seated and why, the request's round trip),
 * and what the matchmaker itself said in DEV_MODE (its directory, sampled, and its own stats).
 * Per thread while the run goes ({@link MatchMetrics}); serializable and merged exactly across
 * threads and machines ({@link MatchData}, {@link mergeMatchData}). Time to seated is per room
 * (`RoomData.histograms.seated`): a player has a room once it is answered.
 */
import type { Histogram } from "hdr-histogram-js";
import { encodeHistogram, mergeEncoded, newHistogram, recordMs } from "./histogram";
import type { GatewayReading, PathStart, ShardCost } from "./joinPath";

/** Counters of the match requests of one thread (or several merged); summed on merge. */
export interface MatchCounters {
  /** Match requests sent, retries included. */
  requests: number;
  /** Requests answered with a seat. */
  seats: number;
  /** Requests the matchmaker refused (any code; retried or not). */
  refusals: number;
  /** Requests sent again after a refusal that said to retry (`rate_limited`, `unavailable`). */
  retries: number;
  /** Players (sessions) never answered with a seat; why: `unmatchedReasons`. */
  unmatched: number;
  /** Sessions that were rejoins (a player who left, matching again). */
  rejoins: number;
}

/** One room as a directory sample saw it (the matchmaker's view: seats taken and held). */
export interface DirectoryRoom {
  roomId: string;
  /** The matchmaker shard that listed it. */
  shard: number;
  /** Seats taken (connected or held for a reconnect). */
  clients: number;
  /** Seats held for reservations not used yet. */
  reserved: number;
  /** The room's cap. */
  maxClients: number;
}

/** When a directory sample was taken. */
export type DirectorySampleKind = "arrivals_end" | "periodic" | "end";

/** The matchmaker's directory at one moment (DEV_MODE `GET /match/<kind>/stats`). */
export interface DirectorySample {
  /** Seconds since the run's start. */
  tSec: number;
  /** `arrivals_end`: right after the last planned arrival (the fill sample); `periodic`; `end`: after the drain. */
  kind: DirectorySampleKind;
  /** Rooms listed, all shards (of every run the server holds). */
  listed: number;
  /** In the `arrivals_end` sample every room; in the others only rooms above their cap. */
  rooms: DirectoryRoom[];
}

/** One matchmaker shard's own stats (its counters run from the object's start, not the run's). */
export interface MatchmakerShardStats extends ShardCost {
  /** Requests by operation (`match`, `rooms`, …). */
  requests: Record<string, number>;
  /** Seats reserved and answered. */
  seated: number;
  /** Rooms it created. */
  roomsCreated: number;
  /** Seat requests a room refused (it then tried another). */
  roomRefusals: number;
  /** Answers refused, by code. */
  refused: Record<string, number>;
  /** Rooms in its directory. */
  rooms: number;
  /** Request → answer inside the matchmaker (ms). */
  decision: { count: number; p50: number; p95: number; p99: number; max: number };
}

/** Serializable, mergeable matchmaking data of a run (or of several threads or shards merged). */
export interface MatchData {
  counters: MatchCounters;
  /** Matchmaker refusals by code (every refused request, retried ones included). */
  refused: Record<string, number>;
  /** Why players were never seated: a final refusal's code, `timeout`, `network`, `http_<status>`, `session_ended`, `run_ended`, `ticket:…`. */
  unmatchedReasons: Record<string, number>;
  /** HdrHistogram V2 compressed base64, microseconds: match request sent → its answer (any). */
  histograms: { request: string };
  /** Directory samples (taken by one thread of the run). */
  directory: DirectorySample[];
  /** The matchmaker's stats after the drain, one entry per shard (one thread of the run asks). */
  matchmaker: MatchmakerShardStats[] | null;
  /** Why the matchmaker's stats or directory could not be read, when they could not. */
  matchmakerError: string | null;
  /** The gateway's and matchmaker's figures before the first arrival (the join path's start; metrics/joinPath.ts). */
  pathStart?: PathStart | null;
  /** The gateway's figures after the drain (read with the matchmaker's). */
  gateway?: GatewayReading | null;
}

/** All counters at zero. */
export function zeroMatchCounters(): MatchCounters {
  return { requests: 0, seats: 0, refusals: 0, retries: 0, unmatched: 0, rejoins: 0 };
}

function bump(map: Record<string, number>, key: string, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

/** The live matchmaking metrics of one generator thread. */
export class MatchMetrics {
  readonly counters: MatchCounters = zeroMatchCounters();
  readonly refused: Record<string, number> = {};
  readonly unmatchedReasons: Record<string, number> = {};
  readonly requestH: Histogram = newHistogram();
  readonly directory: DirectorySample[] = [];
  matchmaker: MatchmakerShardStats[] | null = null;
  matchmakerError: string | null = null;
  gateway: GatewayReading | null = null;

  /** A request got an answer (of any kind) after `ms`. */
  answered(ms: number): void {
    recordMs(this.requestH, ms);
  }

  /** The matchmaker refused a request with `code`. */
  refusal(code: string): void {
    this.counters.refusals++;
    bump(this.refused, code);
  }

  /** A player will never be seated, for `reason`. */
  unmatched(reason: string): void {
    this.counters.unmatched++;
    bump(this.unmatchedReasons, reason);
  }

  /** Snapshot in the serializable, mergeable form. */
  toData(): MatchData {
    return {
      counters: { ...this.counters },
      refused: { ...this.refused },
      unmatchedReasons: { ...this.unmatchedReasons },
      histograms: { request: encodeHistogram(this.requestH) },
      directory: [...this.directory],
      matchmaker: this.matchmaker,
      matchmakerError: this.matchmaker ? null : this.matchmakerError,
      gateway: this.gateway,
    };
  }
}

/**
 * Exact merge: counters and refusals summed, histograms merged bucket by bucket, directory
 * samples kept in time order, the matchmaker's stats from the part that read them (one does).
 */
export function mergeMatchData(parts: readonly MatchData[]): MatchData {
  const counters = zeroMatchCounters();
  const refused: Record<string, number> = {};
  const unmatchedReasons: Record<string, number> = {};
  for (const p of parts) {
    for (const k of Object.keys(counters) as (keyof MatchCounters)[]) counters[k] += p.counters[k] ?? 0;
    for (const [k, v] of Object.entries(p.refused)) bump(refused, k, v);
    for (const [k, v] of Object.entries(p.unmatchedReasons)) bump(unmatchedReasons, k, v);
  }
  const matchmaker = parts.find((p) => p.matchmaker)?.matchmaker ?? null;
  return {
    counters,
    refused,
    unmatchedReasons,
    histograms: { request: mergeEncoded(parts.map((p) => p.histograms.request)) },
    directory: parts.flatMap((p) => p.directory).sort((a, b) => a.tSec - b.tSec),
    matchmaker,
    matchmakerError: matchmaker ? null : (parts.find((p) => p.matchmakerError)?.matchmakerError ?? null),
    pathStart: parts.find((p) => p.pathStart)?.pathStart ?? null,
    gateway: parts.find((p) => p.gateway)?.gateway ?? null,
  };
}
