import { execFileSync } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { round2 } from "../metrics/round2";

/** Where a report was produced. Deliberately without hostname or user: reports get shared. */
export interface Environment {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  cpuModel: string;
  totalMemMiB: number;
  /** 1-minute load average when the run started (other load on the machine skews results). */
  loadAvg1: number;
  /** `git rev-parse --short HEAD`, or "unknown" outside a checkout. */
  commit: string;
  /** True when the working tree had uncommitted changes. */
  dirty: boolean;
}

const repoDir = fileURLToPath(new URL("../../../..", import.meta.url));

function git(args: string[]): string | null {
  try {
    return execFileSync("git", args, { cwd: repoDir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 }).trim();
  } catch {
    return null;
  }
}

/** Describes this machine and checkout. */
export function collectEnvironment(): Environment {
  const cpus = os.cpus();
  const status = git(["status", "--porcelain", "--untracked-files=no"]);
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    totalMemMiB: Math.round(os.totalmem() / (1024 * 1024)),
    loadAvg1: round2(os.loadavg()[0]),
    commit: git(["rev-parse", "--short", "HEAD"]) ?? "unknown",
    dirty: status === null ? false : status.length > 0,
  };
}
