/**
 * The admin API on the Node host (`serveRooms({ adminToken })`): every path refuses without the
 * credential; with it, the rooms, a room's players, and the actions end to end against SDK
 * clients (kick, ban, lock, close, notice), each in the audit log; metric points per room.
 */
import { connect, type RoomConnection } from "@tikron/client";
import { mintRoomTicket } from "@tikron/core/ticket";
import { gameDefinitions } from "@tikron/games";
import { ADMIN_ACTIONS, CloseCode, OPERATOR_NOTICE, jsonDialect } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRooms, type RoomServer } from "../src";

const TOKEN = "node-admin-token-0123456789abcdef";
const SECRET = "node-admin-ticket-secret-0123456789";
let server: RoomServer;
const open: RoomConnection<any>[] = [];

beforeAll(async () => {
  server = await serveRooms({ games: gameDefinitions, adminToken: TOKEN, ticketSecret: SECRET, metricsIntervalMs: 1_000 });
});
afterAll(async () => {
  for (const c of open) c.close();
  await server?.close();
});

const auth = { authorization: `Bearer ${TOKEN}` };
async function api(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${server.httpUrl}/admin/api${path}`, { method: init.method ?? "GET", headers: init.headers ?? auth, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
  return { status: res.status, body: (await res.json()) as any };
}

async function player(roomId: string, name: string, withTicket = true) {
  const ticket = withTicket ? await mintRoomTicket({ secret: SECRET, kind: "ttt-json", roomId, playerId: name, ttlSeconds: 300 }) : undefined;
  // DEV_MODE override: room for three (ttt seats two).
  const conn = connect(`${server.url}/?cap=3`, { kind: "ttt-json", json: jsonDialect, room: roomId, name, ...(ticket ? { ticket } : {}), reconnect: false });
  open.push(conn);
  await conn.whenJoined();
  const notices: string[] = [];
  conn.on("notice", (n) => n.type === OPERATOR_NOTICE && notices.push((n.data as { text: string }).text));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => conn.on("close", (c) => resolve(c)));
  return { conn, notices, closed };
}

describe("the Node host's admin API", () => {
  it("refuses every path without the admin token (401) or with another alike (401)", async () => {
    const paths: Array<[string, string]> = [["GET", "/rooms"], ["GET", "/audit"], ["GET", "/refusals"], ["GET", "/rooms/agar/x"], ["GET", "/rooms/agar/x/metrics"], ...ADMIN_ACTIONS.map((op): [string, string] => ["POST", `/rooms/agar/x/${op}`]), ["GET", "/nowhere"]];
    for (const [method, path] of paths) {
      expect((await api(path, { method, headers: {} })).status, `${method} ${path}`).toBe(401);
      expect((await api(path, { method, headers: { authorization: "Bearer nope" } })).status, `${method} ${path}`).toBe(401);
    }
    expect(server.rooms()).toEqual([]);
    expect((await api("/audit")).body).toEqual([]);
  });

  it("refuses to start with an admin token too short to be a secret", async () => {
    await expect(serveRooms({ games: gameDefinitions, adminToken: "short" })).rejects.toThrow(/ADMIN_TOKEN must be at least 24/);
  });

  it("lists rooms and shows a room's players with their identities", async () => {
    await player("adm1", "ann");
    await player("adm1", "anon", false);
    const list = await api("/rooms");
    expect(list.body.rooms).toEqual([expect.objectContaining({ kind: "ttt-json", roomId: "adm1", clients: 2, stats: expect.objectContaining({ ccu: 2, seats: 2 }) })]);
    const detail = await api("/rooms/ttt-json/adm1");
    expect(detail.body.seats.map((s: { name: string; identity: string | null; connected: boolean }) => [s.name, s.identity, s.connected])).toEqual([
      ["ann", "ann", true],
      ["anon", null, true],
    ]);
    expect(detail.body.stats).toMatchObject({ kind: "ttt-json", roomId: "adm1", ccu: 2 });
    expect((await api("/rooms/ttt-json/none")).status).toBe(404);
  });

  it("notice, kick, ban, lock and close reach the players, and every action is in the audit log", async () => {
    const ann = await player("adm2", "ann");
    const bob = await player("adm2", "bob");
    const anon = await player("adm2", "anon", false);
    expect(await api("/rooms/ttt-json/adm2/notice", { method: "POST", body: { text: "server restarts in 5 minutes" } })).toMatchObject({ status: 200, body: { op: "notice", affected: 3, audited: true } });
    await new Promise((r) => setTimeout(r, 100));
    expect(ann.notices).toEqual(["server restarts in 5 minutes"]);
    expect(bob.notices).toEqual(["server restarts in 5 minutes"]);
    expect(anon.notices).toEqual(["server restarts in 5 minutes"]);

    const ids = Object.fromEntries((await api("/rooms/ttt-json/adm2")).body.seats.map((s: { name: string; playerId: number }) => [s.name, s.playerId]));
    expect(await api("/rooms/ttt-json/adm2/ban", { method: "POST", body: { playerId: ids.anon, seconds: 60 } })).toMatchObject({ status: 409, body: { code: "conflict" } });
    expect(await api("/rooms/ttt-json/adm2/kick", { method: "POST", body: { playerId: ids.anon, reason: "afk" } })).toMatchObject({ status: 200, body: { op: "kick", affected: 1 } });
    expect(await anon.closed).toMatchObject({ code: CloseCode.kicked, reason: "removed by the operator: afk" });

    expect(await api("/rooms/ttt-json/adm2/ban", { method: "POST", body: { playerId: ids.bob, seconds: 60, reason: "cheating" } })).toMatchObject({ status: 200, body: { identity: "bob", affected: 1 } });
    expect((await bob.closed).code).toBe(CloseCode.banned);
    // Bob's next join is refused with the ban and its wait, and the SDK does not retry it.
    const again = connect(server.url, { kind: "ttt-json", json: jsonDialect, room: "adm2", ticket: await mintRoomTicket({ secret: SECRET, kind: "ttt-json", roomId: "adm2", playerId: "bob", ttlSeconds: 60 }) });
    open.push(again);
    await expect(again.whenJoined()).rejects.toMatchObject({ code: "banned", closeCode: CloseCode.banned, reason: "banned from this room: cheating" });

    expect(await api("/rooms/ttt-json/adm2/lock", { method: "POST", body: { locked: true } })).toMatchObject({ status: 200 });
    const late = connect(server.url, { kind: "ttt-json", json: jsonDialect, room: "adm2" });
    open.push(late);
    await expect(late.whenJoined()).rejects.toMatchObject({ closeCode: CloseCode.room_locked });

    expect(await api("/rooms/ttt-json/adm2/close", { method: "POST", body: { reason: "maintenance" } })).toMatchObject({ status: 200, body: { op: "close", affected: 1 } });
    expect(await ann.closed).toMatchObject({ code: CloseCode.room_closed, reason: "closed by the operator: maintenance" });
    expect(server.room("ttt-json", "adm2")!.seatCount).toBe(0);

    const log = (await api("/audit?limit=10")).body as { actor: string; action: string; roomId: string; result: string }[];
    expect(log.filter((e) => e.roomId === "adm2").map((e) => [e.actor, e.action, e.result]).reverse()).toEqual([
      ["token", "notice", "ok"],
      ["token", "ban", "conflict"],
      ["token", "kick", "ok"],
      ["token", "ban", "ok"],
      ["token", "lock", "ok"],
      ["token", "close", "ok"],
    ]);
  });

  it("samples each room with players once per interval, in the detail and the DEV_MODE stats", async () => {
    await player("adm3", "cy");
    await new Promise((r) => setTimeout(r, 2_300));
    const points = (await api("/rooms/ttt-json/adm3/metrics")).body as { clients: number; kind: string; roomId: string }[];
    expect(points.length).toBeGreaterThanOrEqual(1);
    expect(points.at(-1)).toMatchObject({ kind: "ttt-json", roomId: "adm3", clients: 1 });
    const stats = (await (await fetch(`${server.httpUrl}/rooms/ttt-json/adm3/stats`)).json()) as { adapter: { metrics: unknown[] } };
    expect(stats.adapter.metrics.length).toBeGreaterThanOrEqual(1);
  });
});
