/**
 * Live progress, thresholds during the run, load models and scenario files, end to end against
 * real rooms on the loopback Node host. Runs are a few seconds and at most 20 players.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { RoomServer } from "@tikron/node";
import { serverTotals, startRooms } from "./nodeRooms";
import { evaluateReport } from "../src/report/verdict";
import { runLoad, type LiveSample } from "../src/index";

let rooms: RoomServer | null = null;
afterEach(async () => {
  await rooms?.close();
  rooms = null;
});

describe("live samples and series", () => {
  it("one sample per second with players, rates and windowed percentiles; tk:stats sampled during the run", { timeout: 40_000 }, async () => {
    rooms = await startRooms();
    const seen: LiveSample[] = [];
    const r = await runLoad(
      { url: rooms.url, players: 10, rooms: 2, durationSec: 4, rampSec: 1, statsEverySec: 1, name: "live" },
      { onSample: (s) => seen.push(s) },
    );
    const samples = r.series!.samples;
    expect(samples).toEqual(seen);
    // A sample per whole second of the 5 s window (the last may fall at the window's end).
    expect(samples.length).toBeGreaterThanOrEqual(4);
    expect(samples.map((s) => s.tSec).slice(0, 4)).toEqual([1, 2, 3, 4]);
    const steady = samples.filter((s) => s.tSec >= 2 && s.tSec <= 4);
    for (const s of steady) {
      expect(s.players).toBe(20);
      expect(s.target).toBe(20);
      // 20 players x 20 Hz.
      expect(s.inputsPerSec).toBeGreaterThan(300);
      expect(s.inputsPerSec).toBeLessThan(500);
      expect(s.ackP50Ms).not.toBeNull();
      expect(s.ackP99Ms!).toBeGreaterThanOrEqual(s.ackP50Ms!);
      expect(s.ackP99Ms!).toBeLessThan(250);
      expect(s.frameGapP99Ms!).toBeGreaterThan(40);
      expect(s.framesPerSecPerClient!).toBeGreaterThan(15);
      expect(s.framesPerSecPerClient!).toBeLessThan(25);
      expect(s.downlinkBytesPerSec).toBeGreaterThan(0);
      expect(s.errors).toBe(0);
      expect(s.generatorCpuPct).toBeGreaterThan(0);
      expect(s.serverCpuPct).toBeUndefined();
    }
    // Over the sampled seconds, acks keep up with inputs (a 50 ms flush lags them by < 1 s),
    // and the windows never count more inputs than the run sent.
    const windowAcks = samples.reduce((a, s) => a + s.acksPerSec, 0);
    const windowInputs = samples.reduce((a, s) => a + s.inputsPerSec, 0);
    expect(windowAcks).toBeGreaterThan(windowInputs * 0.9);
    expect(windowInputs).toBeLessThanOrEqual(r.summary.inputs.sent + 1);
    expect(windowInputs).toBeGreaterThan(r.summary.inputs.sent * 0.7);
    // Both rooms answered stats every second during the window, plus the final fetch.
    const stats = r.series!.roomStats;
    for (const room of r.rooms) expect(stats.filter((x) => x.roomId === room.roomId).length).toBeGreaterThanOrEqual(4);
    expect(stats.every((x) => x.flushP99Ms !== null)).toBe(true);
  });

  it("--abort-on-fail stops the run within 2 s of a live threshold failing, in worker threads too", { timeout: 60_000 }, async () => {
    rooms = await startRooms();
    for (const workers of [0, 2]) {
      let abortedAt = 0;
      const started = performance.now();
      const r = await runLoad(
        { url: rooms.url, players: 10, rooms: 1, durationSec: 20, rampSec: 0, workers, thresholds: ["ack.p99<0.001"], abortOnFail: true, abortGraceSec: 1, roomStats: false, name: "abort" },
        { onAbort: () => (abortedAt = performance.now()) },
      );
      const wall = (performance.now() - started) / 1000;
      expect(r.aborted).toMatchObject({ threshold: "ack.p99<0.001" });
      // Judged on the first sample after the grace: second 1 or 2.
      expect(r.aborted!.atSec).toBeLessThanOrEqual(2);
      // No sample after the abort's second: the window closed at once.
      expect(r.series!.samples.at(-1)!.tSec).toBeLessThanOrEqual(r.aborted!.atSec + 1);
      // Inputs stop with the window: 10 players x 20 Hz for at most (abort + 2 s).
      expect(r.summary.inputs.sent).toBeLessThanOrEqual(10 * 20 * (r.aborted!.atSec + 2));
      // The whole run (worker start, drain and leave included) ended long before its planned 20 s.
      expect(abortedAt).toBeGreaterThan(0);
      expect(wall).toBeLessThan(r.aborted!.atSec + 2 + 3 + 2 + (workers ? 4 : 0));
      const verdict = evaluateReport("run", r.config.thresholds, r);
      expect(verdict.passed).toBe(false);
      expect(verdict.failures.join("\n")).toMatch(/aborted at \d+ s: ack\.p99<0\.001/);
    }
  });
});

describe("load models against real rooms on the Node host", () => {
  it("stages: players follow the target up and down; leavers are counted as planned leaves", { timeout: 40_000 }, async () => {
    rooms = await startRooms();
    const r = await runLoad({ url: rooms.url, players: 1, rooms: 1, durationSec: 1, stages: [{ durationSec: 2, target: 10 }, { durationSec: 2, target: 10 }, { durationSec: 2, target: 0 }], roomStats: false });
    const s = r.series!.samples;
    expect(r.config.load.kind).toBe("stages");
    expect(r.summary.clients).toMatchObject({ planned: 10, joined: 10, failed: 0 });
    // The target line; players trail it by at most the one joining at that very instant.
    expect([1, 3, 5].map((t) => s.find((x) => x.tSec === t)!.target)).toEqual([5, 10, 5]);
    for (const t of [1, 3, 5]) {
      const x = s.find((y) => y.tSec === t)!;
      expect(x.players).toBeGreaterThanOrEqual(x.target - 1);
      expect(x.players).toBeLessThanOrEqual(x.target + 1);
    }
    expect(r.total.counters.left).toBeGreaterThanOrEqual(9);
    expect(r.summary.unexpectedCloses).toBe(0);
  });

  it("open model: joins arrive at the given rate; churn: sessions end and new players take the seats", { timeout: 40_000 }, async () => {
    rooms = await startRooms();
    const open = await runLoad({ url: rooms.url, players: 1, rooms: 2, durationSec: 3, arrivalRate: 5, roomStats: false });
    expect(open.summary.clients).toMatchObject({ planned: 15, joined: 15 });
    expect(open.series!.samples.find((x) => x.tSec === 2)!.players).toBe(10);
    const churn = await runLoad({ url: rooms.url, players: 8, rooms: 1, durationSec: 4, rampSec: 0, sessionMeanSec: 1.5, roomStats: false, seed: 3 });
    expect(churn.summary.clients.planned).toBeGreaterThan(16);
    expect(churn.summary.clients.joined).toBe(churn.summary.clients.planned);
    expect(churn.total.counters.left).toBeGreaterThan(8);
    for (const x of churn.series!.samples.filter((x) => x.tSec >= 1 && x.tSec <= 3)) expect(x.players).toBeGreaterThanOrEqual(6);
    expect(churn.summary.unexpectedCloses).toBe(0);
  });
});

describe("scenario files", () => {
  it("--scenario ./file.ts loads a scenario written against the public API, in worker threads too", { timeout: 40_000 }, async () => {
    rooms = await startRooms();
    const file = fileURLToPath(new URL("./scenarios/strafer.ts", import.meta.url));
    for (const workers of [0, 2]) {
      const before = serverTotals(rooms).inputs;
      const r = await runLoad({ url: rooms.url, scenario: file, players: 4, rooms: 1, durationSec: 2, rampSec: 0, workers, roomStats: false });
      expect(r.config.scenario).toBe("strafer");
      expect(r.config.scenarioFile).toBe(file);
      expect(r.config.thresholds).toEqual(["scenario.strafes>=4"]);
      // Its own default rate (10/s): 4 players x 10 Hz x 2 s.
      expect(r.summary.inputs.sent).toBeGreaterThan(60);
      expect(r.summary.inputs.sent).toBeLessThan(100);
      expect(serverTotals(rooms).inputs - before).toBe(r.summary.inputs.sent);
      expect(Math.abs(r.summary.scenario.strafes! - r.summary.inputs.sent / 10)).toBeLessThanOrEqual(4);
      expect(evaluateReport("run", r.config.thresholds, r).checks[0]).toMatchObject({ ok: true });
      // Live samples come from every thread (merged): all 4 players show up either way.
      expect(r.series!.samples.some((x) => x.players === 4 && x.inputsPerSec > 0)).toBe(true);
    }
  });

  it("refuses a file that is not a scenario, naming the problem", async () => {
    const bad = fileURLToPath(new URL("./fixtures.ts", import.meta.url));
    await expect(runLoad({ url: "ws://127.0.0.1:1", scenario: bad, players: 1, rooms: 1, durationSec: 1 })).rejects.toThrow(/no default export/);
  });
});
