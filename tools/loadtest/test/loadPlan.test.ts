import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildPlan, parseArrivalRate, parseDrop, parseDurationSec, parseStages, plannedAt, type LoadModel } from "../src/load/loadPlan";

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
