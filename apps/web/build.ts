/**
 * Builds the static web app served by the gateway's assets binding: bundles `src/main.ts` (the
 * game page) into `dist/app.js`, `src/lobby.ts` into `dist/lobby.js` and `src/admin.ts` (the
 * admin console) into `dist/admin.js`, and copies everything under `static/` into `dist/` as is.
 *
 * Usage: `tsx apps/web/build.ts [--minify]` (from anywhere), or import {@link buildWeb}.
 */
import { build } from "esbuild";
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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
    // The game page (/play), the lobby (/) and the admin console (/admin): one bundle each, so
    // the lobby stays small and no page carries another's code.
    entryPoints: { app: join(WEB_DIR, "src", "main.ts"), lobby: join(WEB_DIR, "src", "lobby.ts"), admin: join(WEB_DIR, "src", "admin.ts") },
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

  return { outDir, files: Object.keys(result.metafile.outputs).map((f) => join(process.cwd(), f)) };
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
