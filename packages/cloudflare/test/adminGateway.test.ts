/**
 * The admin API's routing on the gateway: every path under /admin/api refuses without the admin
 * credential before touching anything (route by route), then lists rooms from the matchmakers'
 * directories, forwards a room's requests to its object, and records every action.
 */
import type { GameDefinition } from "@tikron/core";
import type { RoomStatus } from "@tikron/core/match";
import { ADMIN_ACTIONS } from "@tikron/protocol";
import { describe, expect, it, vi } from "vitest";
import { routeGatewayRequest, type GatewayEnv } from "../src/gateway";
import type { RoomAdminRpcRequest } from "@tikron/core/admin";

const TOKEN = "gateway-admin-token-0123456789abcdef";
const BASE = "https://play.example.com";
const games = {
  agar: { kind: "agar", defaults: {}, create: () => null as never },
  "ttt-json": { kind: "ttt-json", defaults: {}, create: () => null as never, matchmaking: { shards: 2 } },
} satisfies Record<string, GameDefinition>;

const status = (roomId: string, createdAt: number): RoomStatus => ({ roomId, clients: 2, bots: 0, reserved: 0, maxClients: 8, metadata: {}, locked: false, private: false, createdAt, version: [createdAt, 1], overrides: "", refreshMs: 0 });

/** D1 in memory: what the audit log writes and reads. */
function fakeDb() {
  const rows: Record<string, unknown>[] = [];
  return {
    rows,
    prepare: (sql: string) => ({
      bind: (...v: unknown[]) => ({
        run: async () => {
          if (!sql.startsWith("INSERT")) throw new Error("unexpected write");
          rows.push({ id: rows.length + 1, at: v[0], actor: v[1], action: v[2], kind: v[3], room_id: v[4], detail_json: v[5], result: v[6] });
        },
        all: async () => ({ results: [...rows].reverse().slice(0, v[0] as number) }),
      }),
    }),
  };
}

/** An env whose room objects, matchmakers and D1 record every touch. */
function env(vars: Record<string, unknown> = { ADMIN_TOKEN: TOKEN }) {
  const touched: string[] = [];
  const roomCalls: { name: string; req: RoomAdminRpcRequest }[] = [];
  const ROOMS = {
    idFromName: (name: string) => ({ name }),
    get: (id: { name: string }) => ({
      fetch: async () => (touched.push(`room ${id.name}`), new Response("")),
      admin: async (_kind: string, _roomId: string, req: RoomAdminRpcRequest) => {
        touched.push(`room ${id.name}`);
        roomCalls.push({ name: id.name, req });
        if (req.op === "summary") return id.name.endsWith("gone") ? null : { ccu: 1, seats: 2, uptimeMs: 5, frames: 9, bytesOut: 99, errors: 0, closes: 1, flushP99Ms: 0.5 };
        if (req.op === "kick" && req.playerId === 9) return { ok: false, error: { code: "not_found", reason: "no seat with player id 9" } };
        if (req.op === "room") return { ok: true, body: { kind: "agar", roomId: "r1", seats: [] } };
        return { ok: true, body: { op: req.op, affected: 1 } };
      },
    }),
  };
  const MATCHMAKER = {
    idFromName: (name: string) => ({ name }),
    get: (id: { name: string }) => ({
      stats: async (kind: string, shard: number) => {
        touched.push(`matchmaker ${id.name}`);
        if (kind === "agar") return { directory: [status("old", 1), status("new", 3)] };
        return { directory: shard === 1 ? [status(`t${shard}`, 2), status("gone", 0)] : [] };
      },
    }),
  };
  const DB = fakeDb();
  const e = { ROOMS, MATCHMAKER, DB, DEV_MODE: "false", ...vars } as unknown as GatewayEnv;
  return { env: e, touched, roomCalls, db: DB };
}

async function call(path: string, e: ReturnType<typeof env>, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const res = await routeGatewayRequest(new Request(BASE + path, init), e.env, games);
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") || text.startsWith("[") ? (JSON.parse(text) as any) : text, headers: res.headers };
}

const bearer = { authorization: `Bearer ${TOKEN}` };

/** Every admin route, and paths under /admin/api that lead nowhere. */
const ROUTES: Array<[string, string]> = [
  ["GET", "/admin/api/rooms"],
  ["GET", "/admin/api/audit"],
  ["GET", "/admin/api/refusals"],
  ["GET", "/admin/api/rooms/agar/r1"],
  ["GET", "/admin/api/rooms/agar/r1/metrics"],
  ...ADMIN_ACTIONS.map((op): [string, string] => ["POST", `/admin/api/rooms/agar/r1/${op}`]),
  ["GET", "/admin/api"],
  ["GET", "/admin/api/"],
  ["DELETE", "/admin/api/rooms"],
  ["GET", "/admin/api/rooms/agar/r1/kick"],
  ["POST", "/admin/api/nothing/here"],
  ["OPTIONS", "/admin/api/rooms"],
];

describe("admin API: no credential, no answer", () => {
  it("refuses every route without a credential (401) and with a wrong one alike (401), touching no room, matchmaker or log", async () => {
    const e = env();
    for (const [method, path] of ROUTES) {
      const none = await call(path, e, { method, ...(method === "POST" ? { body: '{"playerId":1}' } : {}) });
      expect(none, `${method} ${path}`).toMatchObject({ status: 401, body: { code: "unauthorized" } });
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const wrong = await call(path, e, { method, headers: { authorization: `Bearer ${TOKEN}-not` } });
      expect(wrong, `${method} ${path}`).toMatchObject({ status: 401, body: { code: "unauthorized" } });
      const access = await call(path, e, { method, headers: { "cf-access-jwt-assertion": "a.b.c" } });
      expect(access.status, `${method} ${path}`).toBe(401);
    }
    expect(e.touched).toEqual([]);
    expect(e.db.rows).toEqual([]);
  });

  it("answers 503 on a gateway with no admin credential configured, and on one misconfigured", async () => {
    for (const vars of [{}, { ADMIN_TOKEN: "too-short" }]) {
      const e = env(vars);
      const errors = vi.spyOn(console, "error").mockImplementation(() => {});
      for (const [method, path] of ROUTES) expect((await call(path, e, { method, headers: bearer })).status, `${method} ${path}`).toBe(503);
      errors.mockRestore();
      expect(e.touched).toEqual([]);
    }
  });

  it("never answers another origin's page (no CORS headers)", async () => {
    const e = env();
    const r = await call("/admin/api/rooms", e, { headers: { ...bearer, origin: "https://evil.example" } });
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("admin API with the credential", () => {
  it("lists every room the matchmakers know, newest first, with each room's own summary", async () => {
    const e = env();
    const r = await call("/admin/api/rooms", e, { headers: bearer });
    expect(r.status).toBe(200);
    expect(r.body.unavailable).toEqual([]);
    expect(r.body.rooms.map((x: { kind: string; roomId: string }) => `${x.kind}/${x.roomId}`)).toEqual(["agar/new", "ttt-json/t1", "agar/old", "ttt-json/gone"]);
    expect(r.body.rooms[0]).toMatchObject({ clients: 2, maxClients: 8, createdAt: 3, stats: { ccu: 1, frames: 9, flushP99Ms: 0.5 } });
    expect(r.body.rooms[3].stats).toBeNull();
    // Both shards of the sharded kind were asked.
    expect(e.touched.filter((t) => t.startsWith("matchmaker")).length).toBe(3);
  });

  it("says which kinds it could not list when there is no matchmaker", async () => {
    const e = env();
    (e.env as { MATCHMAKER?: unknown }).MATCHMAKER = undefined;
    expect((await call("/admin/api/rooms", e, { headers: bearer })).body).toEqual({ rooms: [], unavailable: ["agar", "ttt-json"] });
  });

  it("forwards a room's detail and metrics to its object, and refuses unknown kinds and wrong methods", async () => {
    const e = env();
    expect(await call("/admin/api/rooms/agar/r1", e, { headers: bearer })).toMatchObject({ status: 200, body: { kind: "agar", roomId: "r1" } });
    await call("/admin/api/rooms/agar/r1/metrics", e, { headers: bearer });
    expect(e.roomCalls.map((c) => [c.name, c.req.op])).toEqual([
      ["agar:r1", "room"],
      ["agar:r1", "metrics"],
    ]);
    expect(await call("/admin/api/rooms/chess/r1", e, { headers: bearer })).toMatchObject({ status: 404, body: { code: "not_found" } });
    const wrong = await call("/admin/api/rooms/agar/r1/kick", e, { headers: bearer });
    expect(wrong).toMatchObject({ status: 405 });
    expect(wrong.headers.get("allow")).toBe("POST");
  });

  it("runs actions in the room, records each with who, what and how it ended, and reads the log back", async () => {
    const e = env();
    const kick = await call("/admin/api/rooms/agar/r1/kick", e, { method: "POST", headers: bearer, body: JSON.stringify({ playerId: 3, reason: "afk" }) });
    expect(kick).toMatchObject({ status: 200, body: { op: "kick", affected: 1, audited: true } });
    expect(await call("/admin/api/rooms/agar/r1/kick", e, { method: "POST", headers: bearer, body: '{"playerId":9}' })).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await call("/admin/api/rooms/agar/r1/ban", e, { method: "POST", headers: bearer, body: "{nope" })).toMatchObject({ status: 400, body: { code: "bad_request" } });
    expect(await call("/admin/api/rooms/agar/r1/notice", e, { method: "POST", headers: bearer, body: JSON.stringify({ text: "x".repeat(501) }) })).toMatchObject({ status: 400 });
    // Bad bodies never reach the room.
    expect(e.roomCalls.map((c) => c.req)).toEqual([
      { op: "kick", playerId: 3, reason: "afk" },
      { op: "kick", playerId: 9, reason: "" },
    ]);
    expect(e.db.rows.map((r) => [r.actor, r.action, r.kind, r.room_id, r.result])).toEqual([
      ["token", "kick", "agar", "r1", "ok"],
      ["token", "kick", "agar", "r1", "not_found"],
      ["token", "ban", "agar", "r1", "bad_request"],
      ["token", "notice", "agar", "r1", "bad_request"],
    ]);
    expect(JSON.parse(e.db.rows[0]!.detail_json as string)).toEqual({ op: "kick", playerId: 3, reason: "afk" });
    const log = await call("/admin/api/audit?limit=2", e, { headers: bearer });
    expect(log.body.map((x: { id: number; action: string; roomId: string }) => [x.id, x.action, x.roomId])).toEqual([
      [4, "notice", "r1"],
      [3, "ban", "r1"],
    ]);
  });

  it("still acts without a log, and says it was not audited", async () => {
    const e = env();
    (e.env as { DB?: unknown }).DB = undefined;
    expect(await call("/admin/api/rooms/agar/r1/lock", e, { method: "POST", headers: bearer, body: '{"locked":true}' })).toMatchObject({ status: 200, body: { op: "lock", audited: false } });
    expect(await call("/admin/api/audit", e, { headers: bearer })).toMatchObject({ status: 503 });
  });
});
