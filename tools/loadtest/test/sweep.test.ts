import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gameDefinitions } from "@tikron/games";
import { serveRooms } from "@tikron/node";
import { builtInSweeps, readSweepFile, runSweep } from "../src/sweep/sweep";
import { mergeQuery } from "../src/load/config";

describe("sweep", () => {
  it("layers entry queries over the base query", () => {
    expect(mergeQuery("cap=50&tickMs=50", "tickMs=33&syncIntervalMs=66")).toBe("cap=50&tickMs=33&syncIntervalMs=66");
    expect(mergeQuery(undefined, undefined)).toBe("");
  });

  it("ships built-in lists and validates sweep files", () => {
    expect(Object.keys(builtInSweeps)).toEqual(["players-per-room", "rooms", "tick-rates"]);
    const dir = mkdtempSync(join(tmpdir(), "lt-"));
    try {
      writeFileSync(join(dir, "s.json"), JSON.stringify([{ players: 3, rooms: 2, query: "tickMs=20" }]));
      expect(readSweepFile(join(dir, "s.json"))).toEqual([{ label: "3p x 2", players: 3, rooms: 2, query: "tickMs=20" }]);
      writeFileSync(join(dir, "bad.json"), JSON.stringify([{ players: "x" }]));
      expect(() => readSweepFile(join(dir, "bad.json"))).toThrow(/integer players/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("runs each entry against a fresh room and writes one markdown table and one JSON index", { timeout: 60_000 }, async () => {
    const echo = await serveRooms({ games: gameDefinitions });
    const dir = mkdtempSync(join(tmpdir(), "lt-"));
    try {
      const res = await runSweep({
        name: "t",
        entries: [
          { label: "a", players: 2, rooms: 1 },
          { label: "b", players: 3, rooms: 1, query: "tickMs=25&syncIntervalMs=50" },
        ],
        base: { url: echo.url, durationSec: 0.6, rampSec: 0 },
        cooldownSec: 0.1,
        outDir: dir,
      });
      expect(res.rows.map((r) => r.report.summary.clients.joined)).toEqual([2, 3]);
      expect(res.rows[0].report.config.roomPrefix).not.toBe(res.rows[1].report.config.roomPrefix);
      expect(res.rows[1].report.summary.tickMs).toEqual([25]);
      const md = readFileSync(res.markdownPath, "utf8");
      expect(md.split("\n").filter((l) => l.startsWith("| a |") || l.startsWith("| b |"))).toHaveLength(2);
      const json = JSON.parse(readFileSync(res.jsonPath, "utf8")) as { runs: unknown[] };
      expect(json.runs).toHaveLength(2);
      // The sweep's page: one curve point per entry, labelled by entry.
      const html = readFileSync(res.htmlPath, "utf8");
      expect(html).toMatch(/<path d="M[\d. ]+L[\d. ]+"/);
      expect(html).toContain("<td>a</td>");
    } finally {
      await echo.close();
      rmSync(dir, { recursive: true });
    }
  });
});
