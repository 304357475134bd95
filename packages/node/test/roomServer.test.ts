/**
 * The Node host's own behaviour: the gateway's refusals (close codes after the upgrade, HTTP
 * statuses without one), DEV_MODE stats over
 * HTTP, the pending-socket limit, and a shutdown that closes every socket and leaves nothing
 * listening. The room protocol itself is tested in roomProtocol.test.ts.
 */
import type { AnyGameTypes } from "@tikron/protocol";
import { request } from "node:http";
import type { DisposeInfo, Game, GameContext, GameDefinition } from "@tikron/core";
import { gameDefinitions } from "@tikron/games";
import { CloseCode, refusalCloseReason } from "@tikron/protocol";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { serveRooms, type RoomServer } from "../src";
import { RawClient } from "../../../test/roomProtocol/rawClient";

const servers: RoomServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(devMode = true): Promise<RoomServer> {
  const s = await serveRooms({ games: gameDefinitions, devMode });
  servers.push(s);
  return s;
}

/** How an upgrade was answered: left open, closed at once (a refusal's code and reason), or an HTTP status. */
type UpgradeAnswer = { open: true } | { close: number; reason: string } | { status: number };

/**
 * How a WebSocket upgrade to `url` is answered. A socket still open `settleMs` after the upgrade
 * counts as admitted (a refusal closes it at once; the room's hello timeout is 3 s).
 */
function upgradeAnswer(url: string, settleMs = 300): Promise<UpgradeAnswer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once("open", () => {
      const timer = setTimeout(() => {
        resolve({ open: true });
        ws.terminate();
      }, settleMs);
      ws.once("close", (code, reason) => {
        clearTimeout(timer);
        resolve({ close: code, reason: reason.toString() });
      });
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.once("error", (e) => reject(e));
  });
}

const OPEN = { open: true };

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

describe("serveRooms", () => {
  it("listens on loopback and answers /health with its kinds", async () => {
    const s = await start();
    expect(s.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(await getJson(`${s.httpUrl}/health`)).toEqual({ status: 200, body: { ok: true, devMode: true, kinds: Object.keys(gameDefinitions) } });
  });

  it("refuses bad joins with the gateway's close codes right after the upgrade (HTTP statuses without one), and creates no room for them", async () => {
    const s = await start();
    expect(await upgradeAnswer(`${s.url}/rooms/chess/r1`)).toEqual({ close: CloseCode.not_found, reason: 'unknown room kind "chess"' });
    expect(await upgradeAnswer(`${s.url}/rooms/constructor/r1`)).toMatchObject({ close: CloseCode.not_found });
    expect(await upgradeAnswer(`${s.url}/rooms/agar/bad.id`)).toEqual({ close: CloseCode.bad_request, reason: "room id must be 1-64 characters of A-Z a-z 0-9 _ -" });
    expect(await upgradeAnswer(`${s.url}/rooms/agar/%E0%A4%A`)).toMatchObject({ close: CloseCode.bad_request });
    expect(await upgradeAnswer(`${s.url}/rooms/agar/r1?tickMs=1`)).toMatchObject({ close: CloseCode.bad_request, reason: "tickMs=1 is outside 5..1000" });
    expect(await upgradeAnswer(`${s.url}/rooms/agar/r1/stats`)).toMatchObject({ close: CloseCode.bad_request });
    expect(await upgradeAnswer(`${s.url}/nowhere`)).toMatchObject({ close: CloseCode.not_found });
    // Without an upgrade (curl, health checks) the same refusals keep their HTTP statuses.
    expect((await getJson(`${s.httpUrl}/rooms/chess/r1`)).status).toBe(404);
    expect((await getJson(`${s.httpUrl}/rooms/agar/bad.id`)).status).toBe(400);
    expect((await getJson(`${s.httpUrl}/rooms/agar/r1`)).status).toBe(426);
    expect(s.rooms()).toEqual([]);
    expect(await upgradeAnswer(`${s.url}/rooms/agar/r1?tickMs=25`)).toEqual(OPEN);
    expect(s.room("agar", "r1")!.options.tickMs).toBe(25);
  });

  it("outside DEV_MODE refuses overrides (forbidden) and HTTP stats with 403, like production", async () => {
    const s = await start(false);
    expect(await upgradeAnswer(`${s.url}/rooms/agar/r1?cap=3`)).toMatchObject({ close: CloseCode.forbidden });
    expect((await getJson(`${s.httpUrl}/rooms/agar/r1?cap=3`)).status).toBe(403);
    expect((await getJson(`${s.httpUrl}/rooms/agar/r1/stats`)).status).toBe(403);
    expect((await fetch(`${s.httpUrl}/rooms/agar/r1/abort`, { method: "POST" })).status).toBe(403);
    expect(await upgradeAnswer(`${s.url}/rooms/agar/r1`)).toEqual(OPEN);
  });

  it("answers the abort drill (a Durable Objects one) with 404 in DEV_MODE: no room here dies alone", async () => {
    const s = await start();
    const res = await fetch(`${s.httpUrl}/rooms/agar/r1/abort`, { method: "POST" });
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/Durable Objects drill/);
    expect(await upgradeAnswer(`${s.url}/rooms/agar/r1/abort`)).toMatchObject({ close: CloseCode.bad_request });
  });

  it("seats bots with POST /rooms/:kind/:id/bots in DEV_MODE (403 outside it, 405 for GET, 400 for a bad count)", async () => {
    const s = await start();
    const post = (path: string) => fetch(`${s.httpUrl}${path}`, { method: "POST" });
    const res = await post("/rooms/movement/b1/bots?count=3");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ bots: 3, ccu: 3 });
    expect((await getJson(`${s.httpUrl}/rooms/movement/b1/stats`)).body.bots).toMatchObject({ count: 3 });
    expect((await post("/rooms/movement/b1/bots?count=0")).status).toBe(200);
    expect((await getJson(`${s.httpUrl}/rooms/movement/b1/stats`)).body.bots).toMatchObject({ count: 0 });
    expect((await post("/rooms/movement/b1/bots?count=-1")).status).toBe(400);
    expect((await getJson(`${s.httpUrl}/rooms/movement/b1/bots?count=1`)).status).toBe(405);
    const prod = await start(false);
    expect((await fetch(`${prod.httpUrl}/rooms/movement/b1/bots?count=1`, { method: "POST" })).status).toBe(403);
  });

  it("serves DEV_MODE stats over HTTP: idle before the first join, the room's tk:stats after", async () => {
    const s = await start();
    expect(await getJson(`${s.httpUrl}/rooms/agar/st/stats`)).toMatchObject({ status: 200, body: { kind: "agar", roomId: "st", ccu: 0, idle: true } });
    const c = new RawClient(`${s.url}/rooms/agar/st`);
    expect(await c.join("a")).not.toBeNull();
    const { body } = await getJson(`${s.httpUrl}/rooms/agar/st/stats`);
    expect(body).toMatchObject({ kind: "agar", roomId: "st", ccu: 1, joins: 1, adapter: { sockets: 1 } });
    // The room's own time: its hello and its ticks (every room of the process shares its thread).
    expect(body.busy.ms).toBeGreaterThan(0);
    expect(body.busy.windowMs).toBe(10_000);
    c.close();
  });

  it("closes upgrades with join_throttled and a wait once maxPendingSockets sockets have not said hello", async () => {
    // A kind whose rooms let two sockets wait for their hello (the default is 256).
    const agar = gameDefinitions.agar!;
    const s = await serveRooms({ games: { agar: { ...agar, defaults: { ...agar.defaults, maxPendingSockets: 2 } } } });
    servers.push(s);
    const waiting = [new WebSocket(`${s.url}/rooms/agar/pend`), new WebSocket(`${s.url}/rooms/agar/pend`)];
    await Promise.all(waiting.map((ws) => new Promise((r) => ws.once("open", r))));
    expect(await upgradeAnswer(`${s.url}/rooms/agar/pend`)).toEqual({ close: CloseCode.join_throttled, reason: refusalCloseReason("too many sockets waiting to join this room", 1000) });
    expect(s.room("agar", "pend")!.snapshot().refused).toEqual({ socket_backlog: 1 });
    const seated = new RawClient(`${s.url}/rooms/agar/pend`);
    expect(await seated.done).toMatchObject({ code: CloseCode.join_throttled });
    // Refused sockets are never the room's: only the two waiting ones are.
    expect((await getJson(`${s.httpUrl}/rooms/agar/pend/stats`)).body.adapter).toEqual({ sockets: 2, metrics: [] });
    // A seated socket no longer counts as pending: one hello makes room for one more socket.
    waiting[0]!.terminate();
    await new Promise((r) => waiting[0]!.once("close", r));
    const next = new RawClient(`${s.url}/rooms/agar/pend`);
    expect(await next.join("n")).not.toBeNull();
    expect(await upgradeAnswer(`${s.url}/rooms/agar/pend`)).toEqual(OPEN);
    waiting[1]!.terminate();
    next.close();
  });

  it("close() closes every socket with 4008 room_closed, stops listening, and is idempotent", async () => {
    const s = await serveRooms({ games: gameDefinitions });
    const a = new RawClient(`${s.url}/rooms/agar/shut`);
    const b = new RawClient(`${s.url}/rooms/movement/shut`);
    expect(await a.join("a")).not.toBeNull();
    expect(await b.join("b")).not.toBeNull();
    expect(s.socketCount).toBe(2);
    await Promise.all([s.close(), s.close()]);
    expect((await a.done).code).toBe(CloseCode.room_closed);
    expect((await b.done).code).toBe(CloseCode.room_closed);
    expect(s.socketCount).toBe(0);
    const refused = await new Promise<string>((resolve) => {
      const req = request(`${s.httpUrl}/health`, () => resolve("answered"));
      req.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
      req.end();
    });
    expect(refused).toBe("ECONNREFUSED");
  });

  it("hands every game its env; close() disposes each room and waits for the work its game deferred", async () => {
    const env = { results: [] as string[] };
    const heard: DisposeInfo[] = [];
    // ttt-json's rules with a result flushed (slowly) when the room goes.
    const base = gameDefinitions["ttt-json"]!;
    const flushing: GameDefinition<typeof env> = {
      ...base,
      create: (options, params, seed) => {
        const game = base.create(options, params, seed) as Game<unknown, typeof env>;
        let ctx!: GameContext<AnyGameTypes, typeof env>;
        const init = game.init?.bind(game);
        game.init = (c) => {
          ctx = c;
          init?.(c);
        };
        game.onDispose = (info) => {
          heard.push(info);
          ctx.defer(new Promise<void>((r) => setTimeout(() => r(void ctx.env.results.push(`flushed ${info.reason}`)), 150)), "flush");
        };
        return game;
      },
    };
    const s = await serveRooms({ games: { "ttt-json": flushing }, env });
    const ws = new WebSocket(`${s.url}/rooms/ttt-json/kept`);
    const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
    const welcomed = new Promise<void>((r) => ws.once("message", () => r()));
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ t: "hello", v: 1, token: "", name: "ann" }));
    await welcomed;
    expect(s.room("ttt-json", "kept")?.seatCount).toBe(1);
    const t0 = Date.now();
    await s.close();
    expect(await closed).toBe(CloseCode.room_closed);
    expect(Date.now() - t0).toBeLessThan(1500); // it waited for the work, not for its grace to run out
    expect(heard).toEqual([{ reason: "shutdown" }]);
    expect(env.results).toEqual(["flushed shutdown"]);
  });
});
