/**
 * A small matchmaking load against the Node host's real matchmaker and rooms (in process,
 * loopback): every player matched by joinOrCreate and seated, no room above its cap, the rooms
 * filled in order, no reservation lost; once on one thread, once on two worker threads with
 * churn and rejoins (the threads' parts merged).
 */
import type { RoomServer } from "@tikron/node";
import { afterEach, describe, expect, it } from "vitest";
import { evaluateThresholds, runLoad, type LoadConfig, type Report } from "../src/index";
import { startRooms } from "./nodeRooms";

let rooms: RoomServer | null = null;

/** A matchmaking run against the Node host: 40 players arriving at 20/s into 4-seat rooms, plus `extra`. */
const matchRun = (server: RoomServer, extra: Partial<LoadConfig>): Promise<Report> =>
  runLoad({ url: server.url, players: 1, rooms: 1, match: true, arrivalRate: 20, arrivals: 40, durationSec: 3, query: "cap=4", ...extra });
afterEach(async () => {
  await rooms?.close();
  rooms = null;
});

/** Each room's own count of what happened to its reservations (tk:stats). */
interface Reservations {
  made: number;
  used: number;
  expired: number;
  invalid: number;
  pending: number;
}

describe("matchmaking load on the Node host", () => {
  it("40 players at 20/s into 4-seat rooms: all seated, 10 rooms made and full, none above its cap", { timeout: 60_000 }, async () => {
    rooms = await startRooms();
    const r = await matchRun(rooms, {
      name: "it-match",
      thresholds: ["match.over_cap==0", "match.fill_pct==100", "match.lost_reservations==0", "clients.joined_pct==100", "seated.p99<=500"],
    });
    const s = r.summary;
    expect(s.clients).toEqual({ planned: 40, joined: 40, refused: 0, throttled: 0, failed: 0 });
    expect(s.unexpectedCloses).toBe(0);
    expect(s.match).toMatchObject({ requests: 40, seats: 40, refusals: 0, unmatched: 0, roomsUsed: 10, roomsCreated: 10, overCap: 0 });
    expect(s.match?.fill).toMatchObject({ rooms: 10, full: 10, partlyFilled: 0, fillPct: 100 });
    expect(s.match?.reservations).toEqual({ expired: 0, invalid: 0, pendingAtEnd: 0, lost: 0 });
    expect(s.match?.matchmaker?.roomsCreated).toBe(10);
    expect(s.match?.matchmaker?.decisionP99Ms).not.toBeNull();
    expect(s.seatedMs?.count).toBe(40);
    // Seated = the match request's round trip plus the join: never shorter than either.
    expect(s.seatedMs!.p50).toBeGreaterThanOrEqual(s.match!.requestMs.min);
    // Each room seated exactly 4 (its cap) and made exactly 4 reservations, all used.
    for (const room of r.rooms) {
      const st = room.tkStats?.stats as { peakCcu: number; cap: number; reservations: Reservations };
      expect(st.cap).toBe(4);
      expect(st.peakCcu).toBe(4);
      expect(st.reservations).toMatchObject({ made: 4, used: 4, expired: 0, invalid: 0, pending: 0 });
    }
    // The server agrees: every room it made is one of the report's, each seated 4.
    expect(rooms.rooms().map((x) => x.snapshot().roomId).sort()).toEqual(r.rooms.map((x) => x.roomId).sort());
    expect(evaluateThresholds(r, r.config.thresholds).filter((c) => !c.ok)).toEqual([]);
    expect(s.inputs.acked).toBe(s.inputs.sent);
  });

  it("two worker threads, churn and rejoins: every session seated, no room above its cap, no reservation lost", { timeout: 60_000 }, async () => {
    rooms = await startRooms();
    const r = await matchRun(rooms, { durationSec: 6, sessionMeanSec: 3, rejoinPct: 50, seed: 11, workers: 2, name: "it-match-rejoin" });
    const s = r.summary;
    const m = s.match!;
    expect(m.rejoins).toBeGreaterThan(0);
    // Every session (arrivals and rejoins) asked once and was seated.
    expect(s.clients.planned).toBe(40 + m.rejoins);
    expect(s.clients.joined).toBe(s.clients.planned);
    expect(m).toMatchObject({ seats: s.clients.planned, requests: s.clients.planned, unmatched: 0, overCap: 0 });
    expect(m.reservations).toEqual({ expired: 0, invalid: 0, pendingAtEnd: 0, lost: 0 });
    expect(s.seatedMs?.count).toBe(s.clients.planned);
    expect(r.total.counters.left).toBeGreaterThan(0);
    expect(s.unexpectedCloses).toBe(0);
    // Both threads' players share the matchmaker's rooms: the report merged them by room id.
    expect(new Set(r.rooms.map((x) => x.roomId)).size).toBe(r.rooms.length);
    expect(m.roomsCreated).toBe(m.matchmaker?.roomsCreated);
    for (const room of r.rooms) expect((room.tkStats?.stats as { peakCcu: number }).peakCcu).toBeLessThanOrEqual(4);
  });
});
