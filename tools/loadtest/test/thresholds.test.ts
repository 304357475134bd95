import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateThreshold, evaluateThresholds, liveBreach, liveThresholds } from "../src/thresholds/evaluate";
import { FIGURES } from "../src/thresholds/figures";
import { compare, parseThreshold, parseThresholds } from "../src/thresholds/parse";
import { report, room } from "./fixtures";

describe("threshold language", () => {
  it("parses scope, figure, operator and a sum of numbers and figures", () => {
    expect(parseThreshold("ack.p99 < 150")).toMatchObject({ scope: { kind: "total" }, figure: "ack.p99", op: "<", rhs: [{ sign: 1, value: 150 }] });
    expect(parseThreshold("room:frames_per_s>=19.8")).toMatchObject({ scope: { kind: "every-room" }, figure: "frames_per_s", op: ">=" });
    expect(parseThreshold("rooms[2].ack.p99<=tick_ms+sync_ms-5")).toMatchObject({
      scope: { kind: "room", index: 2 },
      op: "<=",
      rhs: [
        { sign: 1, figure: "tick_ms" },
        { sign: 1, figure: "sync_ms" },
        { sign: -1, value: 5 },
      ],
    });
    for (const bad of ["ack.p99", "ack.p99<", "<5", "ack.p99<1..2"]) expect(() => parseThreshold(bad)).toThrow(/threshold/);
    expect(() => parseThresholds(["nope.p99<1"])).toThrow(/unknown figure "nope.p99"/);
  });

  it("each operator agrees with JavaScript's comparison (property)", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), fc.double({ noNaN: true, min: -1e6, max: 1e6 }), (a, b) => {
        expect(compare(a, "<", b)).toBe(a < b);
        expect(compare(a, "<=", b)).toBe(a <= b);
        expect(compare(a, ">", b)).toBe(a > b);
        expect(compare(a, ">=", b)).toBe(a >= b);
        expect(compare(a, "==", b)).toBe(a === b);
        expect(compare(a, "!=", b)).toBe(a !== b);
      }),
    );
  });

  it("judges total figures, every room and one room, naming the failing room", () => {
    const r = report([room("t-0", { acks: Array(100).fill(20) }), room("t-1", { acks: Array(100).fill(200) })]);
    expect(evaluateThreshold(r, "ack.p50<150").ok).toBe(true);
    expect(evaluateThreshold(r, "ack.p99<150").ok).toBe(false);
    expect(evaluateThreshold(r, "rooms[0].ack.p99<150")).toMatchObject({ ok: true });
    const every = evaluateThreshold(r, "room:ack.p99<150");
    expect(every.ok).toBe(false);
    expect(every.actual).toMatch(/^t-1: 200/);
    expect(evaluateThreshold(r, "rooms[5].ack.p99<1").actual).toMatch(/2 room/);
    expect(evaluateThreshold(r, "clients.joined==20").ok).toBe(true);
    expect(evaluateThreshold(r, "room:clients.joined==10").ok).toBe(true);
    expect(evaluateThreshold(r, "ack.p99<=tick_ms+100")).toMatchObject({ ok: false, actual: expect.stringMatching(/limit 150/) });
    // Generator figures exist for the total only.
    expect(evaluateThreshold(r, "room:generator.cpu_pct<100").ok).toBe(false);
  });

  it("a figure that was not measured fails the threshold instead of passing it", () => {
    const r = report([room("t-0", {})]);
    expect(evaluateThreshold(r, "ack.p99<1000")).toMatchObject({ ok: false, actual: "ack.p99 not measured" });
    expect(evaluateThreshold(r, "reconnect.p99<1000").ok).toBe(false);
  });

  it("every documented figure evaluates on a report without throwing", () => {
    const r = report([room("t-0", { acks: [10], gaps: [50], tkFlushP99: 3 })]);
    const checks = evaluateThresholds(r, FIGURES.map((f) => `${f.name}>=-1`));
    expect(checks.filter((c) => c.actual.includes("unknown"))).toEqual([]);
  });

  it("live thresholds: only total-scope figures with a live twin and a numeric limit; breach on a sample", () => {
    const live = liveThresholds(["ack.p99<150", "room:ack.p99<150", "ack.p99<tick_ms+1", "flush.p99<20", "frames_per_s>=19"]);
    expect(live.map((t) => t.source)).toEqual(["ack.p99<150", "frames_per_s>=19"]);
    expect(liveBreach(live, { ackP99Ms: 100, framesPerSecPerClient: 20 })).toBeNull();
    expect(liveBreach(live, { ackP99Ms: null, framesPerSecPerClient: 20 })).toBeNull();
    expect(liveBreach(live, { ackP99Ms: 151, framesPerSecPerClient: 20 })).toEqual({ threshold: "ack.p99<150", actual: "151" });
  });
});

describe("the README's figures table", () => {
  it("names every figure of FIGURES (a distribution as `<prefix>.{…}`)", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const table = readme.slice(readme.indexOf("### Figures"), readme.indexOf("## Config files"));
    const missing = FIGURES.map((f) => f.name).filter((name) => !table.includes(`\`${name}\``) && !table.includes(`\`${name.slice(0, name.lastIndexOf("."))}.{`));
    expect(missing).toEqual([]);
  });
});
