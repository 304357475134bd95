/**
 * Recorded matches on the Node host (`serveRooms({ replays })`): an agar match played over real
 * sockets is written to the folder, listed and served by the admin API, and replays exactly:
 * the same world, and for each player the same frames its socket received, byte for byte.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MatchReplay } from "@tikron/core/replay";
import { gameDefinitions } from "@tikron/games";
import { agarInputs } from "@tikron/games/schemas";
import { BinaryWriter, decodeServerMessage, isDecodeError, type MatchSummary } from "@tikron/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { NodeReplays, serveRooms, type RoomServer } from "../src";
import { RawClient } from "../../../test/roomProtocol/rawClient";

const TOKEN = "replay-test-admin-token-0123456789";
const servers: RoomServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function admin(server: RoomServer, path: string): Promise<Response> {
  return fetch(`${server.httpUrl}/admin/api${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
}

/** A frame or a notice: what a replay's room sends again (welcomes carry each run's own token). */
function isState(data: Uint8Array): boolean {
  const m = decodeServerMessage(data);
  return !isDecodeError(m) && (m.kind === "frame" || m.kind === "notice");
}

describe("recorded matches on the Node host", () => {
  it("an agar match over real sockets is kept in the folder, listed, served and replayed exactly", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tikron-replays-"));
    dirs.push(dir);
    const server = await serveRooms({ games: gameDefinitions, adminToken: TOKEN, replays: { dir } });
    servers.push(server);
    const url = `${server.url}/rooms/agar/rec1`;
    const clients = [new RawClient(url), new RawClient(url), new RawClient(url)];
    for (const [i, c] of clients.entries()) expect(await c.join(`p${i}`)).not.toBeNull();
    const w = new BinaryWriter();
    // About a second of steering, one input per client every 50 ms; the last client leaves halfway.
    for (let step = 0; step < 20; step++) {
      for (const [i, c] of clients.entries()) {
        if (i === 2 && step === 10) c.close();
        if (i === 2 && step >= 10) continue;
        c.sendInput(agarInputs.write(w.reset(), { dx: Math.cos(step + i), dy: Math.sin(step * i), boost: step % 3 === 0 }).toBytes());
      }
      await sleep(50);
    }
    await server.close();

    // A second server on the same folder serves what the first recorded.
    const again = await serveRooms({ games: gameDefinitions, adminToken: TOKEN, replays: { dir } });
    servers.push(again);
    expect((await admin(again, "/replays/agar")).status).toBe(200);
    const list = (await (await admin(again, "/replays/agar")).json()) as MatchSummary[];
    expect(list).toHaveLength(1);
    const summary = list[0]!;
    expect(summary).toMatchObject({ kind: "agar", roomId: "rec1", players: 3, reason: "disposed" });
    expect(summary.endedAt).toBeGreaterThan(summary.startedAt);
    expect((await readdir(join(dir, "agar"))).sort()).toEqual([`${summary.matchId}.json`, `${summary.matchId}.tkml`]);

    const res = await admin(again, `/replays/agar/${summary.matchId}`);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    const log = new Uint8Array(await res.arrayBuffer());
    expect(log.byteLength).toBe(summary.bytes);

    const sent = new Map<number, Uint8Array[]>();
    const replay = new MatchReplay(gameDefinitions.agar!, log, {
      onSend: (playerId, data) => {
        if (data instanceof Uint8Array && isState(data)) (sent.get(playerId) ?? sent.set(playerId, []).get(playerId)!).push(data);
      },
    });
    const report = await replay.run();
    expect(report.difference).toBeNull();
    expect(report.message).toMatch(/^replay: exact/);
    expect(report.ticks).toBeGreaterThan(10);
    for (const c of clients) {
      const frames = c.raw.filter(isState);
      expect(frames.length).toBeGreaterThan(5);
      // A client that closed its socket drops what was still on the way to it; the room sent
      // those too (its log's frame hashes say so), so the replay's frames may run on past them.
      expect(sent.get(c.welcome!.playerId)!.slice(0, frames.length)).toEqual(frames);
    }
  });

  it("answers 404 for a match it does not have, and 503 on a host that keeps none", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tikron-replays-"));
    dirs.push(dir);
    const server = await serveRooms({ games: gameDefinitions, adminToken: TOKEN, replays: { dir } });
    servers.push(server);
    expect(await (await admin(server, "/replays/agar")).json()).toEqual([]);
    expect((await admin(server, "/replays/agar/000000000-0000000000")).status).toBe(404);
    expect((await admin(server, "/replays/agar/not-an-id")).status).toBe(404);
    expect((await admin(server, "/replays/nope")).status).toBe(404);
    const bare = await serveRooms({ games: gameDefinitions, adminToken: TOKEN });
    servers.push(bare);
    expect((await admin(bare, "/replays/agar")).status).toBe(503);
  });

  it("deletes a kind's matches past the retention when another ends, and keeps no match nobody joined", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tikron-replays-"));
    dirs.push(dir);
    const replays = new NodeReplays({ dir, retentionDays: 1 });
    const now = Date.now();
    const old = `${(now - 3 * 86_400_000).toString(36).padStart(9, "0")}-0123456789`;
    await mkdir(join(dir, "agar"), { recursive: true });
    await writeFile(join(dir, "agar", `${old}.tkml`), "x");
    await writeFile(join(dir, "agar", `${old}.json`), "{}");
    const fresh = `${now.toString(36).padStart(9, "0")}-abcdefabcd`;
    const empty = `${now.toString(36).padStart(9, "0")}-0000000000`;
    const sink = replays.sink("agar");
    const summary = { kind: "agar", roomId: "r", startedAt: now, endedAt: now + 1000, bytes: 3, reason: "disposed" };
    sink.chunk(fresh, 0, new Uint8Array([1, 2, 3]));
    sink.end({ ...summary, matchId: fresh, players: 2 });
    sink.chunk(empty, 0, new Uint8Array([4]));
    sink.end({ ...summary, matchId: empty, players: 0 });
    await replays.idle();
    expect((await readdir(join(dir, "agar"))).sort()).toEqual([`${fresh}.json`, `${fresh}.tkml`]);
    expect((await replays.list("agar")).map((m) => m.matchId)).toEqual([fresh]);
    expect(await replays.get("agar", fresh)).toEqual(new Uint8Array([1, 2, 3]));
  });
});
