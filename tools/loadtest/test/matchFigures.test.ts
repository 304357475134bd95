import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/load/config";
import { generatorProcess } from "../src/metrics/generatorProcess";
import { recordMs } from "../src/metrics/histogram";
import { MatchMetrics, type DirectoryRoom } from "../src/metrics/matchMetrics";
import { RoomMetrics } from "../src/metrics/roomMetrics";
import { mergeReports } from "../src/report/merge";
import { assembleReport, type Report } from "../src/report/report";
import { runHtml } from "../src/report/html";
import { formatSummary } from "../src/report/summaryText";
import { evaluateThresholds } from "../src/thresholds/evaluate";
import { env, proc, thread } from "./fixtures";

/** A room seated through the matchmaker: players, their times to seated, and its final tk:stats. */
function matchedRoom(id: string, o: { seated: number[]; created?: boolean; peakCcu?: number; cap?: number; expired?: number; invalid?: number; pending?: number; noStats?: boolean }): RoomMetrics {
  const r = new RoomMetrics(id);
  r.counters.planned = o.seated.length;
  r.counters.joined = o.seated.length;
  r.counters.matchCreated = o.created ? 1 : 0;
  for (const ms of o.seated) recordMs(r.seatedH, ms);
  if (!o.noStats) {
    r.tkStats = {
      stats: { peakCcu: o.peakCcu ?? o.seated.length, cap: o.cap ?? 8, reservations: { made: 8, used: 8, expired: o.expired ?? 0, invalid: o.invalid ?? 0, refused: 0, pending: o.pending ?? 0 } },
      fetchedAt: 1,
    };
  } else r.tkStatsError = "stats: http_403";
  return r;
}

const dir = (roomId: string, clients: number, reserved = 0, maxClients = 8): DirectoryRoom => ({ roomId, shard: 0, clients, reserved, maxClients });

/** The matchmaker's side of a made-up run: requests, refusals, unmatched players, directory samples, its stats. */
function matchData(o: { requests: number; seats: number; refused?: Record<string, number>; retries?: number; unmatched?: Record<string, number>; sampled?: boolean; requestMs?: number[] }) {
  const m = new MatchMetrics();
  m.counters.requests = o.requests;
  m.counters.seats = o.seats;
  m.counters.retries = o.retries ?? 0;
  for (const [code, n] of Object.entries(o.refused ?? {})) for (let i = 0; i < n; i++) m.refusal(code);
  for (const [why, n] of Object.entries(o.unmatched ?? {})) for (let i = 0; i < n; i++) m.unmatched(why);
  for (const ms of o.requestMs ?? []) m.answered(ms);
  if (o.sampled) {
    // When arrivals ended: r1 and r2 full (r2 with a seat held), r3 partly filled, and a room of
    // another run (x9) that is none of this run's business, even above its cap.
    m.directory.push({ tSec: 10.2, kind: "arrivals_end", listed: 4, rooms: [dir("r1", 8), dir("r2", 7, 1), dir("r3", 5), dir("x9", 12)] });
    // A periodic sample that caught r3 above its cap.
    m.directory.push({ tSec: 5, kind: "periodic", listed: 3, rooms: [dir("r3", 9)] });
    m.matchmaker = [
      { requests: { match: 30 }, seated: 21, roomsCreated: 3, roomRefusals: 0, refused: { rate_limited: 2 }, rooms: 3, decision: { count: 21, p50: 2, p95: 5, p99: 7, max: 9 } },
      { requests: { match: 5 }, seated: 5, roomsCreated: 1, roomRefusals: 0, refused: {}, rooms: 1, decision: { count: 5, p50: 3, p95: 11, p99: 12, max: 12 } },
    ];
  }
  return m.toData();
}

const matchConfig = (shard?: { index: number; count: number }) =>
  resolveConfig({ url: "ws://127.0.0.1:1", players: 1, rooms: 1, durationSec: 20, match: true, arrivalRate: 10, arrivals: 100, query: "cap=8", ...(shard ? { shard, startAtEpochMs: Date.now() + 1000 } : {}) });

function matchReport(rooms: RoomMetrics[], match: ReturnType<typeof matchData>[], shard?: { index: number; count: number }): Report {
  const cfg = matchConfig(shard);
  const data = rooms.map((r) => r.toData());
  const g = generatorProcess(`shard ${cfg.shard.index}/${cfg.shard.count}`, cfg.runId, data, [thread()], proc);
  return assembleReport({ name: "m", config: cfg, environment: env, generators: [g], rooms: data, match });
}

const value = (r: Report, figure: string): string => evaluateThresholds(r, [`${figure}>=-1000000`])[0]!.actual;

describe("matchmaking figures", () => {
  it("derive from the requests, the directory's fill sample, the rooms' tk:stats and the matchmaker's stats", () => {
    const r = matchReport(
      [
        matchedRoom("r1", { seated: [10, 20, 30, 40, 50, 60, 70, 80], created: true }),
        matchedRoom("r2", { seated: [15, 25, 35, 45, 55, 65, 75], created: true, expired: 1 }),
        matchedRoom("r3", { seated: [100, 200, 300, 400, 500], created: true, invalid: 1, pending: 2 }),
      ],
      [matchData({ requests: 26, seats: 20, refused: { rate_limited: 2, no_room: 1, unavailable: 3 }, retries: 5, unmatched: { no_room: 1 }, sampled: true, requestMs: [5, 6, 7] })],
    );
    const s = r.summary;
    // A player the matchmaker never seated is planned and failed, under match:<reason>.
    expect(s.clients).toEqual({ planned: 21, joined: 20, refused: 0, throttled: 0, failed: 1 });
    expect(s.failureReasons).toEqual({ "match:no_room": 1 });
    expect(s.seatedMs?.count).toBe(20);
    expect(s.seatedMs?.max).toBeCloseTo(500, 0);
    expect(s.match).toMatchObject({
      requests: 26,
      seats: 20,
      refusals: 6,
      retries: 5,
      refused: { rate_limited: 2, no_room: 1, unavailable: 3 },
      unmatched: 1,
      roomsUsed: 3,
      roomsCreated: 3,
      fill: { atSec: 10.2, rooms: 3, full: 2, partlyFilled: 1, fillPct: 66.67 },
      // r3: peakCcu 5 within its cap, but a directory sample showed it one seat above.
      overCap: 1,
      reservations: { expired: 1, invalid: 1, pendingAtEnd: 2, lost: 4 },
      matchmaker: { shards: 2, decisionP99Ms: 12, roomsCreated: 4, requests: 35, refused: { rate_limited: 2 } },
    });
    expect(s.match?.requestMs.count).toBe(3);
    const checks = evaluateThresholds(r, [
      "match.fill_pct>=98",
      "match.over_cap==0",
      "match.lost_reservations==4",
      "match.rooms_created==3",
      "match.partly_filled==1",
      "match.decision_p99<=12",
      "match.unmatched==1",
      "match.refusals==6",
      "match.requests==26",
      "seated.p99<=150",
      "seated.count==20",
      "match.request.max<=7.1",
    ]);
    expect(checks.map((c) => c.ok)).toEqual([false, false, true, true, true, true, true, true, true, false, true, true]);
    expect(checks[0]!.actual).toBe("66.67");
    // seated per room: r1's p99 is its own.
    expect(evaluateThresholds(r, ["rooms[0].seated.max<=80.1", "room:seated.max<=80.1"]).map((c) => c.ok)).toEqual([true, false]);
    // Only the total has matchmaking figures.
    expect(evaluateThresholds(r, ["room:match.fill_pct>=0"])[0]!.actual).toMatch(/not measured/);
    const text = formatSummary(r);
    for (const k of ["time to seated", "3 created by this run", "2/3 full (66.67%)", "1 over cap", "4 lost", "decision p99 12 ms"]) expect(text).toContain(k);
    const html = runHtml(r);
    for (const k of ["time to seated", "2/3 full (66.67%)", "rooms from the matchmaker"]) expect(html).toContain(k);
  });

  it("are not measured where nothing measured them: a run without --match, a room without tk:stats, no fill sample", () => {
    const plain = matchReport([matchedRoom("r1", { seated: [] })], []);
    expect(plain.summary.match).toBeUndefined();
    for (const f of ["match.fill_pct", "match.over_cap", "seated.p99", "match.requests", "match.decision_p99"]) expect(value(plain, f)).toMatch(/not measured/);
    const missing = matchReport([matchedRoom("r1", { seated: [10] }), matchedRoom("r2", { seated: [10], noStats: true })], [matchData({ requests: 2, seats: 2 })]);
    expect(value(missing, "match.over_cap")).toMatch(/not measured/);
    expect(value(missing, "match.lost_reservations")).toMatch(/not measured/);
    expect(value(missing, "match.fill_pct")).toMatch(/not measured/);
    expect(value(missing, "match.decision_p99")).toMatch(/not measured/);
    expect(value(missing, "match.requests")).toBe("2");
    // A room above its cap counts even when another room's tk:stats is missing.
    const over = matchReport([matchedRoom("r1", { seated: [10], peakCcu: 10, cap: 8 }), matchedRoom("r2", { seated: [10], noStats: true })], [matchData({ requests: 2, seats: 2 })]);
    expect(value(over, "match.over_cap")).toBe("2");
  });

  it("merge exactly: threads' and shards' parts give the figures of one process that saw everything", () => {
    const whole = matchReport(
      [matchedRoom("r1", { seated: [10, 20, 30, 40, 50, 60, 70, 80], created: true }), matchedRoom("r3", { seated: [100, 200, 300, 400, 500], created: true, invalid: 1 })],
      [matchData({ requests: 16, seats: 13, refused: { unavailable: 3 }, retries: 3, unmatched: { timeout: 2 }, sampled: true, requestMs: [5, 6, 7, 900] })],
    );
    // The same run as two shards: room r1's players split between them, the samples on shard 0.
    const a = matchReport(
      [matchedRoom("r1", { seated: [10, 20, 30, 40], created: true }), matchedRoom("r3", { seated: [100, 200, 300, 400, 500], created: true, invalid: 1 })],
      [matchData({ requests: 10, seats: 9, refused: { unavailable: 1 }, retries: 1, unmatched: { timeout: 1 }, sampled: true, requestMs: [5, 900] })],
      { index: 0, count: 2 },
    );
    const b = matchReport(
      [matchedRoom("r1", { seated: [50, 60, 70, 80] })],
      [matchData({ requests: 6, seats: 4, refused: { unavailable: 2 }, retries: 2, unmatched: { timeout: 1 }, requestMs: [6, 7] })],
      { index: 1, count: 2 },
    );
    const merged = mergeReports([a, b]);
    expect(merged.merge?.warnings).toEqual([]);
    expect(merged.summary.seatedMs).toEqual(whole.summary.seatedMs);
    expect(merged.summary.clients).toEqual(whole.summary.clients);
    expect(merged.summary.failureReasons).toEqual(whole.summary.failureReasons);
    const { requestMs, ...rest } = merged.summary.match!;
    const { requestMs: wholeRequestMs, ...wholeRest } = whole.summary.match!;
    expect(requestMs).toEqual(wholeRequestMs);
    expect(rest).toEqual(wholeRest);
    expect(merged.match?.directory).toHaveLength(2);
  });
});
