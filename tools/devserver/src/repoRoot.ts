import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRepoRoot(from: string): string {
  let dir = from;
  for (let i = 0; i < 20; i++) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`no pnpm-workspace.yaml above ${from}`);
}

/** Repository root: the nearest ancestor holding pnpm-workspace.yaml. */
export const REPO_ROOT: string = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
