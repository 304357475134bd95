import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MIN_SESSION_MS, REJOIN_DELAY_MS, buildPlan, parseArrivalRate, parseDrop, parseDurationSec, parseRejoin, parseStages, plannedAt, type LoadModel } from "../src/load/loadPlan";

const base = { players: 10, rooms: 1, rampSec: 0, durationSec: 10, seed: 7 };
const plan = (load: LoadModel, o: Partial<typeof base> = {}) => buildPlan({ ...base, ...o, load });

describe("load plan", () => {
  it("parses the command-line forms", () => {
    expect(parseStages("10s:50,30s:50,10s:0")).toEqual([
      { durationSec: 10, target: 50 },
      { durationSec: 30, target: 50 },
      { durationSec: 10, target: 0 },
    ]);
    expect(parseArrivalRate("5/s")).toBe(5);
    expect(parseArrivalRate("120/m")).toBe(2);
    expect(parseDrop("30%@20s")).toEqual({ pct: 30, atSec: 20 });
    expect(parseDurationSec("1.5m")).toBe(90);
    expect(parseDurationSec("500ms")).toBe(0.5);
    expect(() => parseStages("10s")).toThrow(/bad stage/);
    expect(() => parseDrop("130%@1s")).toThrow(/\(0, 100\]/);
    expect(parseRejoin("10%")).toBe(10);
    expect(parseRejoin("2.5")).toBe(2.5);
    expect(() => parseRejoin("110%")).toThrow(/0\.\.100/);
  });

  it("stages: ramp up, hold, ramp down; the latest joiners leave first", () => {
    const p = plan({ kind: "stages", stages: parseStages("10s:10,10s:10,10s:0"), drops: [] }, { rooms: 2 });
    expect(p.windowMs).toBe(30_000);
    expect(p.clients).toHaveLength(20);
    expect(plannedAt(p, 5_000)).toBe(10);
    expect(plannedAt(p, 15_000)).toBe(20);
    expect(plannedAt(p, 25_000)).toBe(10);
    expect(plannedAt(p, 29_999)).toBe(2);
    const room0 = p.clients.filter((c) => c.room === 0);
    // Joined in order; left in reverse order of joining.
    const leaves = room0.map((c) => c.leaveAtMs!);
    expect([...leaves].sort((a, b) => b - a)).toEqual(leaves);
  });

  it("stages: the population at any time equals the target line, whatever the stages (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ durationSec: fc.integer({ min: 1, max: 20 }), target: fc.integer({ min: 0, max: 30 }) }), { minLength: 1, maxLength: 5 }), (stages) => {
        const p = plan({ kind: "stages", stages, drops: [] });
        let t0 = 0;
        let level = 0;
        for (const st of stages) {
          // Halfway through a stage the target is the midpoint of the line.
          const mid = t0 + (st.durationSec * 1000) / 2;
          const expected = Math.floor(level + (st.target - level) / 2 + 1e-9);
          const got = plannedAt(p, mid);
          expect(Math.abs(got - expected)).toBeLessThanOrEqual(1);
          t0 += st.durationSec * 1000;
          level = st.target;
        }
      }),
    );
  });

  it("open model: N joins per second whatever happens, each staying to the end", () => {
    const p = plan({ kind: "open", arrivalRate: 5, drops: [] }, { durationSec: 4, rooms: 2 });
    expect(p.clients).toHaveLength(20);
    expect(p.clients[5]!.joinAtMs).toBe(1000);
    expect(p.clients.every((c) => c.leaveAtMs === null)).toBe(true);
    expect(new Set(p.clients.map((c) => c.room))).toEqual(new Set([0, 1]));
  });

  it("churn: sessions are exponential with the given mean, and a leaver's seat is taken at once", () => {
    const p = plan({ kind: "ramp", sessionMeanSec: 2, drops: [] }, { players: 50, durationSec: 60 });
    const lengths = p.clients.filter((c) => c.leaveAtMs !== null).map((c) => c.leaveAtMs! - c.joinAtMs);
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    expect(lengths.length).toBeGreaterThan(1000);
    expect(mean).toBeGreaterThan(1700);
    expect(mean).toBeLessThan(2300);
    for (const t of [1_000, 30_000, 59_000]) expect(plannedAt(p, t)).toBe(50);
    // Same seed, same plan.
    expect(plan({ kind: "ramp", sessionMeanSec: 2, drops: [] }, { players: 50, durationSec: 60 })).toEqual(p);
  });
});

describe("load plan: arrivals and rejoins (matchmaking runs)", () => {
  const open = (o: Partial<LoadModel> = {}, durationSec = 20): ReturnType<typeof plan> =>
    plan({ kind: "open", arrivalRate: 10, arrivals: 100, drops: [], ...o }, { durationSec });

  it("--arrivals ends the arrivals before the window does; arrivalsEndMs is the last new player's join", () => {
    const p = open();
    expect(p.windowMs).toBe(20_000);
    expect(p.clients).toHaveLength(100);
    expect(p.clients.at(-1)!.joinAtMs).toBe(9_900);
    expect(p.arrivalsEndMs).toBe(9_900);
    expect(p.clients.every((c) => c.leaveAtMs === null && c.player === undefined)).toBe(true);
  });

  it("a rejoin is the same player back REJOIN_DELAY_MS after a leave; the first sessions are the plan without rejoins", () => {
    const without = open({ sessionMeanSec: 8 });
    const p = open({ sessionMeanSec: 8, rejoinPct: 100 });
    const firsts = p.clients.filter((c) => c.player === undefined);
    // Rejoins only add sessions: the players' first sessions (and so the arrivals) are unchanged.
    expect(firsts.map(({ joinAtMs, leaveAtMs }) => ({ joinAtMs, leaveAtMs }))).toEqual(without.clients.map(({ joinAtMs, leaveAtMs }) => ({ joinAtMs, leaveAtMs })));
    expect(p.arrivalsEndMs).toBe(without.arrivalsEndMs);
    const rejoins = p.clients.filter((c) => c.player !== undefined);
    expect(rejoins.length).toBeGreaterThan(10);
    const byIndex = new Map(p.clients.map((c) => [c.index, c]));
    for (const r of rejoins) {
      // The player's first session is a first session, and one of the player's sessions left exactly REJOIN_DELAY_MS before.
      expect(byIndex.get(r.player!)!.player).toBeUndefined();
      const mine = p.clients.filter((c) => c.index === r.player || c.player === r.player);
      expect(mine.some((c) => c.leaveAtMs !== null && c.leaveAtMs + REJOIN_DELAY_MS === r.joinAtMs)).toBe(true);
      expect(r.joinAtMs).toBeLessThan(p.windowMs - MIN_SESSION_MS);
    }
    // Every planned leave comes back (100%) unless too late in the window to start a session.
    const leaves = p.clients.filter((c) => c.leaveAtMs !== null);
    const late = leaves.filter((c) => c.leaveAtMs! + REJOIN_DELAY_MS >= p.windowMs - MIN_SESSION_MS);
    expect(rejoins).toHaveLength(leaves.length - late.length);
    // Indices are the join order, rejoins included.
    expect(p.clients.map((c) => c.index)).toEqual(p.clients.map((_, i) => i));
    expect([...p.clients].sort((a, b) => a.joinAtMs - b.joinAtMs).map((c) => c.index)).toEqual(p.clients.map((c) => c.index));
  });

  it("rejoins are exact and deterministic in the seed; the share of leavers who come back follows rejoinPct (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 2 ** 31 }), (pct, seed) => {
        const mk = (): ReturnType<typeof plan> => plan({ kind: "open", arrivalRate: 50, arrivals: 400, sessionMeanSec: 4, rejoinPct: pct, drops: [] }, { durationSec: 30, seed });
        const p = mk();
        expect(mk()).toEqual(p);
        const rejoins = p.clients.filter((c) => c.player !== undefined).length;
        const eligible = p.clients.filter((c) => c.leaveAtMs !== null && c.leaveAtMs + REJOIN_DELAY_MS < p.windowMs - MIN_SESSION_MS).length;
        if (pct === 0) expect(rejoins).toBe(0);
        if (pct === 100) expect(rejoins).toBe(eligible);
        // Binomial(eligible, pct): within 5 standard deviations.
        const sd = Math.sqrt((eligible * pct * (100 - pct)) / 10_000);
        expect(Math.abs(rejoins - (eligible * pct) / 100)).toBeLessThanOrEqual(5 * sd + 1);
      }),
      { numRuns: 40 },
    );
  });
});
