/**
 * Another git revision of this repository, checked out to serve it: a detached worktree under
 * .tmp/, its dependencies installed (offline from the local store first), removed afterwards.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@tikron/devserver";

/** A checked-out revision. */
export interface RevCheckout {
  rev: string;
  /** Full commit id. */
  commit: string;
  /** Worktree directory (pass as the server's root). */
  dir: string;
  /** Removes the worktree (idempotent). */
  remove(): Promise<void>;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(" ")} failed: ${err.message}\n${String(stderr).slice(-2000)}`)) : resolve(String(stdout).trim()),
    );
  });
}

/**
 * Checks `rev` out into `.tmp/rev-<commit>-<pid>` and installs its dependencies with pnpm
 * (`--frozen-lockfile --offline`, then online when the store lacks something). The web page is
 * built later by the launcher, from the worktree's own build script.
 */
export async function checkoutRev(rev: string, log: (line: string) => void = () => {}): Promise<RevCheckout> {
  const commit = await run("git", ["rev-parse", "--verify", `${rev}^{commit}`], REPO_ROOT, 10_000);
  const base = join(REPO_ROOT, ".tmp", "rev-worktrees");
  mkdirSync(base, { recursive: true });
  const dir = join(base, `${commit.slice(0, 12)}-${process.pid}-${Date.now().toString(36)}`);
  let removed = false;
  const remove = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    try {
      await run("git", ["worktree", "remove", "--force", dir], REPO_ROOT, 60_000);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      await run("git", ["worktree", "prune"], REPO_ROOT, 30_000).catch(() => "");
    }
  };
  log(`checking out ${rev} (${commit.slice(0, 10)}) into ${dir}`);
  await run("git", ["worktree", "add", "--detach", dir, commit], REPO_ROOT, 120_000);
  try {
    log(`  pnpm install --frozen-lockfile --offline in ${dir}`);
    try {
      await run("pnpm", ["install", "--frozen-lockfile", "--offline", "--reporter=silent"], dir, 300_000);
    } catch (offline) {
      log(`  offline install failed (${(offline as Error).message.split("\n")[0]}); trying online`);
      await run("pnpm", ["install", "--frozen-lockfile", "--reporter=silent"], dir, 600_000);
    }
    if (!existsSync(join(dir, "node_modules", "wrangler"))) throw new Error(`no wrangler in ${dir}/node_modules after install`);
    return { rev, commit, dir, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
