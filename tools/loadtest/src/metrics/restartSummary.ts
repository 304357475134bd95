/**
 * A run that restarted its server (`--restart-at`): when the server went down and answered again,
 * how long after that each dropped player was welcomed back (`RoomData.histograms.reconnectAt`,
 * shifted to the moment the server answered), and whether each room that came back with its seats
 * came back with its world too (the restored room's tk:stats `restoredSeats`, `restoredGames`).
 */
import { summarizeEncoded, type DurationSummary } from "./histogram";
import type { RoomData } from "./roomMetrics";
import { at } from "./tkStats";
import { round2 } from "./round2";

/** When the tool restarted the server, seconds since the run's start (null: it did not get that far). */
export interface RestartTimes {
  /** When the restart was asked for. */
  atSec: number;
  /** When the old server was gone. */
  downAtSec: number | null;
  /** When the new one answered `GET /health`. */
  upAtSec: number | null;
  /** Why the restart failed, if it did. */
  error: string | null;
}

/** The restart's figures. */
export interface RestartSummary extends RestartTimes {
  /** Server answering again → each dropped player's welcome (ms); null when nobody came back. */
  backMs: DurationSummary | null;
  /**
   * Rooms whose final tk:stats show seats restored (`restoredSeats` ≥ 1): the rooms that had
   * seated players when the server went down. A room whose players were never seated has
   * nothing to bring back (the stats request finds it idle) and is not counted.
   */
  rooms: number;
  /** Of those, rooms whose game state came back from a checkpoint (tk:stats `restoredGames` ≥ 1). */
  worldRestored: number;
  /** worldRestored / rooms, %. */
  worldRestoredPct: number | null;
}

/** The restart's figures from its times and the run's merged room data. */
export function summarizeRestart(times: RestartTimes, rooms: readonly RoomData[], total: RoomData): RestartSummary {
  let backMs: DurationSummary | null = null;
  if (total.histograms.reconnectAt && times.upAtSec !== null) {
    const s = summarizeEncoded(total.histograms.reconnectAt);
    const up = times.upAtSec * 1000;
    if (s.count > 0) backMs = { count: s.count, min: round2(s.min - up), p50: round2(s.p50 - up), p95: round2(s.p95 - up), p99: round2(s.p99 - up), p999: round2(s.p999 - up), max: round2(s.max - up), mean: round2(s.mean - up) };
  }
  const read = rooms.filter((r) => {
    const seats = r.tkStats ? at(r.tkStats.stats, "restoredSeats") : undefined;
    return typeof seats === "number" && seats >= 1;
  });
  const worldRestored = read.filter((r) => {
    const n = at(r.tkStats!.stats, "restoredGames");
    return typeof n === "number" && n >= 1;
  }).length;
  return { ...times, backMs, rooms: read.length, worldRestored, worldRestoredPct: read.length ? round2((worldRestored / read.length) * 100) : null };
}
