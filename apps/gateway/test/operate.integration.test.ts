/**
 * Operating the gateway for real, under `wrangler dev` with the production config (a frozen
 * bundle, local D1 with its migrations): players sign in with a JWT of the game's own provider (a
 * JWKS served by node:http on 127.0.0.1 with keys made here) through the SDK, for joins and
 * matches; the admin API refuses every path without its credential, lists the rooms, shows a
 * room's players, and its actions reach the players (notice, kick, ban, lock, close), each
 * recorded in D1; Cloudflare Access assertions let an operator in by email; metric points come
 * once per interval (the Analytics Engine binding exists locally; its writes are dropped).
 */
import { connect, matchmaker, type RoomConnection } from "@tikron/client";
import { ADMIN_ACTIONS, CloseCode } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIENCE, ISSUER, JwksServer, makeKey, sign, type TestKey } from "../../../packages/core/test/auth/jwksServer";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";
import { watchOperator } from "./harness/operatorWatch";
import { sleep } from "./hardeningClient";
import { freezeWorker, runWrangler, type FrozenWorker } from "./hardeningWorker";

const SECRET = "operate-ticket-secret-0123456789";
const ADMIN_TOKEN = "operate-admin-token-0123456789abcdef";
const ACCESS_AUD = "operate-access-aud";
const jwks = new JwksServer();
let key: TestKey;
let accessKey: TestKey;
let worker: FrozenWorker;
let server: WranglerDevServer;
const open: RoomConnection<any>[] = [];

beforeAll(async () => {
  key = await makeKey("game-1", "RS256");
  accessKey = await makeKey("access-1", "RS256");
  await jwks.start();
  // One local server plays both the game's provider and the Access team (it answers any path).
  jwks.publish(key, accessKey);
  worker = await freezeWorker("wrangler.jsonc");
  server = await startWranglerDev({
    config: worker.configPath,
    vars: {
      TICKET_SECRET: SECRET,
      AUTH_JWKS_URL: jwks.url,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      ADMIN_TOKEN,
      ADMIN_ACCESS_TEAM_DOMAIN: jwks.url.replace("/.well-known/jwks.json", ""),
      ADMIN_ACCESS_AUD: ACCESS_AUD,
      METRICS_INTERVAL_SECONDS: "1",
    },
  });
  const applied = await runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", `${server.persistDir}/state`, "--config", worker.configPath]);
  if (applied.code !== 0) throw new Error(`migrations failed:\n${applied.output}`);
});

afterAll(async () => {
  for (const c of open) c.close();
  await server?.stop();
  worker?.remove();
  await jwks.stop();
});

const token = (sub: string, claims: Record<string, unknown> = {}) => sign(key, Date.now(), { sub, ...claims });
const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function api(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${server.url}/admin/api${path}`, { method: init.method ?? "GET", headers: init.headers ?? adminHeaders, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") || text.startsWith("[") ? (JSON.parse(text) as any) : text };
}

/** A player joined through the SDK with a sign-in token; its notices and its last close. */
async function player(room: string, sub: string) {
  const conn = connect(server.wsUrl, { kind: "agar", room, name: sub, authToken: () => token(sub), reconnect: false });
  open.push(conn);
  await conn.whenJoined();
  return { conn, ...watchOperator(conn) };
}

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const r = await runWrangler(["d1", "execute", "DB", "--local", "--persist-to", `${server.persistDir}/state`, "--config", worker.configPath, "--json", "--command", sql]);
  if (r.code !== 0) throw new Error(`d1 execute failed:\n${r.output}`);
  return (JSON.parse(r.output.slice(r.output.indexOf("["))) as { results: Record<string, unknown>[] }[])[0]!.results;
}

describe("sign in with the game's provider", () => {
  it("a player joins with its JWT through the SDK and its seat is bound to the token's identity; a bad token is refused", async () => {
    await player("op1", "bob");
    const detail = await api("/rooms/agar/op1");
    expect(detail.body.seats.map((s: { identity: string }) => s.identity)).toEqual(["jwt:bob"]);
    const expired = connect(server.wsUrl, { kind: "agar", room: "op1", authToken: await token("eve", { exp: Math.floor(Date.now() / 1000) - 600 }) });
    open.push(expired);
    await expect(expired.whenJoined()).rejects.toMatchObject({ code: "unauthorized", closeCode: CloseCode.unauthorized, reason: "sign-in token has expired" });
  });

  it("the matchmaker takes the same JWT and the room holds the seat for its identity", async () => {
    // A room made by a direct join reaches the matchmaker's directory with its first report, a
    // moment after the join (reports are coalesced): wait for it (≤ 5 s) so dora is matched into it.
    for (let i = 0; i < 20 && !(await api("/rooms")).body.rooms.some((r: { roomId: string }) => r.roomId === "op1"); i++) await sleep(250);
    const conn = await matchmaker(server.url, { authToken: () => token("dora") }).joinOrCreate("agar", { name: "dora" });
    open.push(conn);
    const detail = await api(`/rooms/agar/${conn.room}`);
    expect(detail.body.seats.map((s: { identity: string }) => s.identity)).toContain("jwt:dora");
    await expect(matchmaker(server.url, { authToken: await token("x", { aud: "elsewhere" }) }).joinOrCreate("agar")).rejects.toMatchObject({ code: "unauthorized" });
  });
});

describe("the admin API", () => {
  it("answers nothing without the credential, route by route", async () => {
    const seats = async () => (await api("/rooms/agar/op1")).body.seats.map((s: { playerId: number; identity: string; connected: boolean }) => [s.playerId, s.identity, s.connected]);
    const before = await seats();
    const paths: Array<[string, string]> = [["GET", "/rooms"], ["GET", "/audit"], ["GET", "/rooms/agar/op1"], ["GET", "/rooms/agar/op1/metrics"], ...ADMIN_ACTIONS.map((op): [string, string] => ["POST", `/rooms/agar/op1/${op}`]), ["GET", "/nowhere"]];
    for (const [method, path] of paths) {
      expect((await api(path, { method, headers: {}, ...(method === "POST" ? { body: { playerId: 1, text: "x", locked: true, identity: "jwt:bob", seconds: 60 } } : {}) })).status, `${method} ${path}`).toBe(401);
      expect((await api(path, { method, headers: { authorization: "Bearer wrong-token-0123456789abcdef" } })).status, `${method} ${path}`).toBe(401);
    }
    // Nothing happened to the room meanwhile (no kick, no close, no lock).
    expect(await seats()).toEqual(before);
    expect((await api("/rooms/agar/op1")).body.listing.locked).toBe(false);
    expect(await query("SELECT COUNT(*) AS n FROM admin_actions")).toEqual([{ n: 0 }]);
  });

  it("lists the rooms the matchmakers know, each with its own stats", async () => {
    let rooms: { kind: string; roomId: string; stats: { ccu: number } | null }[] = [];
    for (let i = 0; i < 20 && !rooms.some((r) => r.roomId === "op1"); i++) {
      rooms = (await api("/rooms")).body.rooms;
      await sleep(250);
    }
    // bob, and dora whom the matchmaker put in the fullest open room.
    expect(rooms.find((r) => r.roomId === "op1")).toMatchObject({ kind: "agar", clients: 2, stats: { ccu: 2, seats: 2 } });
  });

  it("notice, kick, ban, lock and close reach the players, and every action is recorded in D1", async () => {
    const ann = await player("op2", "ann");
    const cy = await player("op2", "cy");
    const dee = await player("op2", "dee");
    expect(await api("/rooms/agar/op2/notice", { method: "POST", body: { text: "restart in 5 minutes" } })).toMatchObject({ status: 200, body: { affected: 3, audited: true } });
    await sleep(300);
    for (const p of [ann, cy, dee]) expect(p.notices).toEqual(["restart in 5 minutes"]);

    const ids = Object.fromEntries((await api("/rooms/agar/op2")).body.seats.map((s: { identity: string; playerId: number }) => [s.identity, s.playerId]));
    expect(await api("/rooms/agar/op2/kick", { method: "POST", body: { playerId: ids["jwt:dee"], reason: "afk" } })).toMatchObject({ status: 200, body: { affected: 1 } });
    expect(await dee.closed).toMatchObject({ code: CloseCode.kicked, reason: "removed by the operator: afk" });

    expect(await api("/rooms/agar/op2/ban", { method: "POST", body: { playerId: ids["jwt:cy"], seconds: 120, reason: "cheating" } })).toMatchObject({ status: 200, body: { identity: "jwt:cy" } });
    expect((await cy.closed).code).toBe(CloseCode.banned);
    const back = connect(server.wsUrl, { kind: "agar", room: "op2", authToken: await token("cy") });
    open.push(back);
    const refused = await back.whenJoined().catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "banned", closeCode: CloseCode.banned, reason: "banned from this room: cheating" });
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(100_000);

    expect((await api("/rooms/agar/op2/lock", { method: "POST", body: { locked: true } })).status).toBe(200);
    const late = connect(server.wsUrl, { kind: "agar", room: "op2", authToken: await token("fay") });
    open.push(late);
    await expect(late.whenJoined()).rejects.toMatchObject({ closeCode: CloseCode.room_locked });

    expect(await api("/rooms/agar/op2/close", { method: "POST", body: { reason: "maintenance" } })).toMatchObject({ status: 200, body: { affected: 1 } });
    expect(await ann.closed).toMatchObject({ code: CloseCode.room_closed, reason: "closed by the operator: maintenance" });
    expect((await api("/rooms/agar/op2")).body.seats).toEqual([]);

    const rows = await query("SELECT actor, action, room_id, result, detail_json FROM admin_actions WHERE room_id = 'op2' ORDER BY id");
    expect(rows.map((r) => [r.actor, r.action, r.result])).toEqual([
      ["token", "notice", "ok"],
      ["token", "kick", "ok"],
      ["token", "ban", "ok"],
      ["token", "lock", "ok"],
      ["token", "close", "ok"],
    ]);
    expect(JSON.parse(rows[2]!.detail_json as string)).toEqual({ op: "ban", playerId: ids["jwt:cy"], seconds: 120, reason: "cheating" });
    const log = (await api("/audit?limit=5")).body as { action: string; roomId: string }[];
    expect(log.map((e) => e.action)).toEqual(["close", "lock", "ban", "kick", "notice"]);
  });

  it("lets in an operator Cloudflare Access signed in, recorded by email", async () => {
    const team = jwks.url.replace("/.well-known/jwks.json", "");
    const assertion = await sign(accessKey, Date.now(), { iss: team, aud: [ACCESS_AUD], email: "ops@studio.example" });
    const headers = { "cf-access-jwt-assertion": assertion };
    expect((await api("/rooms", { headers })).status).toBe(200);
    await player("op3", "gus");
    expect(await api("/rooms/agar/op3/notice", { method: "POST", headers, body: { text: "hi" } })).toMatchObject({ status: 200, body: { audited: true } });
    expect(await query("SELECT actor FROM admin_actions WHERE room_id = 'op3'")).toEqual([{ actor: "access:ops@studio.example" }]);
    const foreign = await sign(accessKey, Date.now(), { iss: team, aud: ["another-app"], email: "ops@studio.example" });
    expect((await api("/rooms", { headers: { "cf-access-jwt-assertion": foreign } })).status).toBe(401);
  });

  it("serves each room's metric points, one per interval while it has players", async () => {
    await player("op4", "hal");
    let points: { clients: number; frames: number; intervalMs: number }[] = [];
    for (let i = 0; i < 30 && points.length < 2; i++) {
      await sleep(250);
      points = (await api("/rooms/agar/op4/metrics")).body;
    }
    expect(points.length).toBeGreaterThanOrEqual(2);
    expect(points.at(-1)).toMatchObject({ clients: 1 });
    expect(points.at(-1)!.frames).toBeGreaterThan(0);
    expect(points.at(-1)!.intervalMs).toBeGreaterThanOrEqual(900);
    expect(server.output()).not.toMatch(/metrics write failed/);
  });
});
