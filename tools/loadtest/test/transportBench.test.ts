import { describe, expect, it } from "vitest";
import { parseByteSize, parseByteSizeList, parseCountList, parseTransportList } from "../src/commands/transportBenchCommand";
import { fitCosts, runFigures, summarizePoints, type BenchReading, type TransportRun } from "../src/bench/transportFigures";

describe("transport-bench arguments", () => {
  it("parses counts, sizes and transports", () => {
    expect(parseCountList("2,4,8")).toEqual([2, 4, 8]);
    expect(parseByteSizeList("2k,16k,64KiB")).toEqual([2048, 16384, 65536]);
    expect(parseByteSize("1200")).toBe(1200);
    expect(parseTransportList("rpc, ws")).toEqual(["rpc", "ws"]);
  });

  it("refuses what it cannot run, saying why", () => {
    expect(() => parseCountList("2,0")).toThrow(/1..64/);
    expect(() => parseCountList("2,2")).toThrow(/twice/);
    expect(() => parseByteSize("8")).toThrow(/16 B/);
    expect(() => parseByteSize("2m")).toThrow(/bad size/);
    expect(() => parseByteSizeList("2k,2048")).toThrow(/twice/);
    expect(() => parseTransportList("rpc,smoke")).toThrow(/unknown transport "smoke"/);
  });
});

const reading = (transport: BenchReading["config"]["transport"], relays: number, updateBytes: number, received: number): BenchReading => {
  const dir = { sent: received, received, errors: 0, outOfOrder: 0, latency: { p50: 0.3, p99: 2, max: 4, count: received } };
  return { config: { transport, relays, updateBytes, inputBytes: 1024, intervalMs: 50 }, windowMs: 2000, updates: dir, inputs: dir, malformed: 0 };
};

describe("transport-bench figures", () => {
  it("turns a reading into rates", () => {
    const r = runFigures(reading("ws", 4, 2048, 160), 1, 12.5);
    expect(r.messagesPerSec).toBe(160);
    expect(r.expectedPerSec).toBe(160);
    expect(r.kibPerSec).toBe((160 * 2048 + 160 * 1024) / 1024 / 2);
  });

  it("subtracts the control and recovers known prices per message and per KiB", () => {
    const usPerMsg = 30;
    const usPerKiB = 2.5;
    const runs: TransportRun[] = [];
    for (const k of [2, 4, 8]) {
      for (const s of [2048, 16384, 65536]) {
        const control = 5 + k * 0.1;
        runs.push(runFigures(reading("none", k, s, 0), 1, control));
        const r = runFigures(reading("rpc", k, s, 20 * k * 2), 1, 0);
        r.workerCpuPct = control + (usPerMsg * r.messagesPerSec + usPerKiB * r.kibPerSec) / 10_000;
        runs.push(r);
      }
    }
    const points = summarizePoints(runs);
    expect(points.find((p) => p.transport === "none")?.aboveNonePct).toBe(0);
    const [cost, ...rest] = fitCosts(points);
    expect(rest).toEqual([]);
    expect(cost!.transport).toBe("rpc");
    expect(cost!.usPerMessage).toBeCloseTo(usPerMsg, 0);
    expect(cost!.usPerKiB).toBeCloseTo(usPerKiB, 1);
  });

  it("fits nothing when the sizes never vary (messages and KiB proportional)", () => {
    const runs = [2, 4, 8].flatMap((k) => [runFigures(reading("none", k, 2048, 0), 1, 5), runFigures(reading("ws", k, 2048, 40 * k), 1, 5 + k)]);
    expect(fitCosts(summarizePoints(runs))).toEqual([]);
  });
});
