/**
 * Builds every published package to its dist/ (ESM + .d.ts + source maps) with
 * `tsc -p tsconfig.build.json`, in dependency order, then makes relative import specifiers
 * explicit so Node can load the output. Workspace code never needs this: vitest, tsx and
 * wrangler read src/ directly; only packed tarballs point at dist/ (publishConfig).
 * `admin` also gets its console bundled into dist/consoleFiles.js (packages/admin/build.ts), and
 * `create-tikron` its template/: a copy of examples/starter (see its template.ts).
 *
 *   tsx scripts/build-packages.ts            build all
 *   tsx scripts/build-packages.ts core       build one (its dependencies must be built already)
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeConsoleModule } from "../packages/admin/build";
import { packTemplate } from "../packages/create-tikron/src/template";
import { PUBLISHED_PACKAGES, type PublishedPackage } from "./lib/packages";
import { rewriteRelativeSpecifiers } from "./lib/relativeSpecifiers";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Builds the named packages (all by default) into their dist/ folders; throws on a tsc error. */
export function buildPackages(names: readonly PublishedPackage[] = PUBLISHED_PACKAGES): void {
  const tsc = join(dirname(createRequire(join(ROOT, "package.json")).resolve("typescript/package.json")), "bin", "tsc");
  for (const name of names) {
    const dir = join(ROOT, "packages", name);
    rmSync(join(dir, "dist"), { recursive: true, force: true });
    const run = spawnSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.build.json"), "--pretty", "false"], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`tsc failed for @tikron/${name}:\n${run.stdout}${run.stderr}`);
    if (name === "admin") writeConsoleModule(join(dir, "dist"));
    rewriteRelativeSpecifiers(join(dir, "dist"));
    if (name === "create-tikron") {
      rmSync(join(dir, "template"), { recursive: true, force: true });
      packTemplate(join(ROOT, "examples", "starter"), join(dir, "template"));
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((n) => !(PUBLISHED_PACKAGES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    console.error(`unknown package(s): ${unknown.join(", ")} (published: ${PUBLISHED_PACKAGES.join(", ")})`);
    process.exit(2);
  }
  const started = Date.now();
  buildPackages(wanted.length > 0 ? (wanted as PublishedPackage[]) : PUBLISHED_PACKAGES);
  console.log(`built ${wanted.length > 0 ? wanted.join(", ") : PUBLISHED_PACKAGES.join(", ")} in ${Date.now() - started} ms`);
}
