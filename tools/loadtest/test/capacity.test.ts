import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CAPACITY_LIMITS, judgeCapacityPoint } from "../src/capacity/capacityJudge";
import { capacitySvg, capacityTable, capacityVerdict } from "../src/capacity/capacityReport";
import { defaultDensity, densityLabel, pointQuery } from "../src/capacity/capacityDensity";
import { headlinePoint, type CapacityPoint, type CapacityResult } from "../src/capacity/capacityResult";
import { pointSeconds } from "../src/capacity/capacityRun";
import { CapacitySearch, type CapacityPlan } from "../src/capacity/capacitySearch";
import { escapeXml, lineChartSvg, niceTicks, stackSvgs } from "../src/report/lineChart";
import type { Report } from "../src/report/report";

/** Runs a search against a room that holds exactly `holds` players. */
function searchAgainst(plan: CapacityPlan, holds: number): { tried: number[]; result: ReturnType<CapacitySearch["result"]> } {
  const s = new CapacitySearch(plan);
  const tried: number[] = [];
  for (let p = s.next(); p !== null && tried.length < 100; p = s.next()) {
    tried.push(p);
    s.record(p, p <= holds);
  }
  return { tried, result: s.result() };
}

describe("capacity search", () => {
  const plan: CapacityPlan = { start: 50, growth: "step", step: 50, resolution: 25, max: 400 };

  it("grows in steps, then bisects to the resolution", () => {
    expect(searchAgainst(plan, 130)).toEqual({ tried: [50, 100, 150, 125], result: { capacity: 125, lowestFailure: 150, hitMax: false } });
    expect(searchAgainst(plan, 10)).toEqual({ tried: [50, 25], result: { capacity: 0, lowestFailure: 25, hitMax: false } });
    expect(searchAgainst({ ...plan, growth: "double", resolution: 10 }, 300).tried).toEqual([50, 100, 200, 400, 300, 350, 320, 310]);
  });

  it("stops at the upper bound when everything passes", () => {
    const r = searchAgainst({ ...plan, max: 180 }, 1000);
    expect(r.tried).toEqual([50, 100, 150, 180]);
    expect(r.result).toEqual({ capacity: 180, lowestFailure: null, hitMax: true });
  });

  it("for any room size: ends within the resolution of the truth, never repeats a point, stays in bounds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom("step" as const, "double" as const),
        fc.integer({ min: 0, max: 2000 }),
        (start, step, resolution, growth, holds) => {
          const max = Math.min(1000, start + 30 * step);
          const p: CapacityPlan = { start, step, resolution, growth, max };
          const { tried, result } = searchAgainst(p, holds);
          expect(tried.length).toBeLessThan(100);
          expect(new Set(tried).size).toBe(tried.length);
          for (const t of tried) expect(t).toBeGreaterThanOrEqual(1), expect(t).toBeLessThanOrEqual(max);
          expect(result.capacity).toBeLessThanOrEqual(holds);
          if (result.hitMax) expect(holds).toBeGreaterThanOrEqual(max);
          else expect(result.lowestFailure! - result.capacity).toBeLessThanOrEqual(resolution);
        },
      ),
    );
  });

  it("refuses a plan that cannot work", () => {
    expect(() => new CapacitySearch({ ...plan, max: 10 })).toThrow(/bad capacity plan/);
    expect(() => new CapacitySearch({ ...plan, resolution: 0 })).toThrow(/bad capacity plan/);
  });

  it("a point's time estimate includes start-up, the ramp at the join rate, the window and cooldown", () => {
    expect(pointSeconds(150, { joinRate: 15, durationSec: 20, cooldownSec: 5 })).toBe(20 + 10 + 20 + 6 + 5);
  });
});

/** A report as far as the judge reads it. */
function report(o: {
  planned?: number;
  joined?: number;
  throttled?: number;
  closes?: number;
  short?: number;
  gapP99?: number;
  ackP99?: number;
  flushP99?: number | null;
  sliceP99?: number | null;
  status?: Report["status"];
}): Report {
  const dist = (p99: number) => ({ count: 100, p50: p99 / 2, p95: p99, p99, max: p99, mean: p99 / 2 });
  return {
    status: o.status ?? "ok",
    saturationReasons: o.status === "generator_saturated" ? ["97% of inputs on schedule"] : [],
    total: { counters: { clientsShortOfFrames: o.short ?? 0 } },
    summary: {
      clients: { planned: o.planned ?? 100, joined: o.joined ?? o.planned ?? 100, refused: 0, throttled: o.throttled ?? 0, failed: 0 },
      unexpectedCloses: o.closes ?? 0,
      frameGapMs: dist(o.gapP99 ?? 55),
      ackRttMs: dist(o.ackP99 ?? 70),
      roomStats: { fetched: 1, missing: 0, flushP99Ms: o.flushP99 === undefined ? 2 : o.flushP99, ...(o.sliceP99 === undefined ? {} : { flushSliceP99Ms: o.sliceP99 }), tickP99Ms: 1 },
    },
  } as unknown as Report;
}

describe("capacity point verdict", () => {
  it("passes a healthy point and names every failed condition with its value", () => {
    expect(judgeCapacityPoint(report({}))).toEqual({ passed: true, generatorSaturated: false, failed: [], unchecked: [] });
    const v = judgeCapacityPoint(report({ joined: 98, throttled: 2, closes: 1, short: 3, gapP99: 80, ackP99: 121, flushP99: 11 }));
    expect(v.passed).toBe(false);
    expect(v.failed).toEqual([
      "joined 98/100",
      "2 joins throttled",
      "1 unexpected closes",
      "3 clients got < 99% of expected frames (one per flush)",
      `gap p99 80 ms > ${CAPACITY_LIMITS.gapP99Ms}`,
      `ack p99 121 ms > ${CAPACITY_LIMITS.ackP99Ms}`,
      `flush task p99 11 ms > ${CAPACITY_LIMITS.flushP99Ms}`,
    ]);
  });

  it("judges a sliced flush by its longest task, not its whole span", () => {
    // A flush in slices spans the messages handled between its slices: 24 ms whole, 5 ms per task.
    expect(judgeCapacityPoint(report({ flushP99: 24, sliceP99: 5 })).passed).toBe(true);
    expect(judgeCapacityPoint(report({ flushP99: 24, sliceP99: 11 })).failed).toEqual([`flush task p99 11 ms > ${CAPACITY_LIMITS.flushP99Ms}`]);
    // A room that reports no slices (before slices) is judged by its flush, one task.
    expect(judgeCapacityPoint(report({ flushP99: 11, sliceP99: null })).failed).toEqual([`flush task p99 11 ms > ${CAPACITY_LIMITS.flushP99Ms}`]);
  });

  it("limits are inclusive; a server without tk:stats is not failed for it; a saturated generator is flagged", () => {
    expect(judgeCapacityPoint(report({ gapP99: 75, ackP99: 120, flushP99: 10 })).passed).toBe(true);
    expect(judgeCapacityPoint(report({ flushP99: null }))).toEqual({ passed: true, generatorSaturated: false, failed: [], unchecked: ["flush p99 (no tk:stats)"] });
    const sat = judgeCapacityPoint(report({ status: "generator_saturated" }));
    expect(sat.generatorSaturated).toBe(true);
    expect(sat.failed[0]).toMatch(/generator saturated/);
  });
});

const point = (players: number, passed: boolean, cpu: number): CapacityPoint => ({
  players,
  passed,
  generatorSaturated: false,
  attempts: 1,
  failed: passed ? [] : ["ack p99 130 ms > 120"],
  unchecked: [],
  serverCpuPct: cpu,
  serverCpuUsPerMsg: 40,
  downKiBpsPerClient: 1,
  flushP99Ms: 2,
  ackP99Ms: passed ? 80 : 130,
  gapP99Ms: 60,
  framesPerSecPerClient: 20,
});

describe("several runs of one point", () => {
  const run = (passed: boolean, gap: number, failed: string[] = []): CapacityPoint => ({
    players: 300,
    passed,
    generatorSaturated: false,
    attempts: 1,
    failed,
    unchecked: [],
    report: `r${gap}.json`,
    serverCpuPct: 40 + gap / 100,
    serverCpuUsPerMsg: 30,
    downKiBpsPerClient: 2,
    flushP99Ms: 8,
    ackP99Ms: 90,
    gapP99Ms: gap,
    framesPerSecPerClient: 20,
  });
  it("takes its verdict and figures from its first run, with how many runs passed as an extra", () => {
    const p = headlinePoint(300, [run(false, 81, ["gap p99 81 ms > 75"]), run(true, 70), run(true, 66)]);
    expect(p.passed).toBe(false);
    expect(p.failed).toEqual(["gap p99 81 ms > 75"]);
    expect(p.gapP99Ms).toBe(81);
    expect(p.report).toBe("r81.json");
    expect(p.runs).toEqual({ count: 3, passed: 2, reports: ["r81.json", "r70.json", "r66.json"] });
    const table = capacityTable([p], false);
    expect(table).toContain("runs passed (extra)");
    expect(table).toContain("2/3");
    expect(table).toContain("FAIL: gap p99 81 ms > 75");
    // A majority of passing runs never turns a failed first run into a pass.
    expect(table).not.toMatch(/\bpass\b/);
  });
  it("passes on a passing first run whatever the others did", () => {
    const p = headlinePoint(300, [run(true, 70), run(false, 90, ["gap p99 90 ms > 75"]), run(false, 91, ["gap p99 91 ms > 75"])]);
    expect(p.passed).toBe(true);
    expect(p.failed).toEqual([]);
    expect(p.gapP99Ms).toBe(70);
    expect(p.runs).toMatchObject({ count: 3, passed: 1 });
    expect(capacityTable([p], false)).toMatch(/1\/3\s+pass$/m);
  });
  it("is its one run, with no extra column, when it had one", () => {
    const one = run(true, 70);
    expect(headlinePoint(300, [one])).toBe(one);
    expect(capacityTable([one], false)).not.toContain("runs passed");
    expect(() => headlinePoint(300, [])).toThrow(/no run/);
  });
});

describe("capacity density: the query of each point", () => {
  it("standard agar: AOI 250 and a world of 1000·√(N/100), so each player sees about as much as at 100", () => {
    const q = (n: number) => Object.fromEntries(new URLSearchParams(pointQuery({ scenario: "agar", density: "standard" }, n)));
    expect(q(100)).toEqual({ aoi: "250", world: "1000", cap: "100" });
    expect(q(250)).toEqual({ aoi: "250", world: "1581", cap: "250" });
    expect(q(300)).toEqual({ aoi: "250", world: "1732", cap: "300" });
    expect(q(400)).toEqual({ aoi: "250", world: "2000", cap: "400" });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), (n) => {
        const { world, aoi } = q(n);
        // Players per AOI disc stay those of 100 players in 1000² (to rounding of the edge).
        const perDisc = (n * Math.PI * Number(aoi) ** 2) / Number(world) ** 2;
        expect(perDisc).toBeCloseTo((100 * Math.PI * 250 ** 2) / 1000 ** 2, 0);
      }),
    );
  });
  it("is the default for agar; sparse leaves the game's own world and adds only the cap", () => {
    expect(defaultDensity("agar")).toBe("standard");
    expect(defaultDensity("fps")).toBe("sparse");
    expect(pointQuery({ scenario: "agar" }, 250)).toBe("aoi=250&world=1581&cap=250");
    expect(pointQuery({ scenario: "agar", density: "sparse", query: "tickMs=33" }, 250)).toBe("tickMs=33&cap=250");
    expect(pointQuery({ scenario: "fps", query: "tickMs=33&syncIntervalMs=33" }, 50)).toBe("tickMs=33&syncIntervalMs=33&cap=50");
    expect(densityLabel("agar")).toBe("standard (AOI 250, world 1000·√(N/100))");
    expect(densityLabel("agar", "sparse")).toContain("default world");
  });
  it("keeps the rest of the user's query and refuses one that would measure another density", () => {
    expect(pointQuery({ scenario: "agar", density: "standard", query: "fps=30&cap=9" }, 200)).toBe("aoi=250&world=1414&fps=30&cap=200");
    expect(() => pointQuery({ scenario: "agar", density: "standard", query: "world=4000" }, 200)).toThrow(/--density sparse/);
    expect(() => pointQuery({ scenario: "agar", density: "standard", query: "aoi=600" }, 200)).toThrow(/aoi or world/);
    expect(() => pointQuery({ scenario: "fps", density: "standard" }, 200)).toThrow(/no standard density for scenario fps/);
  });
});

describe("capacity output", () => {
  const result = {
    name: "agar",
    capacity: 125,
    lowestFailure: 150,
    hitMax: false,
    limits: CAPACITY_LIMITS,
    points: [point(50, true, 40), point(100, true, 80), point(150, false, 99), point(125, true, 92)],
    notes: [],
  } as unknown as CapacityResult;

  it("the table is sorted by players and gives the verdict with the failed threshold", () => {
    const lines = capacityTable(result.points, false).split("\n");
    expect(lines.map((l) => l.trim().split(/\s+/)[0])).toEqual(["players", "50", "100", "125", "150"]);
    expect(lines[4]).toContain("FAIL: ack p99 130 ms > 120");
    expect(capacityVerdict(result)).toBe("capacity 125 players (150 failed)");
  });

  it("the SVG is well-formed, names its panels and marks the failed point", () => {
    const svg = capacitySvg(result);
    expect(svg.match(/<svg /g)).toHaveLength(5);
    expect(svg.match(/<\/svg>/g)).toHaveLength(5);
    for (const t of ["server CPU %", "ack p99", "gap p99", "flush p99", "down KiB/s", "ack limit 120"]) expect(svg).toContain(t);
    // One cross per panel series for the one failed point (CPU, ack, gap, flush, downlink).
    expect(svg.match(/stroke-width="2"\/>/g)!.length).toBeGreaterThanOrEqual(5);
  });
});

describe("line chart", () => {
  it("nice ticks cover the range with 1/2/5 steps", () => {
    expect(niceTicks(0, 93)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(50, 400, 4)).toEqual([0, 100, 200, 300, 400]);
    expect(niceTicks(0, 0.7)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    fc.assert(
      fc.property(fc.double({ min: -1e5, max: 1e5, noNaN: true }), fc.double({ min: 0.001, max: 1e5, noNaN: true }), (min, span) => {
        const t = niceTicks(min, min + span);
        const eps = 1e-9 * (Math.abs(min) + span + 1);
        expect(t[0]).toBeLessThanOrEqual(min + eps);
        expect(t[t.length - 1]).toBeGreaterThanOrEqual(min + span - eps);
        expect(t.length).toBeLessThanOrEqual(50);
      }),
    );
  });

  it("draws each series as a path with a legend, breaks lines at missing values and escapes text", () => {
    const svg = lineChartSvg({
      title: "a < b & c",
      xLabel: "players",
      yLabel: "ms",
      series: [
        { name: "s1", points: [{ x: 1, y: 1 }, { x: 2, y: null }, { x: 3, y: 3 }, { x: 4, y: 4, marked: true }] },
        { name: "s2", points: [{ x: 1, y: 2 }] },
      ],
    });
    expect(svg.startsWith("<svg xmlns=")).toBe(true);
    expect(svg).toContain("a &lt; b &amp; c");
    // s1's line has two runs (the null breaks it): two M commands in one path.
    const s1 = svg.match(/<path d="(M[^"]*)" fill="none" stroke="#1f77b4"/)![1];
    expect(s1.match(/M/g)).toHaveLength(2);
    expect(svg).toContain(">s1</text>");
    expect(svg).toContain(">s2</text>");
    expect(escapeXml(`"x"`)).toBe("&quot;x&quot;");
  });

  it("stacks charts vertically", () => {
    const one = lineChartSvg({ title: "t", xLabel: "x", yLabel: "y", series: [], width: 100, height: 50 });
    const both = stackSvgs([{ svg: one, width: 100, height: 50 }, { svg: one, width: 100, height: 50 }]);
    expect(both).toContain('height="100"');
    expect(both).toContain('<svg x="0" y="50" ');
  });
});
