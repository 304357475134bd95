/**
 * Deployment configs: both must build and validate with `wrangler deploy --dry-run` (offline, no
 * account needed), keep the bindings the gateway relies on, and the D1 migrations must apply.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWebBuilt } from "../../../tools/devserver/src/checkout";
import { REPO_ROOT } from "./harness/wranglerDev";

const WRANGLER = join(dirname(createRequire(join(REPO_ROOT, "package.json")).resolve("wrangler/package.json")), "bin", "wrangler.js");
const scratch = mkdtempSync(join(tmpdir(), "tikron-wrangler-config-"));

interface RunResult {
  code: number | null;
  output: string;
}

/** Runs wrangler offline with a hard time limit; never rejects, so failures show the output. */
function wrangler(args: string[], timeoutMs = 90_000): Promise<RunResult> {
  return new Promise((resolveRun) => {
    execFile(
      process.execPath,
      [WRANGLER, ...args],
      {
        cwd: REPO_ROOT,
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          CI: "true",
          NO_COLOR: "1",
          CLOUDFLARE_CF_FETCH_ENABLED: "false",
          WRANGLER_SEND_METRICS: "false",
          WRANGLER_SEND_ERROR_REPORTS: "false",
          WRANGLER_LOG_PATH: join(scratch, "logs"),
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolveRun({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** Parses a config the way wrangler does (JSON with comments and trailing commas). */
function readJsonc(file: string): Record<string, any> {
  const text = readFileSync(join(REPO_ROOT, file), "utf8");
  const parsed = ts.parseConfigFileTextToJson(file, text);
  if (parsed.error) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(parsed.error.messageText, "\n")}`);
  return parsed.config as Record<string, any>;
}

beforeAll(async () => {
  // The assets directory must exist for wrangler to accept the config. Built only when missing:
  // the suite builds it before the tests, and rebuilding it here would reload every other file's
  // `wrangler dev` serving it (they watch their assets), dropping their sockets (1006).
  await ensureWebBuilt(REPO_ROOT);
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe.each([
  { file: "wrangler.jsonc", name: "tikron-gateway", devMode: "false", d1: true },
  { file: "wrangler.staging.jsonc", name: "tikron-gateway-staging", devMode: "true", d1: false },
])("$file", ({ file, name, devMode, d1 }) => {
  it("passes wrangler deploy --dry-run offline with the expected bindings", async () => {
    const outdir = join(scratch, `dry-run-${name}`);
    const { code, output } = await wrangler(["deploy", "--dry-run", "--config", file, "--outdir", outdir]);
    expect(code, output).toBe(0);
    expect(output).toContain("--dry-run: exiting now.");
    expect(output).toMatch(/env\.ROOMS \(RoomDurableObject\)\s+Durable Object/);
    expect(output).toMatch(/env\.MATCHMAKER \(MatchmakerDurableObject\)\s+Durable Object/);
    expect(output).toMatch(/env\.ASSETS\s+Assets/);
    expect(output).toContain(`env.DEV_MODE ("${devMode}")`);
    expect(output).toMatch(/env\.METRICS \(\S+\)\s+Analytics Engine Dataset/);
    if (d1) {
      expect(output).toMatch(/env\.DB \(\S+\)\s+D1 Database/);
      expect(output).toMatch(/env\.RESULTS \(\S+\)\s+D1 Database/);
      expect(output).toMatch(/env\.REPLAYS \(tikron-replays\)\s+R2 Bucket/);
    }
    else expect(output).not.toContain("D1 Database");
    expect(output).not.toMatch(/▲ \[WARNING\]/);
    // The bundle wrangler would upload.
    expect(readFileSync(join(outdir, "index.js"), "utf8").length).toBeGreaterThan(0);
  });

  it("keeps the settings the gateway and the web app rely on", () => {
    const config = readJsonc(file);
    expect(config.name).toBe(name);
    expect(config.main).toBe("apps/gateway/src/index.ts");
    expect(config.compatibility_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(config.durable_objects.bindings).toContainEqual({ name: "ROOMS", class_name: "RoomDurableObject" });
    const sqliteClasses = (config.migrations as { new_sqlite_classes?: string[] }[]).flatMap((m) => m.new_sqlite_classes ?? []);
    expect(sqliteClasses).toContain("RoomDurableObject");
    expect(config.durable_objects.bindings).toContainEqual({ name: "MATCHMAKER", class_name: "MatchmakerDurableObject" });
    // The lobby's registry class (v2) became the matchmaker (v3): renamed, never deleted.
    expect(sqliteClasses).toContain("LobbyDurableObject");
    expect(config.migrations[2]).toEqual({ tag: "v3", renamed_classes: [{ from: "LobbyDurableObject", to: "MatchmakerDurableObject" }] });
    // Append-only: the first tags stay what was deployed.
    expect((config.migrations as { tag: string }[]).map((m) => m.tag)).toEqual(["v1", "v2", "v3"]);
    expect(config.assets).toMatchObject({ directory: "apps/web/dist", binding: "ASSETS" });
    expect(config.assets.run_worker_first).toEqual(expect.arrayContaining(["/rooms/*", "/health", "/match/*", "/results/*", "/admin/api/*"]));
    expect(config.analytics_engine_datasets).toContainEqual(expect.objectContaining({ binding: "METRICS" }));
    expect(config.observability).toMatchObject({ enabled: true });
    expect(config.vars.DEV_MODE).toBe(devMode);
    if (d1) {
      expect(config.d1_databases).toContainEqual(
        expect.objectContaining({ binding: "DB", migrations_dir: "packages/cloudflare/migrations" }),
      );
      expect(config.d1_databases).toContainEqual(expect.objectContaining({ binding: "RESULTS", migrations_dir: "packages/games/migrations" }));
      // Recorded matches (docs/replay.md); staging records none.
      expect(config.r2_buckets).toContainEqual({ binding: "REPLAYS", bucket_name: "tikron-replays" });
    } else {
      expect(config.d1_databases ?? []).toEqual([]);
    }
  });
});

describe("D1 migrations", () => {
  it("apply to a fresh local database and create room_records", async () => {
    const persist = join(scratch, "d1");
    const apply = await wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persist, "--config", "wrangler.jsonc"]);
    expect(apply.code, apply.output).toBe(0);

    const insert =
      "INSERT INTO room_records (kind, room_id, started_at, ended_at, peak_ccu, total_joins, refusals, closes_json) " +
      `VALUES ('agar', 'lobby', 1000, 2000, 12, 30, 2, '{"normal":29}');`;
    const query = "SELECT kind, room_id, peak_ccu, closes_json FROM room_records;";
    const run = await wrangler(["d1", "execute", "DB", "--local", "--persist-to", persist, "--config", "wrangler.jsonc", "--json", "--command", insert + query]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('"room_id": "lobby"');
    expect(run.output).toContain('"peak_ccu": 12');

    // The key includes started_at: the same room id may host many matches, but not twice at once.
    const duplicate = await wrangler(["d1", "execute", "DB", "--local", "--persist-to", persist, "--config", "wrangler.jsonc", "--command", insert]);
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.output).toMatch(/UNIQUE constraint failed/i);

    // The admin API's audit log.
    const audit = await wrangler([
      "d1", "execute", "DB", "--local", "--persist-to", persist, "--config", "wrangler.jsonc", "--json", "--command",
      `INSERT INTO admin_actions (at, actor, action, kind, room_id, detail_json, result) VALUES (1, 'token', 'kick', 'agar', 'r1', '{"playerId":3}', 'ok'); SELECT actor, action, result FROM admin_actions;`,
    ]);
    expect(audit.code, audit.output).toBe(0);
    expect(audit.output).toContain('"action": "kick"');
  });

  it("apply to a fresh local results database and create ttt_rounds", async () => {
    const persist = join(scratch, "d1-results");
    const apply = await wrangler(["d1", "migrations", "apply", "RESULTS", "--local", "--persist-to", persist, "--config", "wrangler.jsonc"]);
    expect(apply.code, apply.output).toBe(0);
    const insert = "INSERT INTO ttt_rounds (room_id, ended_at, round, x_name, o_name, outcome, forfeit) VALUES ('t1', 1000, 1, 'xena', 'otto', 'X', 0);";
    const run = await wrangler(["d1", "execute", "RESULTS", "--local", "--persist-to", persist, "--config", "wrangler.jsonc", "--json", "--command", insert + "SELECT room_id, outcome FROM ttt_rounds;"]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('"outcome": "X"');
    const bad = await wrangler(["d1", "execute", "RESULTS", "--local", "--persist-to", persist, "--config", "wrangler.jsonc", "--command", insert.replace("'X'", "'Y'").replace("1000", "2000")]);
    expect(bad.output).toMatch(/CHECK constraint failed/i);
  });
});
