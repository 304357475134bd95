/**
 * Builds the static web app served by the gateway's assets binding: bundles `src/main.ts` (the
 * game page) into `dist/app.js`, `src/lobby.ts` into `dist/lobby.js` and `src/replay.ts` (the
 * replay viewer) into `dist/replay.js`, copies everything under
 * `static/` into `dist/` as is, and writes the admin console (`@tikron/admin`, its one build in
 * packages/admin/build.ts) as `dist/admin.html`, `dist/admin/console.js` and `console.css`.
 *
 * Usage: `tsx apps/web/build.ts [--minify]` (from anywhere), or import {@link buildWeb}.
 */
import { build } from "esbuild";
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleConsole, staticFileName } from "../../packages/admin/build";

/** Options for {@link buildWeb}. */
export interface BuildWebOptions {
  /** Minify the bundle (default false: readable output helps when debugging in the browser). */
  minify?: boolean;
  /** Output directory (default `apps/web/dist`). */
  outDir?: string;
}

/** Result of {@link buildWeb}. */
export interface BuildWebResult {
  outDir: string;
  /** Absolute paths of the written bundle files. */
  files: string[];
}

const WEB_DIR = dirname(fileURLToPath(import.meta.url));

/** Bundles the web app and copies its static files; replaces the output directory wholesale. */
export async function buildWeb(options: BuildWebOptions = {}): Promise<BuildWebResult> {
  const outDir = options.outDir ?? join(WEB_DIR, "dist");
  // Start clean so files removed from static/ do not linger in what gets deployed.
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  const result = await build({
    // The game page (/play) and the lobby (/): one bundle each, so the lobby stays small and no
    // page carries another's code.
    // The replay viewer (/replay) is a third: it carries the rooms' code, which no other page does.
    entryPoints: { app: join(WEB_DIR, "src", "main.ts"), lobby: join(WEB_DIR, "src", "lobby.ts"), replay: join(WEB_DIR, "src", "replay.ts") },
    outdir: outDir,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    sourcemap: true,
    minify: options.minify ?? false,
    metafile: true,
    logLevel: "warning",
  });

  const staticDir = join(WEB_DIR, "static");
  if (existsSync(staticDir)) cpSync(staticDir, outDir, { recursive: true });

  // The console at /admin: the same files a game's Worker serves from the package.
  const consoleFiles: string[] = [];
  for (const file of bundleConsole()) {
    const path = join(outDir, staticFileName(file));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.body);
    consoleFiles.push(path);
  }

  return { outDir, files: [...Object.keys(result.metafile.outputs).map((f) => join(process.cwd(), f)), ...consoleFiles] };
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) {
  const started = Date.now();
  buildWeb({ minify: process.argv.includes("--minify") }).then(
    (res) => console.log(`web: built ${res.outDir} in ${Date.now() - started} ms`),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
