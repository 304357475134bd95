import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatSummary } from "../src/report/summaryText";
import { REPORT_FORMAT } from "../src/report/report";
import { writeReport } from "../src/report/reportFiles";
import { report, room } from "./fixtures";

describe("report", () => {
  it("derives the summary from the data: counts, percentiles, rates, spikes, room stats", () => {
    const acks = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100 ms
    const r = report([room("t-0", { acks, gaps: [50, 60, 40, 50], tkFlushP99: 3.5, closes: [4004] })]);
    const s = r.summary;
    expect(r.format).toBe(REPORT_FORMAT);
    expect(r.status).toBe("ok");
    expect(s.clients).toEqual({ planned: 10, joined: 10, refused: 0, throttled: 0, failed: 0 });
    expect(s.ackRttMs.count).toBe(100);
    expect(s.ackRttMs.p50).toBeCloseTo(50, 1);
    expect(s.ackRttMs.p99).toBeCloseTo(99, 1);
    expect(s.ackRttMs.max).toBeCloseTo(100, 0);
    expect(s.frameJitterMs.max).toBeCloseTo(10, 1);
    expect(s.frameGapMs.count).toBe(4);
    expect(s.unexpectedCloses).toBe(1);
    expect(s.closeCodes).toEqual({ "4004": 1 });
    expect(s.inputs.sent).toBe(100);
    expect(s.inputs.onSchedulePct).toBe(100);
    expect(s.perClient.downlinkBytesPerSec).toBe(10); // 1000 B over 10 clients x 10 s
    expect(s.perClient.uplinkBytesPerSec).toBe(5);
    expect(s.roomStats).toEqual({ fetched: 1, missing: 0, flushP99Ms: 3.5, flushSliceP99Ms: null, tickP99Ms: null, timerLateP99Ms: null, busyPct: null, relaysBusyPct: null, relays: 0 });
    expect(s.tickMs).toEqual([50]);
    // 12.5% of a core for 10 s over 4 received frames (no INPUT frames in this fixture).
    expect(s.generator.cpuMicrosPerMessage).toBe(312_500);
    expect(r.rooms[0].histograms.ackRtt).toMatch(/^[A-Za-z0-9+/=]+$/);
  });

  it("marks the run generator_saturated when < 99% of inputs left on schedule", () => {
    const ok = report([room("t-0", { acks: Array(99).fill(5), late: 1 })]);
    expect(ok.summary.inputs.onSchedulePct).toBe(99);
    expect(ok.status).toBe("ok");
    const bad = report([room("t-0", { acks: Array(98).fill(5), late: 2 })]);
    expect(bad.status).toBe("generator_saturated");
    expect(bad.saturationReasons[0]).toMatch(/98.00% of inputs on schedule/);
  });

  it("marks the run generator_saturated when a thread's event-loop p99 exceeds 50 ms", () => {
    expect(report([room("t-0", { acks: [5] })], { eldP99: 50 }).status).toBe("ok");
    const bad = report([room("t-0", { acks: [5] })], { eldP99: 50.5 });
    expect(bad.status).toBe("generator_saturated");
    expect(bad.saturationReasons[0]).toMatch(/event-loop delay p99 50.5 ms/);
  });

  it("writes <timestamp>-<name>.json and prints a summary naming the key figures", () => {
    const r = report([room("t-0", { acks: [12, 14], tkFlushP99: 2 }), room("t-1", { acks: [13] })]);
    const dir = mkdtempSync(join(tmpdir(), "lt-"));
    try {
      const path = writeReport(r, dir);
      expect(path).toMatch(/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-t\.json$/);
      expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(JSON.parse(JSON.stringify(r)));
    } finally {
      rmSync(dir, { recursive: true });
    }
    const text = formatSummary(r);
    for (const k of ["input->ack RTT", "gap jitter", "on schedule", "tk:stats", "event-loop", "t-1", "no reply"]) expect(text).toContain(k);
  });
});
