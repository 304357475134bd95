import { describe, expect, it } from "vitest";
import { profileLines, summarizeProfile, type CpuProfile } from "../src/server/cpuProfile";

const frame = (functionName: string, url = "", lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });

// 10 samples over 10 ms: idle 4, flush 3 (two nodes of the same function), encode 2, program 1.
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)") },
    { id: 2, callFrame: frame("(idle)") },
    { id: 3, callFrame: frame("flushBinary", "file:///x/room.ts", 313) },
    { id: 4, callFrame: frame("flushBinary", "file:///x/room.ts", 313) },
    { id: 5, callFrame: frame("encodeClient", "file:///x/schemaStateEncoder.ts", 93) },
    { id: 6, callFrame: frame("(program)") },
    { id: 7, callFrame: frame("", "file:///x/anon.ts", 9) },
    { id: 8, callFrame: frame("(garbage collector)") },
  ],
  startTime: 0,
  endTime: 10_000,
  samples: [2, 2, 3, 4, 5, 2, 3, 5, 6, 2],
  timeDeltas: Array(10).fill(1000),
};

describe("CPU profile summary", () => {
  it("sums self time per function and place, largest first", () => {
    const s = summarizeProfile(PROFILE);
    expect(s.samples).toBe(10);
    expect(s.seconds).toBe(0);
    expect(s.busyPct).toBe(60);
    expect(s.gcPausesMs).toEqual([]);
    expect(s.top.map((e) => [e.name, e.where, e.selfPct])).toEqual([
      ["(idle)", "", 40],
      ["flushBinary", "room.ts:314", 30],
      ["encodeClient", "schemaStateEncoder.ts:94", 20],
      ["(program)", "", 10],
    ]);
  });
  it("keeps the top N and says so in text", () => {
    const s = summarizeProfile({ ...PROFILE, endTime: 2_000_000 }, 2);
    expect(s.top).toHaveLength(2);
    expect(s.top[1]!.selfMs).toBe(600);
    const lines = profileLines(s);
    expect(lines[0]).toContain("2 s, 10 samples, isolate busy 60 %");
    expect(lines[2]).toContain("flushBinary  room.ts:314");
  });
  it("an empty profile is all zeros, not NaN", () => {
    const s = summarizeProfile({ nodes: [], startTime: 0, endTime: 0 });
    expect(s).toEqual({ seconds: 0, samples: 0, busyPct: 0, gcPausesMs: [], top: [] });
  });
  it("measures GC pauses as runs of consecutive GC samples, longest first", () => {
    // GC at samples 1-3 (3 ms: deltas to samples 2, 3, 4) and at sample 6 (5 ms).
    const s = summarizeProfile({
      ...PROFILE,
      samples: [2, 8, 8, 8, 3, 2, 8, 2],
      timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 5000],
    });
    expect(s.gcPausesMs).toEqual([5, 3]);
  });
});
