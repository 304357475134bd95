/**
 * `npm run dev` (scripts/dev.sh): the non-interactive demo run works against the real staging
 * config, and the foreground server is stopped, whole process group included, on Ctrl-C.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { groupMembers, pickFreePort, REPO_ROOT } from "./harness/wranglerDev";

const DEV_SH = join(REPO_ROOT, "scripts", "dev.sh");
const ECHO_CONFIG = fileURLToPath(new URL("./harness/fixtures/echo.wrangler.jsonc", import.meta.url));

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function runDev(args: string[]): Promise<Run> {
  const port = await pickFreePort();
  const inspectorPort = await pickFreePort();
  const child = spawn("bash", [DEV_SH, "--port", String(port), "--inspector-port", String(inspectorPort), ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", (code) => resolveExit(code)));
  return { child, output: () => output, exited };
}

function serverPid(output: string): number | undefined {
  const match = /dev: server pid (\d+)/.exec(output);
  return match ? Number(match[1]) : undefined;
}

/** Resolves to the exit code, or kills the script (and any server it reported) after `ms`. */
async function within(run: Run, ms: number): Promise<number | null> {
  const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms));
  const result = await Promise.race([run.exited, timer]);
  if (result === "timeout") {
    run.child.kill("SIGKILL");
    const pid = serverPid(run.output());
    if (pid !== undefined) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    throw new Error(`dev.sh did not finish within ${ms} ms; output:\n${run.output()}`);
  }
  return result;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

describe("scripts/dev.sh", () => {
  it("--smoke-only serves the staging gateway, runs the demo step and stops the server", async () => {
    const run = await runDev(["--smoke-only"]);
    const code = await within(run, 90_000);
    const output = run.output();
    expect(code, output).toBe(0);
    expect(output).toContain("ws://127.0.0.1:");
    expect(output).toContain("/rooms/agar/lobby");
    expect(output).toContain("smoke: ok");
    const pid = serverPid(output);
    expect(pid, output).toBeDefined();
    expect(await waitFor(() => groupMembers(pid!).length === 0, 5_000)).toBe(true);
    expect(existsSync(join(REPO_ROOT, ".tmp", `dev-smoke-${run.child.pid}`))).toBe(false);
  });

  it("keeps serving in the foreground and stops the whole server on Ctrl-C (SIGINT)", async () => {
    const run = await runDev(["--config", ECHO_CONFIG]);
    try {
      const serving = await waitFor(() => run.output().includes("press Ctrl-C") || run.child.exitCode !== null, 90_000);
      expect(serving && run.child.exitCode === null, run.output()).toBe(true);
      const pid = serverPid(run.output())!;
      const url = /lobby\s+(\S+)/.exec(run.output())![1]!;
      expect((await fetch(`${url}health`)).status).toBe(200);
      expect(groupMembers(pid).length).toBeGreaterThan(0);

      run.child.kill("SIGINT");
      const code = await within(run, 15_000);
      expect(code).toBe(130);
      expect(groupMembers(pid)).toEqual([]);
      expect(run.output()).toContain("dev: server stopped");
    } finally {
      if (run.child.exitCode === null) await within(run, 1).catch(() => undefined);
    }
  });
});
