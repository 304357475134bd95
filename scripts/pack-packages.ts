/**
 * Builds every published package and packs it with `pnpm pack` (which applies `publishConfig`,
 * so the tarball's `exports` point at dist/, and turns `workspace:*` into the real version).
 * From the command line it ends with the `npx` line that makes a game project from the tarballs.
 *
 *   tsx scripts/pack-packages.ts <destination dir>
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPackages } from "./build-packages";
import { PUBLISHED_PACKAGES } from "./lib/packages";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Package name (`@tikron/core`) → absolute path of its tarball. */
export type PackedTarballs = Record<string, string>;

/** Builds and packs every published package into `destination`; returns the tarballs by name. */
export function packPackages(destination: string): PackedTarballs {
  const dest = resolve(destination);
  mkdirSync(dest, { recursive: true });
  buildPackages();
  const tarballs: PackedTarballs = {};
  for (const name of PUBLISHED_PACKAGES) {
    const dir = join(ROOT, "packages", name);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; version: string };
    const run = spawnSync("pnpm", ["pack", "--pack-destination", dest], { cwd: dir, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`pnpm pack failed for ${manifest.name}:\n${run.stdout}${run.stderr}`);
    const file = join(dest, `${manifest.name.replace("@", "").replace("/", "-")}-${manifest.version}.tgz`);
    if (!existsSync(file)) throw new Error(`pnpm pack for ${manifest.name} did not write ${file}:\n${run.stdout}`);
    tarballs[manifest.name] = file;
  }
  return tarballs;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dest = process.argv[2];
  if (!dest) {
    console.error("usage: tsx scripts/pack-packages.ts <destination dir>");
    process.exit(2);
  }
  const tarballs = packPackages(dest);
  for (const [name, file] of Object.entries(tarballs)) console.log(`${name}\t${file}`);
  console.log(`\nmake a game project from them, outside this repository:\n  npx --package ${tarballs["create-tikron"]} create-tikron my-game --packages ${resolve(dest)}`);
}
