/**
 * The console's one build: its script bundled (esbuild, minified, for browsers), its page and
 * stylesheet as written. The package build embeds the files in `dist/consoleFiles.js`, which
 * `adminConsole` serves from `node_modules` (scripts/build-packages.ts); the demo's web build
 * writes the same files into its static assets (apps/web/build.ts). One source, one build, the
 * same console on both.
 */
import { buildSync } from "esbuild";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CONSOLE_PATH, type ConsoleFile } from "./src/consoleFile";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "src");
const PAGE = join(SRC, "console");

/** The console's page, script and stylesheet, ready to serve. */
export function bundleConsole(): ConsoleFile[] {
  const script = buildSync({
    entryPoints: [join(PAGE, "admin.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "warning",
  }).outputFiles[0]!.text;
  return [
    { path: CONSOLE_PATH, contentType: "text/html; charset=utf-8", body: readFileSync(join(PAGE, "admin.html"), "utf8") },
    { path: `${CONSOLE_PATH}/console.js`, contentType: "text/javascript; charset=utf-8", body: script },
    { path: `${CONSOLE_PATH}/console.css`, contentType: "text/css; charset=utf-8", body: readFileSync(join(PAGE, "console.css"), "utf8") },
  ];
}

/**
 * Where a console file goes in a static assets directory so that an asset server answers its
 * path: the page `/admin` as `admin.html`, the others at their paths (`admin/console.js`).
 */
export function staticFileName(file: ConsoleFile): string {
  const relative = file.path.slice(1);
  return file.path === CONSOLE_PATH ? `${relative}.html` : relative;
}

/**
 * Writes `dist/consoleFiles.js` (the files as one constant) and its declaration, the module the
 * package's `adminConsole` imports; `distDir` is the package's tsc output.
 */
export function writeConsoleModule(distDir: string): void {
  writeFileSync(join(distDir, "consoleFiles.js"), `export const CONSOLE_FILES = Object.freeze(${JSON.stringify(bundleConsole(), null, 1)});\n`);
  copyFileSync(join(SRC, "consoleFiles.d.ts"), join(distDir, "consoleFiles.d.ts"));
}
