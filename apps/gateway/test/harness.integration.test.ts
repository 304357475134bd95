/**
 * The `wrangler dev` harness itself: servers start on loopback, answer, run side by side, and
 * leave no process behind however their owner ends (stop(), SIGINT, SIGKILL, failed start).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { groupMembers, REPO_ROOT, StartError, startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";

const STAGING = "wrangler.staging.jsonc";
const FIXTURE = fileURLToPath(new URL("./harness/fixtures/startAndWait.ts", import.meta.url));
const ECHO_CONFIG = fileURLToPath(new URL("./harness/fixtures/echo.wrangler.jsonc", import.meta.url));
const started: WranglerDevServer[] = [];

afterAll(async () => {
  await Promise.allSettled(started.map((s) => s.stop()));
});

async function start(config: string, vars?: Record<string, string>): Promise<WranglerDevServer> {
  const server = await startWranglerDev({ config, vars });
  started.push(server);
  return server;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

describe("startWranglerDev", () => {
  it("runs two servers at once on different loopback ports and stops each completely", async () => {
    const [a, b] = await Promise.all([start(ECHO_CONFIG), start(ECHO_CONFIG, { DEV_MODE: "from-test" })]);

    expect(a.port).not.toBe(b.port);
    expect(a.inspectorPort).not.toBe(b.inspectorPort);
    expect(a.persistDir).not.toBe(b.persistDir);
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(a.wsUrl).toBe(a.url.replace("http:", "ws:"));

    for (const server of [a, b]) {
      const res = await fetch(`${server.url}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    }
    // --var overrides the config's value and leaves the other vars alone.
    expect(await (await fetch(`${a.url}/vars`)).json()).toMatchObject({ DEV_MODE: "false", FROM_CONFIG: "yes" });
    expect(await (await fetch(`${b.url}/vars`)).json()).toMatchObject({ DEV_MODE: "from-test", FROM_CONFIG: "yes" });

    // The group check below is only meaningful if workerd really lives in the server's group.
    const members = groupMembers(a.pid);
    expect(members.map(commandOf)).toContain("workerd");

    await a.stop();
    expect(groupMembers(a.pid)).toEqual([]);
    expect(isAlive(a.pid)).toBe(false);
    expect(existsSync(a.persistDir)).toBe(false);

    // Stopping one server leaves the other untouched.
    expect((await fetch(`${b.url}/health`)).status).toBe(200);

    await b.stop();
    expect(groupMembers(b.pid)).toEqual([]);
    await b.stop(); // idempotent
  });

  it("serves the gateway from wrangler.staging.jsonc: Worker routes and static assets", async () => {
    const server = await start(STAGING);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });

    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("lobby.js");
    const play = await fetch(`${server.url}/play?game=agar&room=x`);
    expect(play.status).toBe(200);
    expect(await play.text()).toContain("app.js");
    const rooms = await fetch(`${server.url}/match/agar/rooms`);
    expect(rooms.status).toBe(200);
    expect(await rooms.json()).toEqual([]);

    await server.stop();
    expect(groupMembers(server.pid)).toEqual([]);
  });

  it("fails with wrangler's output and leaves nothing running when the Worker cannot start", async () => {
    const dir = join(REPO_ROOT, ".tmp", `broken-worker-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(join(dir, "index.ts"), "export default { fetch( { syntax error here\n");
      writeFileSync(
        join(dir, "wrangler.jsonc"),
        JSON.stringify({ name: "broken", main: "index.ts", compatibility_date: "2026-11-01" }),
      );
      const error = await startWranglerDev({ config: join(dir, "wrangler.jsonc"), readyTimeoutMs: 30_000 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(StartError);
      const startError = error as StartError;
      expect(startError.message).toContain("wrangler output");
      expect(startError.message.toLowerCase()).toContain("error");
      expect(groupMembers(startError.pid)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const signal of ["SIGINT", "SIGKILL"] as const) {
    it(`kills the server when its owning process gets ${signal}`, async () => {
      const owner = spawn(process.execPath, ["--import", "tsx", FIXTURE, ECHO_CONFIG], {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      owner.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      owner.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      let group: number | undefined;
      try {
        const reportedIn = await waitFor(() => stdout.includes("\n") || owner.exitCode !== null, 60_000);
        expect(reportedIn && stdout.includes("\n"), `fixture never reported a server; stderr:\n${stderr}`).toBe(true);
        const server = JSON.parse(stdout.split("\n")[0]!) as { pid: number; url: string; persistDir: string };
        group = server.pid;
        expect((await fetch(`${server.url}/health`)).status).toBe(200);
        expect(groupMembers(server.pid).length).toBeGreaterThan(0);

        owner.kill(signal);
        // SIGINT runs the harness's handler at once; after SIGKILL the watchdog sees its pipe
        // close and gives wrangler a short grace period before SIGKILL.
        const gone = await waitFor(() => groupMembers(server.pid).length === 0, 15_000);
        expect(gone, `still alive in group ${server.pid}: ${groupMembers(server.pid).map(commandOf).join(", ")}`).toBe(true);
        expect(await waitFor(() => owner.exitCode !== null || owner.signalCode !== null, 5_000)).toBe(true);
        // Local state goes too (removed by the signal handler, or by the watchdog).
        expect(await waitFor(() => !existsSync(server.persistDir), 10_000)).toBe(true);
      } finally {
        if (owner.exitCode === null && owner.signalCode === null) owner.kill("SIGKILL");
        // A failed assertion must not leave the fixture's server behind.
        if (group !== undefined) {
          try {
            process.kill(-group, "SIGKILL");
          } catch {
            // already gone, as expected
          }
        }
      }
    });
  }
});
