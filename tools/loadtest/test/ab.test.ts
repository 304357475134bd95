import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { abOrder, parseAbSpec } from "../src/ab/abSpec";
import { abRows, abTable, formatSpread, rangesOverlap, ratio, spread, type AbRunRecord } from "../src/ab/abStats";
import { sideLoad } from "../src/ab/abRun";

describe("A/B specs", () => {
  it("parses key=value pairs, keeping a query's own = and &", () => {
    expect(parseAbSpec("label=floor,config=apps/floor/wrangler.jsonc", "A")).toEqual({ label: "floor", config: "apps/floor/wrangler.jsonc" });
    expect(parseAbSpec("query=tickMs=50&aoi=250, players=50,rate=30,scenario=fps,rev=HEAD~1", "B")).toEqual({
      label: "B",
      config: "staging",
      query: "tickMs=50&aoi=250",
      players: 50,
      rate: 30,
      scenario: "fps",
      rev: "HEAD~1",
    });
    expect(parseAbSpec("", "A")).toEqual({ label: "A", config: "staging" });
  });

  it("refuses unknown keys, missing values and bad numbers with a message naming them", () => {
    expect(() => parseAbSpec("colour=red", "A")).toThrow(/unknown spec key "colour"/);
    expect(() => parseAbSpec("players=1.5", "A")).toThrow(/players must be a positive integer/);
    expect(() => parseAbSpec("rate=0", "A")).toThrow(/rate/);
    expect(() => parseAbSpec("config=", "A")).toThrow(/config needs a value/);
    expect(() => parseAbSpec("justtext", "A")).toThrow(/key=value/);
  });

  it("a side's load is the base with the spec's keys on top", () => {
    const load = sideLoad({ scenario: "agar", players: 100, durationSec: 30, query: "cap=100&aoi=600" }, parseAbSpec("query=aoi=250,players=50", "A"), "x");
    expect(load).toMatchObject({ scenario: "agar", players: 50, rooms: 1, durationSec: 30, query: "cap=100&aoi=250", name: "x" });
  });

  it("run order: every side k times; abba mirrors each pair", () => {
    expect(abOrder(2, "alternate").join("")).toBe("ABAB");
    expect(abOrder(3, "abba").join("")).toBe("ABBAAB");
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.constantFrom("abba" as const, "alternate" as const), (k, order) => {
        const seq = abOrder(k, order);
        expect(seq.filter((s) => s === "A")).toHaveLength(k);
        expect(seq.filter((s) => s === "B")).toHaveLength(k);
        // Never three of a side in a row: runs of one side stay interleaved with the other.
        expect(seq.join("")).not.toMatch(/AAA|BBB/);
      }),
    );
  });
});

describe("A/B statistics", () => {
  it("median (middle pair averaged), range, n; missing values left out", () => {
    expect(spread([3, 1, 2])).toEqual({ n: 3, median: 2, min: 1, max: 3 });
    expect(spread([4, null, 1, 2, 3])).toEqual({ n: 4, median: 2.5, min: 1, max: 4 });
    expect(spread([null, null])).toEqual({ n: 0, median: null, min: null, max: null });
    expect(formatSpread(spread([10, 12, 11]))).toBe("11 [10–12] n=3");
    expect(formatSpread(spread([7]))).toBe("7 (n=1)");
    expect(formatSpread(spread([]))).toBe("n/a");
  });

  it("the median lies within the range and is order-independent", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 30 }), (xs) => {
        const s = spread(xs);
        expect(s.n).toBe(xs.length);
        expect(s.median!).toBeGreaterThanOrEqual(s.min! - 0.01);
        expect(s.median!).toBeLessThanOrEqual(s.max! + 0.01);
        expect(spread([...xs].reverse())).toEqual(s);
      }),
    );
  });

  it("ranges overlap or lie apart", () => {
    expect(rangesOverlap(spread([10, 12]), spread([12, 15]))).toBe(true);
    expect(rangesOverlap(spread([10, 12]), spread([13, 15]))).toBe(false);
    expect(rangesOverlap(spread([20, 30]), spread([13, 15]))).toBe(false);
    expect(rangesOverlap(spread([]), spread([13, 15]))).toBeNull();
  });

  it("B/A of medians; none when A is 0 or either side is missing", () => {
    expect(ratio(spread([10]), spread([25]))).toBe(2.5);
    expect(ratio(spread([0]), spread([25]))).toBeNull();
    expect(ratio(spread([]), spread([25]))).toBeNull();
  });

  const run = (side: "A" | "B", repeat: number, cpu: number | null, status: "ok" | "generator_saturated" = "ok", error?: string): AbRunRecord => ({
    side,
    repeat,
    status: error ? undefined : status,
    error,
    figures: error ? {} : { serverCpuPct: cpu, flushP99Ms: null },
  });

  it("saturated and failed runs stay out of the medians; a side with only saturated runs uses them and says so", () => {
    const { rows, usedSaturated } = abRows([
      run("A", 1, 20),
      run("A", 2, 22),
      run("A", 3, 90, "generator_saturated"),
      run("B", 1, 40),
      run("B", 2, 0, "ok", "server did not start"),
    ]);
    const cpu = rows.find((r) => r.id === "serverCpuPct")!;
    expect(cpu.a).toEqual({ n: 2, median: 21, min: 20, max: 22 });
    expect(cpu.b).toEqual({ n: 1, median: 40, min: 40, max: 40 });
    expect(cpu.ratio).toBe(1.905);
    // A server without tk:stats: the figure is missing, not an error.
    expect(rows.find((r) => r.id === "flushP99Ms")!.ratio).toBeNull();
    expect(usedSaturated).toEqual([]);
    const only = abRows([run("A", 1, 20), run("B", 1, 50, "generator_saturated")]);
    expect(only.usedSaturated).toEqual(["B"]);
    expect(only.rows[0].b.median).toBe(50);
  });

  it("the table names both sides and every figure, in text and markdown", () => {
    const { rows } = abRows([run("A", 1, 20), run("B", 1, 30)]);
    const text = abTable(rows, { a: "room", b: "floor" }, false);
    expect(text.split("\n")[0]).toMatch(/figure\s+A: room median \[min–max\]\s+B: floor median \[min–max\]\s+B\/A\s+ranges/);
    expect(text).toMatch(/server CPU % \(workerd; 100 = 1 core\)\s+20 \(n=1\)\s+30 \(n=1\)\s+1\.500\s+apart/);
    const md = abTable(rows, { a: "room", b: "floor" }, true).split("\n");
    expect(md[1]).toBe("|---|---|---|---|---|");
    expect(md).toHaveLength(2 + rows.length);
  });
});
