/**
 * The HTML reports in headless Chromium: a real run's page (and a comparison and a sweep page)
 * opens from disk with no page errors, fetches nothing, and draws its charts as SVG paths
 * through the run's points.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium, launchChromium, type ChromiumHandle } from "../../../apps/web/test/harness/chromium";
import type { RoomServer } from "@tikron/node";
import { serverTotals, startRooms } from "./nodeRooms";
import { compareHtml, evaluateReport, runLoad, sweepHtml, writeHtmlReport, type Report } from "../src/index";

let chrome: ChromiumHandle | undefined;
let rooms: RoomServer | undefined;
let run: Report;
const dir = mkdtempSync(join(tmpdir(), "lt-html-"));

beforeAll(async () => {
  chrome = await launchChromium(ensureChromium());
  rooms = await startRooms();
  run = await runLoad({ url: rooms.url, players: 8, rooms: 2, durationSec: 4, rampSec: 1, statsEverySec: 1, thresholds: ["ack.p99<500", "frames_per_s>=1000"], name: "html" });
  const v = evaluateReport("run", run.config.thresholds, run);
  run.verdict = { name: v.gate, valid: v.valid, passed: v.passed, checks: v.checks };
});

afterAll(async () => {
  await rooms?.close();
  await chrome?.close();
});

/** Opens a file and returns what the page drew, what it fetched and which errors it raised. */
async function open(file: string): Promise<{ errors: string[]; requests: string[]; charts: { label: string; paths: number[] }[]; text: string }> {
  const page = await chrome!.browser.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(file).href);
  const charts = await page.evaluate(() =>
    [...document.querySelectorAll("figure.chart")].map((fig) => ({
      label: fig.getAttribute("data-title") ?? "",
      // Points per drawn line: every M/L command is one point.
      paths: [...fig.querySelectorAll("svg path")].map((p) => (p.getAttribute("d")?.match(/[ML]/g) ?? []).length),
    })),
  );
  const text = await page.evaluate(() => document.body.innerText);
  await page.close();
  return { errors, requests, charts, text };
}

describe("HTML reports in a browser", () => {
  it("a run's page renders every chart with points, the thresholds and the config; no errors, no fetches", { timeout: 60_000 }, async () => {
    const file = writeHtmlReport(run, join(dir, "run.json"));
    const { errors, requests, charts, text } = await open(file);
    expect(errors).toEqual([]);
    expect(requests.every((u) => u.startsWith("file://"))).toBe(true);
    const byLabel = new Map(charts.map((c) => [c.label, c.paths]));
    for (const label of ["Players", "Input -> ack RTT (1 s windows)", "State frame gap p99 (1 s windows)", "Frames per client", "Downlink (all clients)", "Room tick / flush p99 (sampled tk:stats)"]) {
      const paths = byLabel.get(label);
      expect(paths, label).toBeDefined();
      // Each line goes through (about) one point per second of the 5 s window.
      expect(Math.max(...paths!), label).toBeGreaterThanOrEqual(3);
    }
    expect(text).toContain("ack.p99<500");
    expect(text).toContain("frames_per_s>=1000");
    expect(text).toMatch(/FAIL/);
    expect(text).toContain(run.config.runId);
  });

  it("compare and sweep pages draw a curve per run / per figure", { timeout: 60_000 }, async () => {
    const cmp = join(dir, "compare.html");
    writeFileSync(cmp, compareHtml(run, run, ["a.json", "b.json"]));
    const c = await open(cmp);
    expect(c.errors).toEqual([]);
    const ack = c.charts.find((x) => x.label.startsWith("Input -> ack"))!;
    expect(ack.paths.filter((n) => n >= 3)).toHaveLength(6);
    const sw = join(dir, "sweep.html");
    writeFileSync(sw, sweepHtml("players", [{ label: "8", report: run }, { label: "16", report: run }, { label: "24", report: run }]));
    const s = await open(sw);
    expect(s.errors).toEqual([]);
    expect(s.charts.length).toBeGreaterThanOrEqual(6);
    expect(s.charts.find((x) => x.label === "Input -> ack RTT")!.paths).toEqual([3, 3]);
  });
});
