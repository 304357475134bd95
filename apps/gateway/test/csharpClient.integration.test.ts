/**
 * The C# SDK (packages/client-dotnet) against `wrangler dev`, beside the TypeScript one: two C#
 * clients and one TypeScript client matched into one agar room through `JoinOrCreate`; after 5 s
 * of inputs each C# client's view equals what the TypeScript SDK decodes from the very messages
 * that C# client received (it records them); refused joins (a full room, a bad ticket) end in a
 * typed `JoinException` within 2 s; a restart of the server brings a C# client back into its seat.
 * The C# side is the console program test/Tikron.Client.Live (JSON lines on stdout).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientView, decodeServerMessage, isDecodeError } from "@tikron/protocol";
import { connect, matchmaker, withMessages } from "@tikron/client";
import { agarSchema, agarTypes } from "@tikron/games";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";

const SECRET = "csharp-ticket-secret-0123456789ab";
const LIVE = join(REPO_ROOT, "packages/client-dotnet/test/Tikron.Client.Live");
const DLL = join(LIVE, "bin/Release/net10.0/Tikron.Client.Live.dll");
const servers: WranglerDevServer[] = [];
const children: ChildProcess[] = [];
let worker: FrozenWorker | undefined;
let server: WranglerDevServer;
const out = mkdtempSync(join(tmpdir(), "tikron-csharp-"));

/** One run of the C# program: its JSON lines as they come, and its end. */
function csharp(args: string[]): { lines: Record<string, unknown>[]; next(pred: (l: Record<string, unknown>) => boolean, ms: number): Promise<Record<string, unknown>>; done: Promise<number | null> } {
  const child = spawn("dotnet", [DLL, ...args], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: "1", DOTNET_NOLOGO: "1" } });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line.startsWith("{")) lines.push(JSON.parse(line));
      for (const w of waiters.splice(0)) w();
    }
  });
  const done = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const next = (pred: (l: Record<string, unknown>) => boolean, ms: number): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such line within ${ms} ms; lines: ${JSON.stringify(lines)}`)), ms);
      const look = (): void => {
        const hit = lines.find(pred);
        if (hit) {
          clearTimeout(timer);
          resolve(hit);
        } else waiters.push(look);
      };
      look();
    });
  return { lines, next, done };
}

/** The entities a TypeScript view holds after the messages one C# client recorded (hex per line), as the C# client dumps them. */
function tsViewOf(file: string): unknown[] {
  const view = new ClientView(agarSchema);
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const m = decodeServerMessage(new Uint8Array(Buffer.from(line, "hex")));
    if (isDecodeError(m)) throw m;
    if (m.kind === "welcome") view.clear();
    if (m.kind === "frame" && m.hasState) {
      const err = view.apply(m.body!);
      if (err) throw err;
    }
  }
  return [...view.values()].sort((a, b) => a.id - b.id).map((e) => ({ id: e.id, type: e.type, fields: e.record }));
}

beforeAll(async () => {
  if (!existsSync(DLL)) {
    const built = spawnSync("dotnet", ["build", LIVE, "-c", "Release", "-nologo", "-clp:ErrorsOnly"], { encoding: "utf8", env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: "1", DOTNET_NOLOGO: "1" } });
    if (built.status !== 0) throw new Error(`building the C# live client failed:\n${built.stdout}\n${built.stderr}`);
  }
  worker = await freezeWorker("wrangler.staging.jsonc");
  server = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: SECRET }, keepState: true });
  servers.push(server);
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await Promise.allSettled(servers.map((s) => s.stop()));
  worker?.remove();
  rmSync(out, { recursive: true, force: true });
});

describe("the C# SDK against wrangler dev", () => {
  it("two C# clients and a TypeScript client share an agar room; each C# view equals the TypeScript decoding of its frames", async () => {
    const ts = withMessages(await matchmaker(server.url).joinOrCreate(agarTypes, { name: "ts" }));
    // The room's own count of its players while the C# clients play (a cell may be out of view).
    let mostPlayers = 0;
    const steer = setInterval(() => ts.sendInput({ dx: 0, dy: 1, boost: false }), 50);
    const census = setInterval(() => {
      ts.requestStats()
        .then((s) => (mostPlayers = Math.max(mostPlayers, (s as { ccu: number }).ccu)))
        .catch(() => {});
    }, 500);
    try {
      const runs = ["csA", "csB"].map((name) => csharp(["play", "--url", server.url, "--seconds", "5", "--name", name, "--out", out]));
      const codes = await Promise.all(runs.map((r) => r.done));
      expect(codes).toEqual([0, 0]);
      expect(mostPlayers, "the room never held the two C# clients and the TypeScript one at once").toBe(3);
      for (const [i, run] of runs.entries()) {
        const dump = run.lines.at(-1)! as { name: string; room: string; playerId: number; sent: number; lastAck: number; frames: number; entities: unknown[] };
        expect(dump.room, "the matchmaker put the C# client in another room").toBe(ts.room);
        expect(dump.sent).toBeGreaterThan(60);
        expect(dump.lastAck, "every input acknowledged").toBe(dump.sent);
        expect(dump.frames).toBeGreaterThan(60);
        const tsView = tsViewOf(join(out, `cs${"AB"[i]}.messages.jsonl`));
        expect(tsView.length).toBeGreaterThan(3);
        expect(dump.entities).toEqual(tsView);
      }
    } finally {
      clearInterval(steer);
      clearInterval(census);
      ts.close();
    }
  });

  it("refused joins end in a typed JoinException within 2 s: a full room, a bad ticket (the same code on connect and through the matchmaker)", async () => {
    const holder = connect(`${server.url}?cap=1`, { game: agarTypes, room: "cs-full" });
    await holder.whenJoined();
    try {
      const full = csharp(["refuse", "--url", `${server.url}?cap=1`, "--room", "cs-full", "--repeat", "2"]);
      await full.done;
      // Both attempts refused; the second (the SDK already loaded, as in a running game) within 2 s.
      expect(full.lines).toMatchObject([{ exception: "JoinException", code: "room_full", closeCode: 4002 }, { exception: "JoinException", code: "room_full", closeCode: 4002 }]);
      expect(full.lines[1]!.ms as number).toBeLessThan(2000);
      console.log(`[csharp] room_full refusal: ${Math.round(full.lines[0]!.ms as number)} ms in a fresh process, ${Math.round(full.lines[1]!.ms as number)} ms in a running one`);
    } finally {
      holder.close();
    }
    const bad = csharp(["refuse", "--url", server.url, "--room", "cs-ticket", "--ticket", "eyJ2IjoxfQ.bm90LWEtc2lnbmF0dXJl", "--repeat", "2"]);
    await bad.done;
    expect(bad.lines).toMatchObject([{ exception: "JoinException", code: "unauthorized", closeCode: 4011 }, { exception: "JoinException", code: "unauthorized", closeCode: 4011 }]);
    expect(bad.lines[1]!.ms as number).toBeLessThan(2000);
    console.log(`[csharp] unauthorized refusal: ${Math.round(bad.lines[0]!.ms as number)} ms in a fresh process, ${Math.round(bad.lines[1]!.ms as number)} ms in a running one`);
    // The same bad ticket through the matchmaker is the same code (its own refusal: close code 0).
    const viaMatch = csharp(["refuse", "--url", server.url, "--room", "cs-ticket", "--ticket", "eyJ2IjoxfQ.bm90LWEtc2lnbmF0dXJl", "--via", "match"]);
    await viaMatch.done;
    expect(viaMatch.lines).toMatchObject([{ exception: "JoinException", code: "unauthorized", closeCode: 0 }]);
  });

  it("a server restart brings the C# client back into its seat", async () => {
    const stay = csharp(["stay", "--url", server.url, "--room", "cs-restart", "--seconds", "90", "--welcomes", "2"]);
    const first = await stay.next((l) => l.welcome === true, 30_000);
    expect(first).toMatchObject({ reconnected: false });
    await new Promise((r) => setTimeout(r, 1500));
    const stoppedAt = performance.now();
    await server.stop();
    const again = await startWranglerDev({ config: worker!.configPath, vars: { TICKET_SECRET: SECRET }, port: server.port, persistDir: server.persistDir });
    servers.push(again);
    const t0 = performance.now();
    const second = await stay.next((l) => l.welcome === true && l.reconnected === true, 30_000);
    const back = performance.now();
    expect(second).toMatchObject({ playerId: first.playerId, token: first.token });
    expect(second.roomEpoch as number).toBeGreaterThan(first.roomEpoch as number);
    expect(back - t0).toBeLessThan(10_000);
    // The client retries while the server is down, so it is usually back before the health check answers.
    console.log(`[csharp] back in its seat ${Math.round(back - stoppedAt)} ms after the stop began (the server was down and up again in ${Math.round(t0 - stoppedAt)} ms)`);
    const end = await stay.next((l) => "done" in l, 10_000);
    expect(end.done).toBe(2);
    expect(await stay.done).toBe(0);
  });
});
