/**
 * Server CPU sampling end to end: a fresh wrangler dev pinned to one core, the load in a child
 * process pinned to the others, workerd's CPU read over the steady window. Kept short (one
 * server, 5 players, 4 s window) so it costs well under 40 s.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { groupMembers } from "@tikron/devserver";
import { afterAll, describe, expect, it } from "vitest";
import { defaultPinning } from "../src/server/pinning";
import { runOnFreshServer } from "../src/run/freshRun";

const workDir = mkdtempSync(join(os.tmpdir(), "tikron-cpu-it-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe("server CPU of a fresh wrangler dev", () => {
  it("reads workerd's CPU over the steady window, per message, pinned apart from the generator", { timeout: 90_000 }, async () => {
    const pinning = defaultPinning();
    const r = await runOnFreshServer({
      serverConfig: "staging",
      load: { scenario: "agar", players: 5, rooms: 1, durationSec: 4, rampSec: 1, name: "it-server-cpu" },
      pinning,
      workDir,
    });
    const s = r.server!;
    expect(s, "report.server").toBeDefined();
    expect(r.summary.clients.joined).toBe(5);
    // The window is the 4 s after the ramp, read at its start, once a second and at its end.
    expect(s.window.seconds).toBeGreaterThan(3.8);
    expect(s.window.seconds).toBeLessThan(4.5);
    expect(s.samples).toBeGreaterThanOrEqual(5);
    expect(s.series.length).toBe(s.samples - 1);
    // A room with 5 players at 20 Hz keeps workerd busy but nowhere near a whole core.
    expect(s.cpuPct!).toBeGreaterThan(0.5);
    expect(s.cpuPct!).toBeLessThan(100);
    const worker = s.workerd.find((w) => w.role === "worker");
    const proxy = s.workerd.find((w) => w.role === "proxy");
    expect(worker, "worker workerd").toBeDefined();
    // The sockets went straight to the worker's entry socket: wrangler's dev proxy stayed idle
    // while the worker carried every message (through the proxy both cost about the same).
    expect(proxy, "dev proxy workerd").toBeDefined();
    expect(proxy!.cpuPct!).toBeLessThan(worker!.cpuPct! / 4);
    expect(s.workerdPids.length).toBeGreaterThanOrEqual(1);
    // 5 clients x (20 inputs + 20 frames) per second x 4 s = 800 messages in the window.
    expect(s.messages).toBeGreaterThan(500);
    expect(s.messages).toBeLessThan(1000);
    expect(s.cpuUsPerMsg).toBeCloseTo(((s.cpuPct! / 100) * s.window.seconds * 1e6) / s.messages, -1);
    if (pinning.serverCpus !== null) {
      expect(s.pinned).toBe(true);
      expect(s.cpusAllowed).toBe(pinning.serverCpus);
      expect(s.affinity).toEqual({ requested: pinning.serverCpus, applied: true });
      // The generator ran in its own process, pinned to the other cores.
      expect(r.environment.cpus).toBe(os.cpus().length - 1);
    }
    expect(s.warnings).toEqual([]);
    // Nothing of the server is left.
    expect(groupMembers(s.rootPid)).toEqual([]);
  });

  it("profiles the Worker's isolate over the steady window through the inspector", { timeout: 90_000 }, async () => {
    const profilePath = join(workDir, "it.cpuprofile");
    const r = await runOnFreshServer({
      serverConfig: "staging",
      load: { scenario: "agar", players: 5, rooms: 1, durationSec: 8, rampSec: 1, name: "it-profile" },
      pinning: defaultPinning(),
      workDir,
      profile: { seconds: 2, profilePath },
    });
    const p = r.server!.profile!;
    expect(p, "report.server.profile").toBeDefined();
    expect(p.seconds).toBeGreaterThan(1.5);
    // workerd's profiler samples while the isolate runs: ~40 in 2 s alone on this machine, ~10
    // when other tests' servers share its core. Some samples, not a rate, is what this holds.
    expect(p.samples).toBeGreaterThan(5);
    // The room's own code is on the profile: its flush runs 20 times a second for 5 players.
    expect(p.top.some((e) => e.where.includes(".js:"))).toBe(true);
    expect(existsSync(profilePath)).toBe(true);
    expect(JSON.parse(readFileSync(profilePath, "utf8")).nodes.length).toBeGreaterThan(10);
    expect(groupMembers(r.server!.rootPid)).toEqual([]);
  });
});
