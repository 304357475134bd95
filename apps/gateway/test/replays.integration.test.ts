/**
 * Recorded matches under `wrangler dev` with the production config (local R2 as `REPLAYS`): an
 * agar match played over real sockets is recorded piece by piece into its object's storage,
 * uploaded to the bucket when the empty room is let go, listed by the admin API
 * (`GET /admin/api/replays/agar`), and `npm run replay -- verify` re-runs it to
 * `replay: exact`; the replay's frames for each player are the ones its socket received.
 *
 * Players and length default to a short match for CI; `REPLAY_PLAYERS=20 REPLAY_SECONDS=60`
 * plays the 20-player minute (and prints its size per player-minute).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { MatchReplay } from "@tikron/core/replay";
import { gameDefinitions } from "@tikron/games";
import { agarInputs } from "@tikron/games/schemas";
import { BinaryWriter, decodeServerMessage, isDecodeError, type MatchSummary } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawClient } from "../../../test/roomProtocol/rawClient";
import { REPO_ROOT, startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { sleep } from "./hardeningClient";
import { freezeWorker, type FrozenWorker } from "./hardeningWorker";

const ADMIN_TOKEN = "replays-admin-token-0123456789abcdef";
const PLAYERS = Number(process.env.REPLAY_PLAYERS ?? 6);
const SECONDS = Number(process.env.REPLAY_SECONDS ?? 4);
let worker: FrozenWorker;
let server: WranglerDevServer;

beforeAll(async () => {
  worker = await freezeWorker("wrangler.jsonc");
  server = await startWranglerDev({ config: worker.configPath, vars: { DEV_MODE: "true", ADMIN_TOKEN } });
});

afterAll(async () => {
  await server?.stop();
  worker?.remove();
});

async function api(path: string): Promise<Response> {
  return fetch(`${server.url}/admin/api${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

function isState(data: Uint8Array): boolean {
  const m = decodeServerMessage(data);
  return !isDecodeError(m) && (m.kind === "frame" || m.kind === "notice");
}

/** `npm run replay -- …` as an operator runs it (the same script, the same environment variable). */
function replayCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const tsx = join(REPO_ROOT, "node_modules", ".bin", "tsx");
    execFile(tsx, [join(REPO_ROOT, "tools/replay/src/cli.ts"), ...args], { env: { ...process.env, ADMIN_TOKEN }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, out: `${stdout}${stderr}` });
    });
  });
}

describe("recorded matches under wrangler dev", () => {
  it("an agar match is recorded to R2, listed, and replays exactly with every player's frames", async () => {
    const roomId = `rec-${Date.now().toString(36)}`;
    const url = `${server.wsUrl}/rooms/agar/${roomId}`;
    const clients = Array.from({ length: PLAYERS }, () => new RawClient(url));
    for (const [i, c] of clients.entries()) expect(await c.join(`p${i}`)).not.toBeNull();
    const w = new BinaryWriter();
    const steps = Math.round((SECONDS * 1000) / 50);
    for (let step = 0; step < steps; step++) {
      for (const [i, c] of clients.entries()) c.sendInput(agarInputs.write(w.reset(), { dx: Math.cos(step / 7 + i), dy: Math.sin(step / 5 - i), boost: (step + i) % 9 === 0 }).toBytes());
      await sleep(50);
    }
    for (const c of clients) c.close();
    await Promise.all(clients.map((c) => c.done));

    // The empty room is let go after 10 s; its match is uploaded then.
    let summary: MatchSummary | undefined;
    for (const deadline = Date.now() + 40_000; !summary && Date.now() < deadline; await sleep(500)) {
      const res = await api("/replays/agar");
      expect(res.status).toBe(200);
      summary = ((await res.json()) as MatchSummary[]).find((m) => m.roomId === roomId);
    }
    expect(summary, "the match was not listed within 40 s").toBeDefined();
    expect(summary).toMatchObject({ kind: "agar", roomId, players: PLAYERS, reason: "disposed" });
    expect(summary!.endedAt - summary!.startedAt).toBeGreaterThanOrEqual(SECONDS * 1000);
    const minutes = (summary!.endedAt - summary!.startedAt) / 60_000;
    console.log(`[replays] agar ${PLAYERS} players, ${(minutes * 60).toFixed(1)} s: ${summary!.bytes} B, ${Math.round(summary!.bytes / (PLAYERS * minutes))} B per player-minute`);

    const cli = await replayCli(["verify", "--url", server.url, "--kind", "agar", "--match", summary!.matchId]);
    expect(cli.out.trim().split("\n").at(-1)).toMatch(/^replay: exact/);
    expect(cli.code, cli.out).toBe(0);

    const log = new Uint8Array(await (await api(`/replays/agar/${summary!.matchId}`)).arrayBuffer());
    expect(log.byteLength).toBe(summary!.bytes);
    const sent = new Map<number, Uint8Array[]>();
    const replay = new MatchReplay(gameDefinitions.agar!, log, {
      onSend: (playerId, data) => {
        if (data instanceof Uint8Array && isState(data)) (sent.get(playerId) ?? sent.set(playerId, []).get(playerId)!).push(data);
      },
    });
    expect((await replay.run()).exact).toBe(true);
    for (const c of clients) {
      const frames = c.raw.filter(isState);
      expect(frames.length).toBeGreaterThan(SECONDS * 10);
      // A client that closed its socket drops what was still on the way to it; the room sent
      // those too (its log's frame hashes say so), so the replay's frames may run on past them.
      expect(sent.get(c.welcome!.playerId)!.slice(0, frames.length)).toEqual(frames);
    }
  });
});
