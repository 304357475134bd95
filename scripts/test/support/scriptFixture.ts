/**
 * What the tests of the repository's check scripts share: a fixture tree written to disk, and
 * one of the scripts run on it as CI runs it (its exit code and output).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes `files` (path relative to `dir` → text) under `dir`, making folders as needed; returns `dir`. */
export function writeTree(dir: string, files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** Runs the check script `script` with `--root root` from `root`. */
export function runCheck(script: string, root: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [script, "--root", root], { cwd: root, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
