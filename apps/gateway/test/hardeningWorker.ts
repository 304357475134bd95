/**
 * A frozen copy of the gateway for long integration tests: the Worker bundled once (exactly what
 * `wrangler deploy` would upload) plus a copy of the web assets and a generated config, all in a
 * scratch directory. `wrangler dev` cannot be told not to watch its sources, and in a working
 * tree where other code changes while a test runs, every edit reloads the server and drops every
 * socket (1006) in the middle of an assertion. A frozen copy has nothing that changes.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import { REPO_ROOT } from "./harness/wranglerDev";

const WRANGLER = join(dirname(createRequire(join(REPO_ROOT, "package.json")).resolve("wrangler/package.json")), "bin", "wrangler.js");
let counter = 0;

/** A bundled gateway in a scratch directory; pass {@link configPath} to `startWranglerDev`. */
export interface FrozenWorker {
  configPath: string;
  dir: string;
  remove(): void;
}

/** Runs wrangler with a hard time limit; resolves with its exit code and output. */
export function runWrangler(args: string[], timeoutMs = 120_000): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [WRANGLER, ...args],
      {
        cwd: REPO_ROOT,
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, CI: "true", NO_COLOR: "1", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false" },
      },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, output: `${stdout}\n${stderr}` }),
    );
  });
}

/** Bundles the gateway under `config` (repository-relative) into a fresh scratch directory. */
export async function freezeWorker(config: string): Promise<FrozenWorker> {
  const dir = join(REPO_ROOT, ".tmp", "frozen-worker", `${process.pid}-${Date.now()}-${++counter}`);
  mkdirSync(dir, { recursive: true });
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    if (!existsSync(join(REPO_ROOT, "apps", "web", "dist", "index.html"))) {
      const { buildWeb } = await import("../../web/build");
      await buildWeb();
    }
    const built = await runWrangler(["deploy", "--dry-run", "--config", config, "--outdir", join(dir, "bundle")]);
    if (built.code !== 0) throw new Error(`bundling ${config} failed:\n${built.output}`);

    const parsed = ts.parseConfigFileTextToJson(config, readFileSync(resolve(REPO_ROOT, config), "utf8"));
    if (parsed.error) throw new Error(`${config}: ${ts.flattenDiagnosticMessageText(parsed.error.messageText, "\n")}`);
    const cfg = parsed.config as Record<string, any>;
    delete cfg.$schema;
    cfg.main = "bundle/index.js";
    cfg.no_bundle = true;
    cpSync(resolve(REPO_ROOT, cfg.assets.directory), join(dir, "assets"), { recursive: true });
    cfg.assets.directory = "assets";
    for (const db of cfg.d1_databases ?? []) {
      if (db.migrations_dir) db.migrations_dir = resolve(REPO_ROOT, db.migrations_dir);
    }
    const configPath = join(dir, "wrangler.json");
    writeFileSync(configPath, JSON.stringify(cfg, null, 2));
    return { configPath, dir, remove };
  } catch (e) {
    remove();
    throw e;
  }
}
