import type { GameDefinition } from "@tikron/core";
import { ANY_ROOM, DEV_MODE_SECRET, mintRoomTicket } from "@tikron/core/ticket";
import { CloseCode } from "@tikron/protocol";
import { describe, expect, it, vi } from "vitest";
import { routeGatewayRequest, type GatewayEnv } from "../src/gateway";
import { readRoomMeta, ROOM_META_HEADER } from "../src/roomRequest";

// Node has no WebSocketPair and no 101 responses: a refused upgrade shows up here as the close it would get.
vi.mock("../src/upgradeRefusal", () => ({
  closedUpgrade: (code: number, reason: string) => new Response(reason, { status: 200, headers: { "x-test-closed-with": String(code) } }),
}));

const SECRET = "match-gateway-secret-0123456789";
const BASE = "https://play.example.com";
const games = { agar: { kind: "agar", defaults: {}, create: () => null as never } } satisfies Record<string, GameDefinition>;

/** A Worker env whose matchmaker stub records every call and answers a seat. */
function env(vars: Partial<GatewayEnv> = {}) {
  const calls: { name: string; method: string; args: unknown[] }[] = [];
  const rooms: { name: string; request: Request }[] = [];
  const stub = (name: string) =>
    new Proxy(
      {},
      {
        get: (_t, method: string) => async (...args: unknown[]) => {
          calls.push({ name, method, args });
          if (method === "rooms") return [];
          return { roomId: "room-one", token: "tok", expiresAt: 1, created: true };
        },
      },
    );
  const MATCHMAKER = { idFromName: (name: string) => ({ name }), get: (id: { name: string }) => stub(id.name) };
  const ROOMS = {
    idFromName: (name: string) => ({ name }),
    get: (id: { name: string }) => ({
      fetch: async (request: Request) => {
        rooms.push({ name: id.name, request });
        return new Response("routed", { status: 200 });
      },
    }),
  };
  return { env: { ROOMS, MATCHMAKER, DEV_MODE: "false", TICKET_SECRET: SECRET, ...vars } as unknown as GatewayEnv, calls, rooms };
}

async function call(path: string, e: ReturnType<typeof env>, init: RequestInit = {}) {
  const res = await routeGatewayRequest(new Request(BASE + path, { method: "POST", ...init }), e.env, games);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null, headers: res.headers };
}

const matchTicket = (playerId = "alice", roomId = ANY_ROOM) => mintRoomTicket({ secret: SECRET, kind: "agar", roomId, playerId, ttlSeconds: 60 });

describe("gateway: /match outside DEV_MODE", () => {
  it("answers 401 unauthorized without a ticket and for a ticket of one room or a forged one (as a join would), never reaching the matchmaker", async () => {
    const e = env();
    expect(await call("/match/agar", e, { body: "{}" })).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    const roomTicket = await matchTicket("alice", "r1");
    expect(await call("/match/agar", e, { body: "{}", headers: { authorization: `Bearer ${roomTicket}` } })).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    // Not shaped like a ticket, and this gateway takes no sign-in tokens: no credential it accepts.
    expect(await call("/match/agar", e, { body: "{}", headers: { authorization: "Bearer nonsense" } })).toMatchObject({ status: 401 });
    expect(await call("/match/agar", e, { body: "{}", headers: { authorization: "Bearer non.sense" } })).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    const expired = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: ANY_ROOM, playerId: "alice", ttlSeconds: 1, nowMs: Date.now() - 60_000 });
    expect(await call("/match/agar", e, { body: "{}", headers: { authorization: `Bearer ${expired}` } })).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    expect(e.calls).toEqual([]);
  });

  it("takes a match ticket: the player's identity goes to the matchmaker, and the answer is the join URL", async () => {
    const e = env();
    const t = await matchTicket("alice");
    const r = await call("/match/agar", e, { body: JSON.stringify({ mode: "joinOrCreate" }), headers: { authorization: `Bearer ${t}` } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ kind: "agar", roomId: "room-one", reservation: "tok", url: "wss://play.example.com/rooms/agar/room-one?reservation=tok" });
    expect(e.calls).toHaveLength(1);
    expect(e.calls[0]!.method).toBe("match");
    expect(e.calls[0]!.name).toBe("agar");
    expect(e.calls[0]!.args[3]).toMatchObject({ identity: "alice", verified: true, rateKey: "alice" });
    // A ticket for the room itself also lets its player join that room by id.
    const own = await matchTicket("bob", "r7");
    expect((await call("/match/agar/r7", e, { body: "{}", headers: { authorization: `Bearer ${own}` } })).status).toBe(200);
    expect((await call("/match/agar/r8", e, { body: "{}", headers: { authorization: `Bearer ${own}` } })).status).toBe(401);
  });

  it("refuses DEV_MODE overrides, bad bodies and unknown kinds with codes; only GET lists rooms", async () => {
    const e = env();
    const auth = { authorization: `Bearer ${await matchTicket()}` };
    expect(await call("/match/agar?cap=4", e, { body: "{}", headers: auth })).toMatchObject({ status: 403, body: { code: "forbidden" } });
    expect(await call("/match/agar", e, { body: "{not json", headers: auth })).toMatchObject({ status: 400, body: { code: "bad_request" } });
    expect(await call("/match/agar", e, { body: JSON.stringify({ mode: "x" }), headers: auth })).toMatchObject({ status: 400 });
    expect(await call("/match/agar", e, { body: "x".repeat(5000), headers: auth })).toMatchObject({ status: 413, body: { code: "too_large" } });
    expect(await call("/match/chess", e, { body: "{}", headers: auth })).toMatchObject({ status: 404, body: { code: "unknown_kind" } });
    expect((await call("/match/agar/rooms", e)).status).toBe(405);
    expect((await call("/match/agar/rooms", e, { method: "GET" })).status).toBe(200);
    expect(await call("/match/agar/stats", e, { method: "GET" })).toMatchObject({ status: 403 });
    expect(await call("/match/agar/restart", e)).toMatchObject({ status: 403 });
    expect(e.calls.map((c) => c.method)).toEqual(["rooms"]);
  });

  it("answers a cross-origin preflight for allowed origins only, and names the origin on answers", async () => {
    const e = env({ ALLOWED_ORIGINS: "https://game.example.org" });
    const pre = await routeGatewayRequest(new Request(`${BASE}/match/agar`, { method: "OPTIONS", headers: { origin: "https://game.example.org" } }), e.env, games);
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://game.example.org");
    expect(pre.headers.get("access-control-allow-headers")).toContain("authorization");
    const bad = await routeGatewayRequest(new Request(`${BASE}/match/agar`, { method: "OPTIONS", headers: { origin: "https://evil.example" } }), e.env, games);
    expect(bad.status).toBe(403);
    const refused = await call("/match/agar", e, { body: "{}", headers: { origin: "https://evil.example", authorization: `Bearer ${await matchTicket()}` } });
    expect(refused).toMatchObject({ status: 403, body: { code: "forbidden" } });
    const ok = await call("/match/agar", e, { body: "{}", headers: { origin: "https://game.example.org", authorization: `Bearer ${await matchTicket()}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://game.example.org");
  });

  it("answers 503 unavailable with a retry hint when the matchmaker object throws (resetting)", async () => {
    const e = env();
    (e.env as unknown as { MATCHMAKER: unknown }).MATCHMAKER = {
      idFromName: (name: string) => ({ name }),
      get: () => ({
        match: async () => {
          throw new Error("object reset");
        },
      }),
    };
    const r = await call("/match/agar", e, { body: "{}", headers: { authorization: `Bearer ${await matchTicket()}` } });
    expect(r).toMatchObject({ status: 503, body: { code: "unavailable", retryAfterMs: 500 } });
    expect(r.headers.get("retry-after")).toBe("1");
  });
});

describe("gateway: /match in DEV_MODE", () => {
  it("needs no ticket (an anonymous identity per request) and passes overrides to the matchmaker", async () => {
    const e = env({ DEV_MODE: "true", TICKET_SECRET: undefined });
    expect((await call("/match/agar?cap=4", e, { body: "{}" })).status).toBe(200);
    const [who, creation] = [e.calls[0]!.args[3] as { identity: string; verified: boolean }, e.calls[0]!.args[4] as { key: string }];
    expect(who.verified).toBe(false);
    expect(who.identity).toMatch(/^anon-/);
    expect(creation.key).toBe("cap=4|");
    expect((await call("/match/agar/stats", e, { method: "GET" })).status).toBe(200);
  });
});

describe("gateway: joins with a seat reservation", () => {
  const reservation = (secret: string, roomId = "r1", seat: string | null = "res-0123456789abcdef") =>
    mintRoomTicket({ secret, kind: "agar", roomId, playerId: "alice", ttlSeconds: 60, ...(seat ? { seat } : {}) });
  const join = (path: string, e: ReturnType<typeof env>) => routeGatewayRequest(new Request(BASE + path, { headers: { Upgrade: "websocket" } }), e.env, games);
  /** The close code a refused join gets (the test double of the upgrade answers 200 with it in a header); 0 when routed. */
  const closedWith = async (path: string, e: ReturnType<typeof env>) => Number((await join(path, e)).headers.get("x-test-closed-with") ?? 0);

  it("verifies the reservation like a ticket and hands its identity and reservation id to the room", async () => {
    const e = env();
    expect((await join(`/rooms/agar/r1?reservation=${await reservation(SECRET)}`, e)).status).toBe(200);
    const meta = readRoomMeta(e.rooms[0]!.request.headers);
    expect(meta).toMatchObject({ kind: "agar", roomId: "r1", playerId: "alice", reservation: "res-0123456789abcdef" });
    expect(e.rooms[0]!.request.headers.get(ROOM_META_HEADER)).toContain("res-0123456789abcdef");
  });

  it("refuses a reservation for another room, one signed with another secret, and a plain ticket passed as one", async () => {
    const e = env();
    expect(await closedWith(`/rooms/agar/r2?reservation=${await reservation(SECRET)}`, e)).toBe(CloseCode.unauthorized);
    expect(await closedWith(`/rooms/agar/r1?reservation=${await reservation(DEV_MODE_SECRET)}`, e)).toBe(CloseCode.unauthorized);
    expect(await closedWith(`/rooms/agar/r1?reservation=${await reservation(SECRET, "r1", null)}`, e)).toBe(CloseCode.unauthorized);
    expect(e.rooms).toEqual([]);
  });

  it("in DEV_MODE without a secret, reservations are signed with the development secret", async () => {
    const e = env({ DEV_MODE: "true", TICKET_SECRET: undefined });
    expect(await closedWith(`/rooms/agar/r1?reservation=${await reservation(DEV_MODE_SECRET)}`, e)).toBe(0);
    expect(e.rooms).toHaveLength(1);
    expect(await closedWith(`/rooms/agar/r1?reservation=${await reservation("some-other-secret-0123456789")}`, e)).toBe(CloseCode.unauthorized);
  });
});
