import { describe, expect, it } from "vitest";
import { ExitCode, exitCodeFor, formatGateResult } from "../src/report/verdict";
import { evaluateGate, gateConfig, getGate } from "../src/gates/gates";
import { resolveConfig } from "../src/load/config";
import { buildPlan } from "../src/load/loadPlan";
import { ARRIVALS_SETTLE_MS } from "../src/run/shardRun";
import { report, room } from "./fixtures";

const gate = getGate("local-100");

describe("gates (presets in the threshold language)", () => {
  it("local-100 passes a clean report", () => {
    const r = report([room("t-0", { joined: 100, acks: Array(1000).fill(60), gaps: [50, 50], tkFlushP99: 5 })]);
    const res = evaluateGate(gate, r);
    expect(res.failures).toEqual([]);
    expect(res.passed).toBe(true);
    expect(exitCodeFor(res)).toBe(ExitCode.pass);
    expect(formatGateResult(res)).toMatch(/PASS/);
  });

  it("names every failed threshold, with the computed limit", () => {
    const r = report([room("t-0", { joined: 99, planned: 100, acks: [...Array(980).fill(60), ...Array(20).fill(1200)], closes: [4004], tkFlushP99: 25, spikes: 3 })]);
    const res = evaluateGate(gate, r);
    expect(res.passed).toBe(false);
    expect(exitCodeFor(res)).toBe(ExitCode.thresholdFailed);
    expect(res.checks.filter((c) => !c.ok).map((c) => c.threshold)).toEqual([
      "clients.joined==100",
      "unexpected_closes==0",
      "spikes==0",
      "ack.p99<=tick_ms+30",
      "flush.p99<=20",
    ]);
    expect(res.failures.join("\n")).toMatch(/ack\.p99<=tick_ms\+30: got 120\d\.\d+ \(limit 80\)/);
  });

  it("ack p99 limit is the announced tick + 30 ms", () => {
    const at = (ms: number) =>
      evaluateGate(gate, report([room("t-0", { joined: 100, acks: Array(100).fill(ms), tkFlushP99: 1 })])).checks.find((c) => c.threshold.startsWith("ack.p99"))!.ok;
    expect(at(79.9)).toBe(true);
    expect(at(81)).toBe(false);
  });

  it("missing tk:stats fails the flush threshold instead of passing it", () => {
    const res = evaluateGate(gate, report([room("t-0", { joined: 100, acks: [60] })]));
    const flush = res.checks.find((c) => c.threshold === "flush.p99<=20")!;
    expect(flush.ok).toBe(false);
    expect(flush.actual).toMatch(/not measured/);
  });

  it("a saturated generator makes the gate invalid (exit 98) even when every threshold holds", () => {
    const r = report([room("t-0", { joined: 100, acks: Array(100).fill(60), tkFlushP99: 5 })], { eldP99: 120 });
    const res = evaluateGate(gate, r);
    expect(res.checks.every((c) => c.ok)).toBe(true);
    expect(res.valid).toBe(false);
    expect(res.passed).toBe(false);
    expect(exitCodeFor(res)).toBe(ExitCode.invalidRun);
    expect(res.failures[0]).toMatch(/invalid run: generator_saturated/);
  });

  it("deployed-100 needs a url, smoke is marked for CI, exit codes are distinct", () => {
    expect(getGate("deployed-100").defaultUrl).toBeNull();
    expect(getGate("smoke").ci).toBe(true);
    expect(() => getGate("nope")).toThrow(/known: smoke, local-100, deployed-100/);
    expect(new Set(Object.values(ExitCode)).size).toBe(4);
  });
});

describe("matchmaking gates (issue 22's 1,000-player run)", () => {
  it("match-1000: 1,000 arrivals at 100/s matched into 8-seat rooms, fill sampled before the window ends", () => {
    const cfg = resolveConfig(gateConfig(getGate("match-1000")));
    expect(cfg).toMatchObject({ match: true, scenario: "agar", query: "cap=8", load: { kind: "open", arrivalRate: 100, arrivals: 1000 } });
    const plan = buildPlan(cfg);
    expect(plan.clients).toHaveLength(1000);
    expect(plan.arrivalsEndMs).toBe(9_990);
    expect(plan.arrivalsEndMs + ARRIVALS_SETTLE_MS).toBeLessThan(plan.windowMs);
    for (const t of ["match.over_cap==0", "match.fill_pct>=98", "seated.p99<=150", "clients.failed==0", "match.lost_reservations==0"]) expect(getGate("match-1000").thresholds).toContain(t);
  });

  it("match-1000-rejoin: about a tenth of the players leave and come back, nearly all before arrivals end", () => {
    const cfg = resolveConfig({ ...gateConfig(getGate("match-1000-rejoin")), seed: 5 });
    const plan = buildPlan(cfg);
    const leaves = plan.clients.filter((c) => c.leaveAtMs !== null).length;
    const rejoins = plan.clients.filter((c) => c.player !== undefined).length;
    expect(leaves).toBeGreaterThan(60);
    expect(leaves).toBeLessThan(160);
    expect(rejoins).toBeGreaterThan(0.7 * leaves);
    expect(getGate("match-1000-rejoin").thresholds).toEqual(getGate("match-1000").thresholds.filter((t) => !t.startsWith("clients.planned")));
  });

  it("join-1000 (issue 32): match-1000's arrivals with idle players, held to match-1000's bars and the join path's", () => {
    const cfg = resolveConfig(gateConfig(getGate("join-1000")));
    expect(cfg).toMatchObject({ match: true, scenario: "agar", query: "cap=8", rate: 0, load: { kind: "open", arrivalRate: 100, arrivals: 1000 } });
    const plan = buildPlan(cfg);
    expect(plan.clients).toHaveLength(1000);
    expect(plan.arrivalsEndMs + ARRIVALS_SETTLE_MS).toBeLessThan(plan.windowMs);
    expect(getGate("join-1000").thresholds).toEqual([...getGate("match-1000").thresholds, "path.ms<=1.5", "path.confirmed_writes<=1"]);
  });
});
