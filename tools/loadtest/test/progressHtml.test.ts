import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfigFile } from "../src/load/configFile";
import type { LiveSample } from "../src/live/series";
import { formatProgress, progressPrinter } from "../src/live/progress";
import { compareHtml, runHtml, sweepHtml } from "../src/report/html";
import { report, room } from "./fixtures";

const sample = (t: number, o: Partial<LiveSample> = {}): LiveSample => ({
  tSec: t,
  players: 20,
  target: 20,
  joined: 20,
  failed: 0,
  refused: 0,
  inputsPerSec: 400,
  acksPerSec: 398,
  ackP50Ms: 12.3,
  ackP95Ms: 30,
  ackP99Ms: 41.2,
  frameGapP99Ms: 55,
  framesPerSecPerClient: 19.9,
  downlinkBytesPerSec: 20480,
  downlinkBytesPerSecPerClient: 1024,
  errors: 0,
  unexpectedCloses: 0,
  dropped: 0,
  reconnected: 0,
  onSchedulePct: 100,
  eventLoopP99Ms: 1.2,
  generatorCpuPct: 14,
  ...o,
});

describe("progress line", () => {
  it("shows elapsed/total, players/target, rates, windowed percentiles, errors and generator health", () => {
    const line = formatProgress(sample(12, { serverCpuPct: 33 }), 40);
    expect(line).toBe(
      "[12/40s] players 20/20 | in 400/s ack 398/s | ack p50 12 p99 41 ms | gap p99 55 ms | 19.9 fr/s/cl | down 20 KiB/s | err 0 closes 0 | gen cpu 14% loop 1.2 ms sched 100% | server cpu 33%",
    );
    expect(formatProgress(sample(1, { ackP50Ms: null, ackP99Ms: null, dropped: 6, reconnected: 5 }), 5)).toMatch(/ack p50 - p99 - ms .* back 5\/6/);
  });

  it("redraws one line in place on a TTY and prints plain lines when piped", () => {
    const tty: string[] = [];
    const p = progressPrinter({ isTTY: true, write: (t) => tty.push(t) }, 10);
    p.onSample(sample(1));
    p.onSample(sample(2));
    p.end();
    expect(tty.slice(0, 2).every((t) => t.startsWith("\r\x1b[2K") && !t.includes("\n"))).toBe(true);
    expect(tty.at(-1)).toBe("\n");
    const piped: string[] = [];
    const q = progressPrinter({ isTTY: false, write: (t) => piped.push(t) }, 10);
    q.onSample(sample(1));
    q.end();
    expect(piped).toHaveLength(1);
    expect(piped[0]).toMatch(/^\[ 1\/10s\] .*\n$/);
  });
});

describe("config file", () => {
  it("reads options and thresholds, with stages and drops in the command-line form; refuses a secret", () => {
    const dir = mkdtempSync(join(tmpdir(), "lt-cfg-"));
    const good = join(dir, "run.json");
    writeFileSync(good, JSON.stringify({ url: "ws://127.0.0.1:9", stages: "5s:10,5s:0", drops: ["30%@4s"], thresholds: ["ack.p99<150"], sessionMeanSec: "20s" }));
    expect(readConfigFile(good)).toMatchObject({
      url: "ws://127.0.0.1:9",
      stages: [
        { durationSec: 5, target: 10 },
        { durationSec: 5, target: 0 },
      ],
      drops: [{ pct: 30, atSec: 4 }],
      thresholds: ["ack.p99<150"],
      sessionMeanSec: 20,
    });
    // A matchmaking run's config: its rejoin share as on the command line.
    const match = join(dir, "match.json");
    writeFileSync(match, JSON.stringify({ match: true, arrivalRate: "100/s", arrivals: 1000, sessionMeanSec: "150s", rejoinPct: "10%", query: "cap=8" }));
    expect(readConfigFile(match)).toMatchObject({ match: true, arrivalRate: 100, arrivals: 1000, sessionMeanSec: 150, rejoinPct: 10, query: "cap=8" });
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ ticketSecret: "x".repeat(20) }));
    expect(() => readConfigFile(bad)).toThrow(/keep the ticket secret out of files/);
  });
});

describe("charts and HTML reports", () => {
  it("a run page holds the charts, thresholds with pass/fail, config and environment; nothing external", () => {
    const r = report([room("t-0", { acks: [10, 20], gaps: [50] })]);
    r.series = { intervalSec: 1, samples: [sample(1), sample(2, { serverCpuPct: 40 }), sample(3)], roomStats: [{ tSec: 2, roomId: "t-0", tickP99Ms: 1, flushP99Ms: 2, ccu: 20 }] };
    r.config.thresholds = ["ack.p99<15"];
    r.verdict = { name: "run", valid: true, passed: false, checks: [{ threshold: "ack.p99<15", ok: false, actual: "20" }] };
    const html = runHtml(r);
    expect(html).toMatch(/^<!doctype html>/);
    expect((html.match(/<figure class="chart"/g) ?? []).length).toBeGreaterThanOrEqual(8);
    // A numeric threshold on a charted figure is drawn as a guide on its chart.
    expect(html).toMatch(/data-title="Input -&gt; ack RTT \(1 s windows\)">.*ack\.p99&lt;15.*?<\/figure>/s);
    expect(html).toContain("CPU: generator and server");
    expect(html).toContain("Room tick / flush p99");
    expect(html).toContain("<code>ack.p99&lt;15</code>");
    expect(html).toContain("FAIL");
    expect(html).toContain(r.config.runId);
    expect(html).toContain(r.environment.cpuModel);
    expect(html).not.toMatch(/<script|<link|src=|href=|url\(/);
    const cmp = compareHtml(r, r, ["a.json", "b.json"]);
    expect(cmp).toContain(">A p99</text>");
    expect(cmp).toContain(">B p99</text>");
    const sw = sweepHtml("players", [
      { label: "10", report: r },
      { label: "20", report: r },
    ]);
    expect(sw).toMatch(/<path d="M[^"]+L/);
    // Both entries have the same player count: x falls back to the entry's position.
    expect(sw).toContain("entry (see the table)");
  });
});
