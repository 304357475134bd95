/**
 * The join path of a matchmaking run (metrics/joinPath.ts): the gateway's and matchmaker's
 * figures before and after, the rooms' final tk:stats, per seated player; stats probes and the
 * rooms' play left out of the path; what is missing said, never taken as 0.
 */
import { describe, expect, it } from "vitest";
import { summarizeJoinPath, type PathStart } from "../src/metrics/joinPath";
import type { MatchmakerShardStats } from "../src/metrics/matchMetrics";
import { RoomMetrics } from "../src/metrics/roomMetrics";

const shard = (busy: Record<string, number>, storage: MatchmakerShardStats["storage"], reserves: number): MatchmakerShardStats => ({
  requests: {},
  seated: 0,
  roomsCreated: 0,
  roomRefusals: 0,
  refused: {},
  rooms: 0,
  decision: { count: 0, p50: 0, p95: 0, p99: 0, max: 0 },
  busy,
  storage,
  reserves,
});

function room(id: string, entries: Record<string, number>, storage: unknown, reports: number) {
  const r = new RoomMetrics(id);
  r.tkStats = { stats: { busy: { ms: 0, entries }, adapter: { storage, reports } }, fetchedAt: 1 };
  return r.toData();
}

const start: PathStart = {
  gateway: { busy: { request: 10, stats: 3 }, objectCalls: { MATCHMAKER: 1, "stats:MATCHMAKER": 1 } },
  matchmaker: [shard({ rpc: 4, stats: 1 }, { directory: { calls: 1, confirmed: 0, rows: 1, bytes: 100 } }, 0)],
};

describe("the join path per seated player", () => {
  it("is the run's difference for the gateway and the matchmaker, the rooms' own for the rooms, stats probes left out", () => {
    const end = { busy: { request: 30, stats: 50 }, objectCalls: { MATCHMAKER: 9, ROOMS: 8, "stats:ROOMS": 2 } };
    const mm = [shard({ rpc: 12, report: 2, stats: 40 }, { directory: { calls: 3, confirmed: 0, rows: 5, bytes: 1100 } }, 8)];
    const seat = { calls: 4, confirmed: 4, rows: 4, bytes: 800 };
    const rooms = [room("a", { request: 2, rpc: 1, socket: 3, report: 0.5, timer: 40, checkpoint: 1, stats: 9 }, { seat, checkpoint: { calls: 2, confirmed: 0, rows: 2, bytes: 3000 } }, 2), room("b", { request: 1.5, timer: 20 }, { seat }, 1)];
    const p = summarizeJoinPath(start, end, mm, rooms, 8);
    expect(p.gateway?.ms).toBe(2.5);
    expect(p.matchmaker?.ms).toBe(1.25);
    expect(p.matchmaker?.writes.directory).toEqual({ calls: 0.25, confirmed: 0, rows: 0.5, bytes: 125 });
    expect(p.rooms).toMatchObject({ ms: 1, playMs: 7.5, checkpointMs: 0.125, otherMs: 0 });
    expect(p.rooms?.writes.seat).toEqual({ calls: 1, confirmed: 1, rows: 1, bytes: 200 });
    expect(p.ms).toBe(4.75);
    expect(p.confirmedWrites).toBe(1);
    expect(p.calls).toEqual({ gatewayToMatchmaker: 1, gatewayToRooms: 1, matchmakerToRooms: 1, roomsToMatchmaker: 0.375 });
    expect(p.missing).toEqual([]);
  });

  it("says what it could not read, and gives no total then", () => {
    const p = summarizeJoinPath(null, null, null, [room("a", { timer: 1 }, {}, 0)], 4);
    expect(p.ms).toBeNull();
    expect(p.gateway).toBeNull();
    expect(p.matchmaker).toBeNull();
    expect(p.rooms?.playMs).toBe(0.25);
    expect(p.missing).toHaveLength(2);
    const noRooms = summarizeJoinPath(start, start.gateway, start.matchmaker, [new RoomMetrics("x").toData()], 4);
    expect(noRooms.rooms).toBeNull();
    expect(noRooms.confirmedWrites).toBeNull();
  });

  it("is not measured across a server restart: the end readings are another instance's", () => {
    const end = { busy: { request: 30 }, objectCalls: { MATCHMAKER: 9, ROOMS: 8 } };
    const mm = [shard({ rpc: 12 }, {}, 8)];
    const p = summarizeJoinPath(start, end, mm, [room("a", { request: 2, timer: 40 }, {}, 1)], 8, true);
    expect(p).toMatchObject({ seated: 8, ms: null, confirmedWrites: null, gateway: null, matchmaker: null, rooms: null, calls: null });
    expect(p.missing.join()).toMatch(/restarted/);
  });
});
