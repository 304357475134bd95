import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { tarballName } from "../src/tarballs";

/** Returns a maker of fresh temporary directories; each test's are removed after it. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/**
 * Writes a tarball shaped like `npm pack`'s (`package/package.json` inside, named as npm names
 * it) into `dir` with the system's tar; returns its path.
 */
export function packedPackage(dir: string, name: string, version: string, dependencies: Record<string, string> = {}): string {
  const work = mkdtempSync(join(dir, ".pack-"));
  mkdirSync(join(work, "package"));
  writeFileSync(join(work, "package", "package.json"), JSON.stringify({ name, version, dependencies }));
  const file = join(dir, tarballName(name, version));
  const r = spawnSync("tar", ["-czf", file, "-C", work, "package"], { encoding: "utf8" });
  rmSync(work, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`tar failed: ${r.stderr}`);
  return file;
}
