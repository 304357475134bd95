import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientRoom, inShard, resolveConfig, roomUrl, statsOwner } from "../src/load/config";
import { buildPlan } from "../src/load/loadPlan";

describe("config", () => {
  it("fills defaults: fresh room prefix per run, ramp of 10 joins/s per room, scenario rate", () => {
    const a = resolveConfig({ url: "ws://127.0.0.1:8787", players: 100, rooms: 2, durationSec: 5 });
    const b = resolveConfig({ url: "ws://127.0.0.1:8787", players: 100, rooms: 2, durationSec: 5 });
    expect(a.roomPrefix).not.toBe(b.roomPrefix);
    expect(a.rampSec).toBe(10);
    expect(a.rate).toBe(20);
    expect(a.scenario).toBe("agar");
    expect(resolveConfig({ url: "ws://x", players: 100, rooms: 1, durationSec: 1, storm: true, rampSec: 9 }).rampSec).toBe(0);
  });

  it("turn-based scenarios are paced by think time and keepalive, not a rate", () => {
    const c = resolveConfig({ url: "ws://x", players: 2, rooms: 4, durationSec: 5, scenario: "ttt-json" });
    expect(c.roomKind).toBe("ttt-json");
    expect(c.rate).toBe(0);
    expect(c.turnBased).toEqual({ thinkMs: 1000, keepaliveMs: 2000 });
    expect(resolveConfig({ url: "ws://x", players: 2, rooms: 1, durationSec: 5, scenario: "ttt-json", thinkMs: 300, keepaliveMs: 0 }).turnBased).toEqual({
      thinkMs: 300,
      keepaliveMs: 0,
    });
    expect(resolveConfig({ url: "ws://x", players: 2, rooms: 1, durationSec: 5 }).turnBased).toBeUndefined();
  });

  it("builds room URLs with the query pass-through", () => {
    const c = resolveConfig({ url: "ws://127.0.0.1:8787/", players: 1, rooms: 3, durationSec: 1, roomPrefix: "t", query: "?tickMs=33&cap=5" });
    expect(roomUrl(c, 2)).toBe("ws://127.0.0.1:8787/rooms/agar/t-2?tickMs=33&cap=5");
  });

  it("rejects bad options with a message naming them", () => {
    expect(() => resolveConfig({ url: "http://x", players: 1, rooms: 1, durationSec: 1 })).toThrow(/ws:\/\//);
    expect(() => resolveConfig({ url: "ws://x", players: 0, rooms: 1, durationSec: 1 })).toThrow(/players/);
    expect(() => resolveConfig({ url: "ws://x", players: 1, rooms: 1, durationSec: 1, scenario: "ttt-json", rate: 5 })).toThrow(/turn-based/);
    expect(() => resolveConfig({ url: "ws://x", players: 1, rooms: 1, durationSec: 1, thinkMs: 100 })).toThrow(/turn-based scenarios only/);
    expect(() => resolveConfig({ url: "ws://x", players: 1, rooms: 1, durationSec: 1, scenario: "ttt-json", keepaliveMs: 5 })).toThrow(/keepaliveMs/);
    expect(() => resolveConfig({ url: "ws://x", players: 1, rooms: 1, durationSec: 1, shard: { index: 0, count: 2 } })).toThrow(/room-prefix/);
    expect(() => resolveConfig({ url: "ws://x", players: 1, rooms: 1, durationSec: 1, shard: { index: 0, count: 2 }, roomPrefix: "p" })).toThrow(/start-at/);
  });

  it("joins are paced evenly over the ramp and rooms fill in parallel", () => {
    const c = { rampSec: 10, players: 50, rooms: 2, durationSec: 5, seed: 1, load: { kind: "ramp" as const, drops: [] } };
    const plan = buildPlan(c).clients;
    expect(plan[0]!.joinAtMs).toBe(0);
    expect(plan[50]!.joinAtMs).toBe(5000);
    expect(plan[99]!.joinAtMs).toBeCloseTo(9900);
    expect(plan.map((p) => p.room).slice(0, 4)).toEqual([0, 1, 0, 1]);
    expect([0, 1, 2, 3].map((i) => clientRoom(c, i))).toEqual([0, 1, 0, 1]);
  });

  it("machine shards x worker threads partition clients exactly, with one stats owner per room", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 60 }), (n, k, rooms, players) => {
        const total = rooms * players;
        const owners = new Array<number>(total).fill(0);
        const statsOwners = new Array<number>(rooms).fill(0);
        for (let s = 0; s < n; s++) {
          for (let w = 0; w < k; w++) {
            const shard = { index: s + n * w, count: n * k };
            for (let i = 0; i < total; i++) if (inShard(i, shard)) owners[i]++;
            for (let r = 0; r < rooms; r++) if (statsOwner(r, shard)) statsOwners[r]++;
          }
        }
        expect(owners.every((c) => c === 1)).toBe(true);
        expect(statsOwners.every((c) => c === 1)).toBe(true);
      }),
    );
  });
});

describe("config: load models, thresholds, tickets", () => {
  const base = { url: "ws://127.0.0.1:8787", players: 10, rooms: 2, durationSec: 5 };
  it("stages set the peak and the window; the open model its nominal players; both refuse ramp options", () => {
    const st = resolveConfig({ ...base, stages: [{ durationSec: 10, target: 50 }, { durationSec: 5, target: 0 }] });
    expect(st).toMatchObject({ players: 50, durationSec: 15, rampSec: 0, load: { kind: "stages" } });
    const open = resolveConfig({ ...base, arrivalRate: 4, durationSec: 10 });
    expect(open).toMatchObject({ players: 20, load: { kind: "open", arrivalRate: 4 } });
    expect(() => resolveConfig({ ...base, stages: [{ durationSec: 1, target: 1 }], arrivalRate: 1 })).toThrow(/pick one/);
    expect(() => resolveConfig({ ...base, arrivalRate: 1, rampSec: 3 })).toThrow(/--ramp\/--storm/);
    expect(() => resolveConfig({ ...base, stages: [{ durationSec: 1, target: 0 }] })).toThrow(/above 0/);
    expect(() => resolveConfig({ ...base, sessionMeanSec: 0.2 })).toThrow(/>= 1 s/);
    expect(() => resolveConfig({ ...base, scenario: "ttt-json", players: 2, drops: [{ pct: 10, atSec: 1 }] })).toThrow(/binary scenario/);
  });

  it("a server restart falls inside the run, for binary scenarios; idle players have rate 0", () => {
    expect(resolveConfig({ ...base, restartAtSec: 3, rampSec: 1 })).toMatchObject({ restartAtSec: 3 });
    expect(resolveConfig(base)).not.toHaveProperty("restartAtSec");
    expect(() => resolveConfig({ ...base, restartAtSec: 0 })).toThrow(/restart-at/);
    expect(() => resolveConfig({ ...base, restartAtSec: 30, rampSec: 1 })).toThrow(/restart-at/);
    expect(() => resolveConfig({ ...base, scenario: "ttt-json", players: 2, restartAtSec: 1 })).toThrow(/binary scenario/);
    expect(resolveConfig({ ...base, rate: 0 }).rate).toBe(0);
    expect(() => resolveConfig({ ...base, rate: -1 })).toThrow(/rate/);
  });

  it("thresholds are checked up front; tickets record their mode, never a secret", () => {
    expect(() => resolveConfig({ ...base, thresholds: ["ack.p99<"] })).toThrow(/threshold/);
    expect(() => resolveConfig({ ...base, thresholds: ["ackk.p99<1"] })).toThrow(/unknown figure "ackk.p99"/);
    expect(resolveConfig({ ...base, thresholds: ["ack.p99<150"] }).thresholds).toEqual(["ack.p99<150"]);
    expect(resolveConfig(base).tickets).toEqual({ mode: "none" });
    expect(resolveConfig({ ...base, tickets: { mode: "url", url: "https://b.example/t" } }).tickets).toEqual({ mode: "url", url: "https://b.example/t" });
    expect(() => resolveConfig({ ...base, tickets: { mode: "url", url: "not a url" } })).toThrow();
  });
});

describe("config: matchmaking runs", () => {
  const base = { url: "ws://127.0.0.1:8787", players: 10, rooms: 1, durationSec: 20 };
  it("--match records itself; arrivals and rejoins are the open model's", () => {
    const c = resolveConfig({ ...base, match: true, arrivalRate: 100, arrivals: 1000, sessionMeanSec: 45, rejoinPct: 10, query: "cap=8" });
    expect(c).toMatchObject({ match: true, players: 1000, query: "cap=8", load: { kind: "open", arrivalRate: 100, arrivals: 1000, sessionMeanSec: 45, rejoinPct: 10 } });
    expect(resolveConfig(base).match).toBeUndefined();
    // Sharded matchmaking runs need a common start, not a room prefix: the matchmaker names rooms.
    expect(resolveConfig({ ...base, match: true, shard: { index: 1, count: 2 }, startAtEpochMs: Date.now() + 5_000 }).shard).toEqual({ index: 1, count: 2 });
  });

  it("refuses what a matchmaking run cannot mean, naming the option", () => {
    expect(() => resolveConfig({ ...base, match: true, rooms: 2 })).toThrow(/--rooms/);
    expect(() => resolveConfig({ ...base, match: true, roomPrefix: "p" })).toThrow(/--room-prefix/);
    expect(() => resolveConfig({ ...base, match: true, drops: [{ pct: 10, atSec: 1 }] })).toThrow(/--drop/);
    expect(() => resolveConfig({ ...base, arrivalRate: 10, sessionMeanSec: 5, rejoinPct: 10 })).toThrow(/needs --match/);
    expect(() => resolveConfig({ ...base, match: true, sessionMeanSec: 5, rejoinPct: 10 })).toThrow(/open model/);
    expect(() => resolveConfig({ ...base, match: true, arrivalRate: 10, rejoinPct: 10 })).toThrow(/--session-mean/);
    expect(() => resolveConfig({ ...base, match: true, arrivalRate: 10, sessionMeanSec: 5, rejoinPct: 120 })).toThrow(/0\.\.100/);
    expect(() => resolveConfig({ ...base, arrivals: 10 })).toThrow(/--arrival-rate/);
    expect(() => resolveConfig({ ...base, arrivalRate: 10, arrivals: 500 })).toThrow(/lengthen --duration/);
  });
});
