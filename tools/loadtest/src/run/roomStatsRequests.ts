/**
 * Asking the rooms for their tk:stats from inside a thread's run: one joined client per room
 * this shard owns asks every few seconds (samples for the series, no waiting) and once at the
 * end (the snapshot kept in the report, with a deadline).
 */
import type { RoomStatsSample } from "../live/series";
import { statsOwner } from "../load/config";
import type { RoomMetrics } from "../metrics/roomMetrics";
import { round2 } from "../metrics/round2";
import { at, flushP99Ms, tickP99Ms } from "../metrics/tkStats";
import type { SimSocket } from "../players/simSocket";

/** Periodic stats requests use ids from here up (the final fetch uses room index + 1). */
const PERIODIC_STATS_ID_BASE = 1_000_000;

/** Which rooms a thread asks about (those its shard owns) and how long a reply may take. */
export interface StatsScope {
  shard: { index: number; count: number };
  timeoutMs: number;
}

/** The figures of one stats reply that the series keeps. */
function statsSample(tSec: number, roomIdText: string, stats: unknown): RoomStatsSample {
  const ccu = at(stats, "ccu");
  return {
    tSec: round2(tSec),
    roomId: roomIdText,
    tickP99Ms: tickP99Ms(stats),
    flushP99Ms: flushP99Ms(stats),
    ccu: typeof ccu === "number" ? ccu : null,
  };
}

/** A joined client of `room` in this thread, if any. */
function askerOf(clients: readonly SimSocket[], room: RoomMetrics): SimSocket | undefined {
  return clients.find((c) => c.room === room && c.joined);
}

/** One statsRequest per owned room during the run; replies land in `out` (no waiting). */
export function sampleRoomStats(
  scope: StatsScope,
  clients: readonly SimSocket[],
  rooms: readonly RoomMetrics[],
  waiters: Map<number, (json: string) => void>,
  out: RoomStatsSample[],
  k: number,
  tSec: number,
): void {
  for (let r = 0; r < rooms.length; r++) {
    if (!statsOwner(r, scope.shard)) continue;
    const room = rooms[r]!;
    const client = askerOf(clients, room);
    if (!client) continue;
    const id = PERIODIC_STATS_ID_BASE + k * rooms.length + r;
    const timer = setTimeout(() => waiters.delete(id), scope.timeoutMs);
    waiters.set(id, (json) => {
      clearTimeout(timer);
      waiters.delete(id);
      try {
        out.push(statsSample(tSec, room.roomId, JSON.parse(json)));
      } catch {
        // A malformed periodic reply is skipped; the final fetch reports errors.
      }
    });
    if (!client.requestStats(id)) {
      clearTimeout(timer);
      waiters.delete(id);
    }
  }
}

/** More than the room's default spacing of stats replies per connection (250 ms). */
export const STATS_SPACING_MS = 400;

/** One statsRequest per room this shard owns, from one joined client; bounded by statsTimeoutMs. */
export async function fetchRoomStats(
  scope: StatsScope,
  clients: readonly SimSocket[],
  rooms: readonly RoomMetrics[],
  waiters: Map<number, (json: string) => void>,
  out: RoomStatsSample[],
  tSec: number,
): Promise<void> {
  const pending: Promise<void>[] = [];
  for (let r = 0; r < rooms.length; r++) {
    if (!statsOwner(r, scope.shard)) continue;
    const room = rooms[r]!;
    const requestId = r + 1;
    const client = askerOf(clients, room);
    if (!client) {
      room.tkStatsError = "no joined client in this room to ask";
      continue;
    }
    pending.push(
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(requestId);
          room.tkStatsError = `no stats reply within ${scope.timeoutMs} ms`;
          resolve();
        }, scope.timeoutMs);
        waiters.set(requestId, (json) => {
          clearTimeout(timer);
          waiters.delete(requestId);
          try {
            const stats = JSON.parse(json) as unknown;
            room.tkStats = { stats, fetchedAt: Date.now() };
            out.push(statsSample(tSec, room.roomId, stats));
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
