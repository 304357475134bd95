/**
 * The CLI's documented exit codes, from a real process: 97 could not run (bad arguments, nothing
 * reachable), 99 a threshold failed, 0 pass.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RoomServer } from "@tikron/node";
import { serverTotals, startRooms } from "./nodeRooms";
import { ExitCode } from "../src/report/verdict";
import { tsxExecArgv } from "../src/run/workers";

const CLI = fileURLToPath(new URL("../src/cli.ts", import.meta.url));
const out = mkdtempSync(join(tmpdir(), "lt-cli-"));
let rooms: RoomServer | undefined;

beforeAll(async () => {
  rooms = await startRooms();
});
afterAll(async () => {
  await rooms?.close();
});

/** Runs the CLI in a child process (asynchronously: the rooms live in this process). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...tsxExecArgv(), CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("exit codes", () => {
  it("97 for bad arguments and for a server nobody can reach", { timeout: 90_000 }, async () => {
    expect((await cli(["run", "--players", "abc"])).code).toBe(ExitCode.couldNotRun);
    expect((await cli(["run", "--threshold", "nope.p99<1", "--out", out])).code).toBe(ExitCode.couldNotRun);
    const unreachable = await cli(["run", "--url", "ws://127.0.0.1:9", "-p", "2", "-d", "0.5", "--ramp", "0", "--quiet", "--no-room-stats", "--out", out]);
    expect(unreachable.code).toBe(ExitCode.couldNotRun);
    expect(unreachable.stdout).toMatch(/could not run: no player joined .*ECONNREFUSED/);
  });

  it("99 when a threshold fails, 0 when all hold; piped progress prints plain lines", { timeout: 90_000 }, async () => {
    const base = ["run", "--url", rooms!.url, "-p", "4", "-d", "2", "--ramp", "0", "--no-room-stats", "--out", out];
    const fail = await cli([...base, "--threshold", "ack.p99<0.001"]);
    // A saturated run on a busy machine is 98 (invalid) before it is judged: both mean "not a pass".
    expect([ExitCode.thresholdFailed, ExitCode.invalidRun]).toContain(fail.code);
    expect(fail.stdout).toMatch(/FAIL\s+ack\.p99<0\.001/);
    expect(fail.stderr).toMatch(/^\[ ?1\/2s\] players 4\/4 /m);
    const pass = await cli([...base, "--threshold", "ack.p99<5000", "--threshold", "clients.joined==4", "--quiet"]);
    expect([ExitCode.pass, ExitCode.invalidRun]).toContain(pass.code);
    if (pass.code === ExitCode.pass) expect(pass.stdout).toMatch(/run: PASS/);
    expect(pass.stderr).not.toMatch(/players 4\/4/);
    expect(pass.stdout).toMatch(/html:\s+\S+\.html/);
  });
});
