/**
 * A run that restarted its server (metrics/restartSummary.ts): each player's welcome back timed
 * from the server answering again, and the rooms whose world came back from a checkpoint.
 */
import { describe, expect, it } from "vitest";
import { recordMs } from "../src/metrics/histogram";
import { mergeRoomData } from "../src/metrics/mergeRoomData";
import { summarizeRestart } from "../src/metrics/restartSummary";
import { RoomMetrics } from "../src/metrics/roomMetrics";

function room(id: string, backAtMs: number[], restoredGames: number | null, restoredSeats = backAtMs.length) {
  const r = new RoomMetrics(id);
  r.counters.dropped = backAtMs.length;
  for (const ms of backAtMs) recordMs(r.reconnectAtH, ms);
  if (restoredGames !== null) r.tkStats = { stats: { restoredGames, restoredSeats }, fetchedAt: 1 };
  return r.toData();
}

describe("a server restart's figures", () => {
  it("time each welcome back from the server answering again, and count the rooms whose world came back", () => {
    // "d": a room whose players were never seated (read idle after the restart): nothing to restore, not counted.
    const idle = new RoomMetrics("d");
    idle.tkStats = { stats: { kind: "agar", roomId: "d", ccu: 0, idle: true }, fetchedAt: 1 };
    const rooms = [room("a", [20_100, 20_400], 1), room("b", [21_000], 0), room("c", [], null), idle.toData()];
    const total = mergeRoomData(rooms, "*");
    const s = summarizeRestart({ atSec: 14, downAtSec: 14.5, upAtSec: 20, error: null }, rooms, total);
    expect(s.backMs?.count).toBe(3);
    // Recorded against the run's start in a 3-digit histogram: within 0.1 % of ~20 s.
    expect(Math.abs(s.backMs!.min - 100)).toBeLessThan(30);
    expect(Math.abs(s.backMs!.max - 1000)).toBeLessThan(30);
    expect(s).toMatchObject({ rooms: 2, worldRestored: 1, worldRestoredPct: 50 });
  });

  it("has no back times when the server never answered again", () => {
    const rooms = [room("a", [20_100], 1)];
    const s = summarizeRestart({ atSec: 14, downAtSec: 14.5, upAtSec: null, error: "no health" }, rooms, mergeRoomData(rooms, "*"));
    expect(s.backMs).toBeNull();
    expect(s.error).toBe("no health");
  });
});
