/**
 * What serving a checkout needs besides wrangler's own process: its wrangler binary, its web page
 * built (wrangler refuses to start without the assets directory), and the `taskset` pinning.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./repoRoot";

/** Whether the server runs pinned, as asked with `WranglerDevOptions.cpus`. */
export interface Affinity {
  /** The CPU list asked for, or null when none was. */
  requested: string | null;
  /** True when wrangler was started under `taskset -c requested`. */
  applied: boolean;
  /** Why it was not applied (e.g. no taskset), when it was asked for and not applied. */
  reason?: string;
}

let tasksetChecked: boolean | undefined;

/** Whether `taskset` (util-linux) can run here; checked once. */
export function hasTaskset(): boolean {
  tasksetChecked ??= spawnSync("taskset", ["--version"], { stdio: "ignore", timeout: 5_000 }).status === 0;
  return tasksetChecked;
}

/** The pinning to apply for a CPU list (validated); unapplied with a reason when taskset is missing. */
export function affinityFor(cpus: string | undefined): Affinity {
  if (cpus === undefined) return { requested: null, applied: false };
  if (!/^[0-9]+([-,][0-9]+)*$/.test(cpus)) throw new Error(`cpus must be a CPU list like "0" or "0-1,3" (got ${JSON.stringify(cpus)})`);
  if (!hasTaskset()) return { requested: cpus, applied: false, reason: "taskset not found: the server runs unpinned" };
  return { requested: cpus, applied: true };
}

const webBuilds = new Map<string, Promise<unknown>>();

/**
 * Both configs serve `apps/web/dist` as assets and wrangler refuses to start without it, so a test
 * run on its own (without the suite's build step) builds it once. Another checkout's page is
 * built by that checkout's own build script, in a child process.
 */
export async function ensureWebBuilt(root: string): Promise<void> {
  if (existsSync(join(root, "apps", "web", "dist", "index.html"))) return;
  // A project that is not a Tikron checkout (e.g. the starter installed elsewhere) has no demo page.
  if (!existsSync(join(root, "apps", "web", "build.ts"))) return;
  let build = webBuilds.get(root);
  if (build === undefined) {
    build = root === REPO_ROOT ? import("../../../apps/web/build").then((m: typeof import("../../../apps/web/build")) => m.buildWeb()) : buildWebIn(root);
    webBuilds.set(root, build);
  }
  await build;
}

function buildWebIn(root: string): Promise<void> {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ["--import", pathToFileURL(tsx).href, join(root, "apps", "web", "build.ts")],
      { cwd: root, timeout: 120_000, killSignal: "SIGKILL" },
      (err, _stdout, stderr) => (err ? fail(new Error(`building ${root}/apps/web failed: ${err.message}\n${stderr}`)) : done()),
    );
  });
}

/** The wrangler CLI script installed in a checkout. */
export function wranglerBin(root: string): string {
  const require = createRequire(join(root, "package.json"));
  return join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
}

