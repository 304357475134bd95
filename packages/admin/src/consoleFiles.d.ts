// The console's files, bundled: dist/consoleFiles.js is written by the package build
// (packages/admin/build.ts, `writeConsoleModule`), so there is no source module of this name. In
// the workspace the demo serves the same files as static assets (apps/web/build.ts), and tests
// make them with `bundleConsole()`.
import type { ConsoleFile } from "./consoleFile";

/** The page, its script and its stylesheet, as built into the package. */
export declare const CONSOLE_FILES: readonly ConsoleFile[];
