import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareReports, formatComparison } from "../src/report/compare";
import { mergeReports } from "../src/report/merge";
import { readReport } from "../src/report/reportFiles";
import { report, room } from "./fixtures";

const shard = (index: number) => ({ index, count: 2 });

describe("merge", () => {
  it("merging shard reports equals one report that saw every sample", () => {
    const acksA = [1, 5, 9, 40, 41, 300];
    const acksB = [2, 3, 77, 1500];
    const a = report([room("t-0", { acks: acksA, gaps: [50, 51], tkFlushP99: 4 }), room("t-1", { acks: [7] })], { shard: shard(0) });
    const b = report([room("t-0", { acks: acksB, gaps: [49, 70], closes: [1006] }), room("t-1", { acks: [8, 9] })], { shard: shard(1) });
    const merged = mergeReports([a, b]);
    const whole = report([room("t-0", { acks: [...acksA, ...acksB], gaps: [50, 51, 49, 70], tkFlushP99: 4, joined: 20, closes: [1006] }), room("t-1", { acks: [7, 8, 9], joined: 20 })]);
    expect(merged.summary.ackRttMs).toEqual(whole.summary.ackRttMs);
    expect(merged.summary.frameGapMs).toEqual(whole.summary.frameGapMs);
    expect(merged.summary.frameJitterMs).toEqual(whole.summary.frameJitterMs);
    expect(merged.summary.clients.joined).toBe(40);
    expect(merged.summary.unexpectedCloses).toBe(1);
    expect(merged.summary.inputs.sent).toBe(whole.summary.inputs.sent);
    expect(merged.rooms.map((r) => r.roomId)).toEqual(["t-0", "t-1"]);
    expect(merged.summary.rooms[0].ackP99Ms).toBe(whole.summary.rooms[0].ackP99Ms);
    expect(merged.summary.roomStats.flushP99Ms).toBe(4);
    expect(merged.generators).toHaveLength(2);
    expect(merged.merge?.warnings).toEqual([]);
    expect(merged.status).toBe("ok");
  });

  it("round-trips through files", () => {
    const dir = mkdtempSync(join(tmpdir(), "lt-"));
    try {
      const a = report([room("t-0", { acks: [1, 2] })], { shard: shard(0) });
      const b = report([room("t-0", { acks: [3] })], { shard: shard(1) });
      writeFileSync(join(dir, "a.json"), JSON.stringify(a));
      writeFileSync(join(dir, "b.json"), JSON.stringify(b));
      const m = mergeReports([readReport(join(dir, "a.json")), readReport(join(dir, "b.json"))]);
      expect(m.summary.ackRttMs.count).toBe(3);
      writeFileSync(join(dir, "bad.json"), "{}");
      expect(() => readReport(join(dir, "bad.json"))).toThrow(/not a/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("refuses the same shard twice, and a saturated shard makes the merge saturated", () => {
    const a = report([room("t-0", { acks: [1] })], { shard: shard(0) });
    expect(() => mergeReports([a, a])).toThrow(/double count/);
    const b = report([room("t-0", { acks: [1] })], { shard: shard(1), eldP99: 80 });
    const m = mergeReports([a, b]);
    expect(m.status).toBe("generator_saturated");
  });

  it("warns when the inputs do not describe one run", () => {
    const a = report([room("t-0", { acks: [1] })], { shard: shard(0) });
    const b = report([room("u-0", { acks: [1] })], { shard: shard(1), config: { roomPrefix: "u" } });
    const m = mergeReports([a, b]);
    expect(m.merge?.warnings.join("\n")).toMatch(/roomPrefix differs/);
    expect(m.rooms).toHaveLength(2);
  });
});

describe("compare", () => {
  it("reports b − a per metric and which direction is worse", () => {
    const a = report([room("t-0", { acks: Array(100).fill(10) })]);
    const b = report([room("t-0", { acks: Array(100).fill(20) })]);
    const c = compareReports(a, b, ["a", "b"]);
    const p99 = c.rows.find((r) => r.metric === "ack p99 ms")!;
    expect(p99.a).toBeCloseTo(10, 1);
    expect(p99.b).toBeCloseTo(20, 1);
    expect(p99.delta).toBeCloseTo(10, 1);
    expect(p99.deltaPct).toBeCloseTo(100, 0);
    const text = formatComparison(c);
    expect(text).toMatch(/ack p99 ms.*worse/);
    expect(text).not.toMatch(/clients joined.*worse/);
  });

  it("warns about saturated runs and different configs", () => {
    const a = report([room("t-0", { acks: [1] })]);
    const b = report([room("t-0", { acks: [1] })], { eldP99: 99, config: { players: 20 } });
    const c = compareReports(a, b, ["a", "b"]);
    expect(c.warnings.join("\n")).toMatch(/b is generator_saturated/);
    expect(c.warnings.join("\n")).toMatch(/config.players: 10 vs 20/);
  });
});

describe("merge of reconnect data", () => {
  it("reconnect counters sum and the reconnect histogram merges exactly; rooms without drops carry none", async () => {
    const { mergeRoomData } = await import("../src/metrics/mergeRoomData");
    const { recordMs, summarizeEncoded } = await import("../src/metrics/histogram");
    const a = room("t-0");
    const b = room("t-0");
    const c = room("t-0");
    for (const [r, times] of [
      [a, [100, 200]],
      [b, [300]],
    ] as const) {
      for (const t of times) {
        r.counters.dropped++;
        r.counters.reconnected++;
        recordMs(r.reconnectH, t);
      }
    }
    const merged = mergeRoomData([a.toData(), b.toData(), c.toData()], "t-0");
    expect(merged.counters).toMatchObject({ dropped: 3, reconnected: 3 });
    expect(summarizeEncoded(merged.histograms.reconnect!)).toMatchObject({ count: 3, max: expect.closeTo(300, 0) });
    expect(c.toData().histograms.reconnect).toBeUndefined();
    expect(mergeRoomData([c.toData()], "t-0").histograms.reconnect).toBeUndefined();
  });
});
