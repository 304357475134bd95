import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { expectedFrames, isShortOfFrames } from "../src/run/steadyWindow";
import {
  clockTicksPerSec,
  listProcesses,
  parseCpuList,
  parseProcStat,
  roleFromCmdline,
  serverProcesses,
  type ProcStat,
} from "../src/server/procStat";
import { ServerCpuSampler, cpuPercent, formatCpuList, summarizeServerCpu, ticksBetween, type CpuSample } from "../src/server/serverCpu";
import { serverRows } from "../src/report/summaryText";
import { steadyMessages } from "../src/run/steadyWindow";
import { runWithServerOptions } from "../src/commands/serverOptions";
import { resolveConfig } from "../src/load/config";

const proc = (pid: number, ppid: number, pgrp: number, comm: string, state = "S"): ProcStat => ({
  pid,
  ppid,
  pgrp,
  comm,
  state,
  utime: 0,
  stime: 0,
  starttime: pid,
});

const sample = (atMs: number, procs: [pid: number, comm: string, ticks: number, starttime?: number][]): CpuSample => ({
  atMs,
  procs: procs.map(([pid, comm, ticks, starttime]) => ({
    pid,
    comm,
    role: comm === "workerd" ? (pid % 2 ? "worker" : "proxy") : "other",
    starttime: starttime ?? 1,
    ticks,
  })),
});

describe("/proc parsing", () => {
  it("reads utime, stime, pgrp and start time after a command name holding spaces and parentheses", () => {
    const line = "4242 (my (odd) cmd) S 4200 4100 4100 0 -1 4194560 500 0 0 0 1234 567 0 0 20 0 9 0 998877 1000000 300 18446744073709551615";
    const st = parseProcStat(line)!;
    expect(st).toMatchObject({ pid: 4242, comm: "my (odd) cmd", state: "S", ppid: 4200, pgrp: 4100, utime: 1234, stime: 567, starttime: 998877 });
    expect(parseProcStat("garbage")).toBeNull();
    expect(parseProcStat("12 (x) S 1 2")).toBeNull();
  });

  it("reads this very process from /proc (CPU time only grows)", () => {
    const me = listProcesses().find((p) => p.pid === process.pid)!;
    expect(me.comm.length).toBeGreaterThan(0);
    expect(me.utime + me.stime).toBeGreaterThan(0);
    expect(clockTicksPerSec()).toBeGreaterThan(0);
  });

  it("a server is its process group plus descendants, without zombies or strangers", () => {
    const all = [
      proc(1, 0, 1, "init"),
      proc(100, 1, 100, "node"), // wrangler, group leader
      proc(101, 100, 100, "workerd"),
      proc(102, 100, 100, "workerd"),
      proc(103, 100, 100, "esbuild", "Z"),
      proc(110, 101, 110, "helper"), // moved to its own group: still a descendant
      proc(111, 110, 110, "helper2"),
      proc(200, 1, 200, "workerd"), // somebody else's server
    ];
    expect(serverProcesses(all, 100).map((p) => p.pid)).toEqual([100, 101, 102, 110, 111]);
    expect(serverProcesses(all, 101).map((p) => p.pid)).toEqual([100, 101, 102, 110, 111]);
    expect(serverProcesses(all, 999)).toEqual([]);
  });

  it("tells the Worker's workerd (with the inspector) from wrangler's proxy", () => {
    expect(roleFromCmdline("workerd", "workerd\0serve\0--binary\0--inspector-addr=127.0.0.1:0\0-")).toBe("worker");
    expect(roleFromCmdline("workerd", "workerd\0serve\0--socket-addr=entry=127.0.0.1:8787\0-")).toBe("proxy");
    expect(roleFromCmdline("node", "node\0wrangler.js")).toBe("other");
  });

  it("CPU lists round-trip", () => {
    expect(parseCpuList("0-2,5")).toEqual([0, 1, 2, 5]);
    expect(parseCpuList("1")).toEqual([1]);
    expect(parseCpuList("x")).toEqual([]);
    expect(formatCpuList([0, 1, 2, 5, 7, 8])).toBe("0-2,5,7-8");
  });
});

describe("server CPU over the window", () => {
  it("sums workerd ticks between samples, counts a process started in between from zero, flags one that left", () => {
    const a = sample(0, [[10, "node", 50], [11, "workerd", 100], [12, "workerd", 30]]);
    const b = sample(2000, [[10, "node", 52], [11, "workerd", 250], [12, "workerd", 40]]);
    expect(ticksBetween(a, b, (c) => c === "workerd")).toEqual({ ticks: 160, changed: false });
    expect(ticksBetween(a, b, (c) => c !== "workerd")).toEqual({ ticks: 2, changed: false });
    // 11 restarted (same pid, new start time) and 12 exited.
    const c = sample(2000, [[11, "workerd", 20, 99]]);
    expect(ticksBetween(a, c, (x) => x === "workerd")).toEqual({ ticks: 20, changed: true });
    expect(ticksBetween(a, b, (x) => x === "workerd", 12)).toEqual({ ticks: 10, changed: false });
  });

  it("percent of one core and µs per message, with a per-second series", () => {
    // 100 ticks/s: 3 s window, workerd 11 uses 240 ticks (80%), 12 uses 30 (10%).
    const samples = [
      sample(1_000, [[10, "node", 0], [11, "workerd", 0], [12, "workerd", 0]]),
      sample(2_000, [[10, "node", 1], [11, "workerd", 60], [12, "workerd", 10]]),
      sample(3_000, [[10, "node", 2], [11, "workerd", 150], [12, "workerd", 20]]),
      sample(4_000, [[10, "node", 3], [11, "workerd", 240], [12, "workerd", 30]]),
    ];
    const r = summarizeServerCpu({ rootPid: 10, samples, clkTck: 100, messages: 13_500, cpusAllowed: "0", onlineCpus: [0, 1] });
    expect(r.cpuPct).toBe(90);
    expect(r.otherCpuPct).toBe(1);
    // 2.7 s of CPU / 13,500 messages = 200 µs.
    expect(r.cpuUsPerMsg).toBe(200);
    expect(r.window.seconds).toBe(3);
    expect(r.samples).toBe(4);
    expect(r.series).toEqual([
      { tSec: 1, cpuPct: 70 },
      { tSec: 2, cpuPct: 100 },
      { tSec: 3, cpuPct: 100 },
    ]);
    expect(r.workerd).toEqual([
      { pid: 11, role: "worker", cpuPct: 80 },
      { pid: 12, role: "proxy", cpuPct: 10 },
    ]);
    expect(r.workerdPids).toEqual([11, 12]);
    expect(r.otherProcesses).toEqual([{ pid: 10, comm: "node" }]);
    expect(r.pinned).toBe(true);
    expect(r.onlineCpus).toBe("0-1");
    expect(r.warnings).toEqual([]);
    expect(serverRows(r)[0][1]).toContain("workerd 90% (worker 80% + proxy 10%) of one core");
  });

  it("says why when there is no figure: one sample, no workerd, unpinned, no messages", () => {
    const one = summarizeServerCpu({ rootPid: 10, samples: [sample(0, [[11, "workerd", 5]])], clkTck: 100, messages: 0, cpusAllowed: "0-1", onlineCpus: [0, 1] });
    expect(one.cpuPct).toBeNull();
    expect(one.cpuUsPerMsg).toBeNull();
    expect(one.pinned).toBe(false);
    expect(one.warnings.join()).toContain("fewer than two CPU samples");
    const none = summarizeServerCpu({ rootPid: 10, samples: [sample(0, [[10, "node", 1]]), sample(10_000, [[10, "node", 2]])], clkTck: 100, messages: 5, cpusAllowed: null, onlineCpus: [0, 1] });
    expect(none.cpuPct).toBe(0);
    expect(none.warnings.join()).toContain("no workerd process");
    expect(cpuPercent(10, 100, 0)).toBeNull();
  });

  it("the sampler refuses a pid that is not a wrangler dev, and reads a real child's CPU", async () => {
    expect(ServerCpuSampler.problem(process.pid)).toMatch(/no workerd/);
    expect(ServerCpuSampler.problem(2 ** 22 + 17)).toMatch(/no process/);
    // A busy child named like workerd is not needed: the sampler's clock and scheduling are
    // checked by reading a spinning child as "other" CPU of its group.
    const child = spawn(process.execPath, ["-e", "const end = Date.now() + 2000; while (Date.now() < end) {}"], { stdio: "ignore" });
    try {
      const s = new ServerCpuSampler(child.pid!);
      // The window opens after Node's start, whose compiler and GC threads run beside the main one.
      const start = Date.now() + 400;
      await s.run(start, start + 1200);
      const r = s.result(0);
      expect(r.samples).toBeGreaterThanOrEqual(2);
      expect(r.window.seconds).toBeGreaterThan(1);
      expect(r.cpuPct).toBe(0);
      // A spinning thread: clearly busy, in percent of one core (Node's helper threads can add a
      // little, so the ceiling is every core of the machine, not one; a unit slip reads 10x).
      expect(r.otherCpuPct!).toBeGreaterThan(5);
      expect(r.otherCpuPct!).toBeLessThan(100 * availableParallelism() + 10);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("steady window", () => {
  it("expects one state frame per expected gap and judges the 99% share", () => {
    expect(expectedFrames(20, 50)).toBe(400);
    expect(expectedFrames(20, 33)).toBeCloseTo(606.06, 1);
    expect(isShortOfFrames(396, 400)).toBe(false);
    expect(isShortOfFrames(395, 400)).toBe(true);
    expect(isShortOfFrames(0, 0)).toBe(false);
  });

  it("messages in the window leave out what was counted before it began", () => {
    expect(steadyMessages({ inputFrames: 1000, framesRx: 900, inputFramesBeforeSteady: 200, framesRxBeforeSteady: 150 })).toBe(1550);
  });
});

describe("run's server options", () => {
  const cfg = resolveConfig({ url: "ws://127.0.0.1:9", players: 1, rooms: 1, durationSec: 1 });

  it("refuses contradictory options before running anything", async () => {
    await expect(runWithServerOptions(cfg, { server: "staging", serverPid: 1234 }, () => {})).rejects.toThrow(/exclude each other/);
    await expect(runWithServerOptions(cfg, { serverCpus: "0" }, () => {})).rejects.toThrow(/needs --server/);
  });
});
