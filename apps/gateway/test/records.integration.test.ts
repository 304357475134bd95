/**
 * Durable room records against real local D1 under `wrangler dev` with the production config:
 * a D1 failure is logged and retried with backoff while the room keeps playing, a short session
 * is written once when it ends, and a long one is written at its start and updated at its end.
 */
import { mintRoomTicket } from "@tikron/cloudflare/ticket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { LivePlayer, sleep } from "./hardeningClient";
import { freezeWorker, runWrangler, type FrozenWorker } from "./hardeningWorker";

const SECRET = "records-ticket-secret-0123456789";
let server: WranglerDevServer;
let worker: FrozenWorker;

beforeAll(async () => {
  worker = await freezeWorker("wrangler.jsonc");
  server = await startWranglerDev({ config: worker.configPath, vars: { TICKET_SECRET: SECRET } });
});

afterAll(async () => {
  await server?.stop();
  worker?.remove();
});

const d1Args = () => ["--local", "--persist-to", `${server.persistDir}/state`, "--config", worker.configPath];

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const r = await runWrangler(["d1", "execute", "DB", ...d1Args(), "--json", "--command", sql]);
  if (r.code !== 0) throw new Error(`d1 execute failed:\n${r.output}`);
  const json = JSON.parse(r.output.slice(r.output.indexOf("["))) as { results: Record<string, unknown>[] }[];
  return json[0]!.results;
}

async function waitForRows(sql: string, ready: (rows: Record<string, unknown>[]) => boolean, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + timeoutMs;
  let rows: Record<string, unknown>[] = [];
  while (Date.now() < deadline) {
    rows = await query(sql);
    if (ready(rows)) return rows;
    await sleep(1_000);
  }
  return rows;
}

async function player(roomId: string, playerId: string): Promise<LivePlayer> {
  const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId, playerId, ttlSeconds: 600 });
  return LivePlayer.join(`${server.wsUrl}/rooms/agar/${roomId}?ticket=${ticket}`, { name: playerId });
}

const rowsOf = (roomId: string) =>
  `SELECT kind, room_id, started_at, ended_at, peak_ccu, total_joins, refusals, closes_json, end_reason FROM room_records WHERE room_id = '${roomId}'`;

describe("room records in D1", () => {
  it("a D1 failure is retried with backoff while the room plays on; the row lands once D1 works", async () => {
    // No migrations yet: the table is missing, so the first writes fail.
    const t0 = Date.now();
    const [alice, bob] = [await player("rec1", "alice"), await player("rec1", "bob")];
    alice.startSteering();
    bob.startSteering();
    await sleep(1_000);
    await Promise.all([alice.leave(), bob.leave()]);
    const t1 = Date.now();

    const deadline = Date.now() + 15_000;
    while (!/\[records\] D1 write failed .*attempt 1\/8, retrying in 1000 ms/.test(server.output()) && Date.now() < deadline) await sleep(200);
    expect(server.output()).toMatch(/\[records\] D1 write failed \(.*no such table: room_records.*\); attempt 1\/8, retrying in 1000 ms/);

    // The failing writes never held the room up: a new player in the same room plays normally.
    const carol = await player("rec1b", "carol");
    carol.startSteering();
    await sleep(500);
    expect(carol.frameTimes.length).toBeGreaterThan(5);
    expect(carol.errors).toEqual([]);

    const applied = await runWrangler(["d1", "migrations", "apply", "DB", ...d1Args()]);
    expect(applied.code, applied.output).toBe(0);

    const rows = await waitForRows(rowsOf("rec1"), (r) => r.length > 0 && r[0]!.ended_at !== null, 60_000);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({ kind: "agar", room_id: "rec1", peak_ccu: 2, total_joins: 2, refusals: 0, end_reason: "empty" });
    expect(JSON.parse(row.closes_json as string)).toEqual({ normal: 2 });
    expect(row.started_at as number).toBeGreaterThanOrEqual(t0 - 1_000);
    expect(row.ended_at as number).toBeGreaterThanOrEqual(row.started_at as number);
    expect(row.ended_at as number).toBeLessThanOrEqual(t1 + 1_000);
    expect(server.output()).toMatch(/attempt 2\/8, retrying in 2000 ms|attempt 3\/8/);
    await carol.leave();
  });

  it("a long session is inserted at its start and updated at its end", async () => {
    const dave = await player("rec2", "dave");
    dave.startSteering();
    // Start rows wait 10 s for the session's end to coalesce with; this one outlives that.
    const open = await waitForRows(rowsOf("rec2"), (r) => r.length > 0, 25_000);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ ended_at: null, end_reason: null, peak_ccu: 0 });
    expect(dave.closed).toBeNull();

    const erin = await player("rec2", "erin");
    await sleep(300);
    await Promise.all([dave.leave(), erin.leave()]);
    const done = await waitForRows(rowsOf("rec2"), (r) => r.length > 0 && r[0]!.ended_at !== null, 30_000);
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ started_at: open[0]!.started_at, peak_ccu: 2, total_joins: 2, end_reason: "empty" });
    expect(JSON.parse(done[0]!.closes_json as string)).toEqual({ normal: 2 });
  });
});
