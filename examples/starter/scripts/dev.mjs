// `npm run dev`: the Worker under `wrangler dev` in DEV_MODE (no join tickets; wrangler reloads it
// when its code changes), and the page rebuilt into public/client.js on every change to what it
// imports (esbuild's watch; wrangler serves the new file, a reload of the tab shows it). Arguments
// go on to `wrangler dev`: `npm run dev -- --port 8788`.
//
// Offline, wrangler would fetch workers.cloudflare.com/cf.json (the `request.cf` data) on every
// start and print the failure with a stack trace; the placeholder it falls back to serves a game
// as well, so the fetch is off here unless CLOUDFLARE_CF_FETCH_ENABLED says otherwise.
import { context } from "esbuild";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { PAGE, ROOT } from "./page.mjs";

// The first build is watch()'s own; wrangler starts once it is written (a write after wrangler
// is up reloads it, and wrangler would only serve a stale page after a failed one).
let firstBuild;
const built = new Promise((resolve) => (firstBuild = resolve));
const page = await context({
  ...PAGE,
  logLevel: "info",
  plugins: [{ name: "first-build", setup: (build) => build.onEnd((result) => firstBuild(result)) }],
});
await page.watch();
if ((await built).errors.length > 0) {
  // esbuild has printed them.
  await page.dispose();
  process.exit(1);
}

const manifest = createRequire(join(ROOT, "package.json")).resolve("wrangler/package.json");
const wranglerBin = join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin.wrangler);
const wrangler = spawn(process.execPath, [wranglerBin, "dev", "--var", "DEV_MODE:true", ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: "inherit",
  env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env },
});
// Ctrl-C reaches wrangler from the terminal too; a signal sent to this process alone is passed on.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => wrangler.kill(signal));
wrangler.on("exit", (code, signal) => {
  void page.dispose().finally(() => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
});
