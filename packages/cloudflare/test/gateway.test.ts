import { admissionReply, type GameDefinition } from "@tikron/core";
import { CloseCode, readCloseReason } from "@tikron/protocol";
import { describe, expect, it, vi } from "vitest";
import { GATE_REFUSAL_DELAY_MS, routeGatewayRequest, type GatewayEnv } from "../src/gateway";
import { readRoomMeta, relayedAnswer, ROOM_META_HEADER } from "../src/roomRequest";
import { mintRoomTicket } from "@tikron/core/ticket";

// Node has no WebSocketPair and no 101 responses: a refused upgrade shows up here as the close it would get.
vi.mock("../src/upgradeRefusal", () => ({
  closedUpgrade: (code: number, reason: string) => new Response(reason, { status: 200, headers: { "x-test-closed-with": String(code) } }),
}));

const SECRET = "gateway-test-secret-0123456789";
const games = { agar: { kind: "agar", defaults: {}, create: () => null as never } } satisfies Record<string, GameDefinition>;
const BASE = "https://rooms.example.com";

/** A Worker env whose Durable Object namespace records what reaches it. */
function env(vars: Partial<GatewayEnv> = {}, answer: (name: string) => Response = () => new Response("routed", { status: 200 })) {
  const routed: { name: string; request: Request }[] = [];
  const ROOMS = {
    idFromName: (name: string) => ({ name }),
    get: (id: { name: string }) => ({
      fetch: async (request: Request) => {
        routed.push({ name: id.name, request });
        return answer(id.name);
      },
    }),
  };
  return { env: { ROOMS, DEV_MODE: "false", TICKET_SECRET: SECRET, ...vars } as unknown as GatewayEnv, routed };
}

const upgrade = { Upgrade: "websocket" };
const ticketFor = (roomId = "r1", playerId = "alice", kind = "agar", ttlSeconds = 60) => mintRoomTicket({ secret: SECRET, kind, roomId, playerId, ttlSeconds });

/** The gateway's answer: an HTTP status and body, or for an upgrade it accepted and closed at once, the close code and reason. */
async function call(path: string, e: { env: GatewayEnv }, headers: Record<string, string> = upgrade) {
  const res = await routeGatewayRequest(new Request(BASE + path, { headers }), e.env, games);
  const body = await res.text();
  const closed = res.headers.get("x-test-closed-with");
  if (closed === null) return { status: res.status, body, headers: res.headers };
  const { reason, retryAfterMs } = readCloseReason(body);
  return { status: 101, close: Number(closed), reason, retryAfterMs, body, headers: res.headers };
}

describe("gateway routing: room path validation", () => {
  it("closes upgrades to unknown kinds (not_found) and bad room ids (bad_request) at once, without touching a room; plain requests get 404 and 400", async () => {
    const e = env({ DEV_MODE: "true" });
    expect(await call("/rooms/chess/r1", e)).toMatchObject({ close: CloseCode.not_found, reason: 'unknown room kind "chess"' });
    expect((await call("/rooms/__proto__/r1", e)).close).toBe(CloseCode.not_found);
    expect((await call("/rooms/constructor/r1", e)).close).toBe(CloseCode.not_found);
    for (const id of ["a%20b", "a.b", "x".repeat(65), "%C3%A9", "a%2Fb", "%00"]) {
      expect((await call(`/rooms/agar/${id}`, e)).close, id).toBe(CloseCode.bad_request);
    }
    expect((await call("/rooms/agar/%E0%A4%A", e)).close).toBe(CloseCode.bad_request);
    expect((await call("/rooms/chess/r1", e, {})).status).toBe(404);
    expect((await call("/rooms/agar/a.b", e, {})).status).toBe(400);
    expect((await call("/rooms/agar/r1/extra/bits", e)).status).toBe(404);
    expect(e.routed).toEqual([]);
    expect((await call(`/rooms/agar/${"x".repeat(64)}`, e)).status).toBe(200);
    expect(e.routed.map((r) => r.name)).toEqual([`agar:${"x".repeat(64)}`]);
  });

  it("refuses overrides and HTTP stats outside DEV_MODE", async () => {
    const e = env();
    const t = await ticketFor();
    expect((await call(`/rooms/agar/r1?cap=500&ticket=${t}`, e)).close).toBe(CloseCode.forbidden);
    expect((await call(`/rooms/agar/r1?cap=500&ticket=${t}`, e, {})).status).toBe(403);
    expect((await call("/rooms/agar/r1/stats", e, {})).status).toBe(403);
    expect(e.routed).toEqual([]);
  });
});

describe("gateway routing: the decision travels with the request", () => {
  it("tells the room object what a request is for (stats, bots; nothing for a join), so it never matches the path again", async () => {
    const e = env({ DEV_MODE: "true", TICKET_SECRET: undefined });
    await call("/rooms/agar/stats", e);
    await call("/rooms/agar/r1/stats", e, {});
    await routeGatewayRequest(new Request(`${BASE}/rooms/agar/r1/bots?count=2`, { method: "POST" }), e.env, games);
    expect(e.routed.map((r) => readRoomMeta(r.request.headers)?.route)).toEqual([undefined, "stats", "bots"]);
  });

  it("reads no metadata whose route is not one the gateway writes", () => {
    const headers = (route: unknown) => new Headers({ [ROOM_META_HEADER]: JSON.stringify({ route, kind: "agar", roomId: "r1", options: {}, params: {} }) });
    expect(readRoomMeta(headers("stats"))?.route).toBe("stats");
    expect(readRoomMeta(headers("admin"))).toBeNull();
    expect(readRoomMeta(headers(1))).toBeNull();
  });
});

describe("gateway routing: join tickets outside DEV_MODE", () => {
  it("closes a join without a ticket, or with an expired, tampered or wrong-room one, with unauthorized; plain requests get 401", async () => {
    const e = env();
    expect(await call("/rooms/agar/r1", e)).toMatchObject({ close: CloseCode.unauthorized, reason: "a room ticket is required (?ticket=)" });
    expect((await call("/rooms/agar/r1?ticket=", e)).close).toBe(CloseCode.unauthorized);
    expect((await call("/rooms/agar/r1", e, {})).status).toBe(401);
    const expired = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "a", ttlSeconds: 1, nowMs: Date.now() - 5_000 });
    expect(await call(`/rooms/agar/r1?ticket=${expired}`, e)).toMatchObject({ close: CloseCode.unauthorized, reason: expect.stringMatching(/expired/) });
    expect(await call(`/rooms/agar/r1?ticket=${expired}`, e, {})).toMatchObject({ status: 401, body: expect.stringMatching(/expired/) });
    const good = await ticketFor();
    const tampered = good.slice(0, 5) + (good[5] === "A" ? "B" : "A") + good.slice(6);
    expect((await call(`/rooms/agar/r1?ticket=${tampered}`, e)).close).toBe(CloseCode.unauthorized);
    expect(await call(`/rooms/agar/r2?ticket=${good}`, e)).toMatchObject({ close: CloseCode.unauthorized, reason: expect.stringMatching(/another room/) });
    const forged = await mintRoomTicket({ secret: "some-other-secret-xyz-123", kind: "agar", roomId: "r1", playerId: "a", ttlSeconds: 60 });
    expect((await call(`/rooms/agar/r1?ticket=${forged}`, e)).close).toBe(CloseCode.unauthorized);
    expect((await call("/rooms/agar/r1?ticket=garbage", e)).close).toBe(CloseCode.unauthorized);
    expect(e.routed).toEqual([]);
  });

  it("routes a valid ticket to the room's object with the player id in the room metadata", async () => {
    const e = env();
    const res = await call(`/rooms/agar/r1?ticket=${await ticketFor("r1", "player-42")}`, e);
    expect(res.status).toBe(200);
    expect(e.routed).toHaveLength(1);
    expect(e.routed[0]!.name).toBe("agar:r1");
    expect(readRoomMeta(e.routed[0]!.request.headers)).toMatchObject({ kind: "agar", roomId: "r1", playerId: "player-42" });
  });

  it("never lets a client supply its own room metadata (player id) header", async () => {
    const e = env();
    const forgedMeta = JSON.stringify({ kind: "agar", roomId: "r1", options: { cap: 999 }, params: {}, playerId: "admin" });
    await call(`/rooms/agar/r1?ticket=${await ticketFor("r1", "alice")}`, e, { ...upgrade, [ROOM_META_HEADER]: forgedMeta });
    expect(readRoomMeta(e.routed[0]!.request.headers)).toEqual({ kind: "agar", roomId: "r1", options: {}, params: {}, playerId: "alice" });
    const dev = env({ DEV_MODE: "true", TICKET_SECRET: undefined });
    await call("/rooms/agar/r1", dev, { ...upgrade, [ROOM_META_HEADER]: forgedMeta });
    expect(readRoomMeta(dev.routed[0]!.request.headers)).toEqual({ kind: "agar", roomId: "r1", options: {}, params: {} });
  });

  it("426s a valid ticket without an upgrade, and closes joins with unavailable (503 without an upgrade) when no secret is configured", async () => {
    const e = env();
    expect((await call(`/rooms/agar/r1?ticket=${await ticketFor()}`, e, {})).status).toBe(426);
    const unconfigured = env({ TICKET_SECRET: undefined });
    expect((await call(`/rooms/agar/r1?ticket=${await ticketFor()}`, unconfigured)).close).toBe(CloseCode.unavailable);
    expect((await call(`/rooms/agar/r1?ticket=${await ticketFor()}`, unconfigured, {})).status).toBe(503);
    const weak = env({ TICKET_SECRET: "short" });
    expect((await call(`/rooms/agar/r1?ticket=${await ticketFor()}`, weak)).close).toBe(CloseCode.unavailable);
    expect([...e.routed, ...unconfigured.routed, ...weak.routed]).toEqual([]);
  });
});

describe("gateway routing: DEV_MODE and origins", () => {
  it("DEV_MODE needs no ticket, but verifies one that is sent when a secret is set", async () => {
    const open = env({ DEV_MODE: "true", TICKET_SECRET: undefined });
    expect((await call("/rooms/agar/r1", open)).status).toBe(200);
    expect((await call("/rooms/agar/r1?ticket=whatever", open)).status).toBe(200);
    const rehearsal = env({ DEV_MODE: "true" });
    expect((await call("/rooms/agar/r1", rehearsal)).status).toBe(200);
    expect((await call("/rooms/agar/r1?ticket=garbage", rehearsal)).close).toBe(CloseCode.unauthorized);
    expect((await call(`/rooms/agar/r1?ticket=${await ticketFor("r1", "bob")}`, rehearsal)).status).toBe(200);
    expect(readRoomMeta(rehearsal.routed.at(-1)!.request.headers)?.playerId).toBe("bob");
  });

  it("closes joins from foreign browser origins with forbidden outside DEV_MODE, before looking at the ticket", async () => {
    const e = env({ ALLOWED_ORIGINS: "https://play.example.com" });
    const t = await ticketFor();
    expect(await call(`/rooms/agar/r1?ticket=${t}`, e, { ...upgrade, Origin: "https://evil.example" })).toMatchObject({ close: CloseCode.forbidden, reason: "origin https://evil.example may not open room sockets" });
    expect((await call("/rooms/agar/r1", e, { ...upgrade, Origin: "https://evil.example" })).close).toBe(CloseCode.forbidden);
    // A reason that quotes the request is cut to what a close frame carries (123 bytes of UTF-8).
    const long = await call("/rooms/agar/r1", e, { ...upgrade, Origin: `https://${"é".repeat(300)}.example` });
    expect(long.close).toBe(CloseCode.forbidden);
    expect(new TextEncoder().encode(long.body).length).toBeLessThanOrEqual(123);
    expect((await call(`/rooms/agar/r1?ticket=${t}`, e, { ...upgrade, Origin: "https://play.example.com" })).status).toBe(200);
    expect((await call(`/rooms/agar/r1?ticket=${t}`, e, { ...upgrade, Origin: BASE })).status).toBe(200);
    expect((await call(`/rooms/agar/r1?ticket=${t}`, e)).status).toBe(200);
    expect(e.routed).toHaveLength(3);
  });
});

describe("gateway: callers the room refused", () => {
  it("answers a caller's retries inside the room's Retry-After without another trip into the room", async () => {
    const routed: string[] = [];
    const ROOMS = {
      idFromName: (name: string) => ({ name }),
      get: () => ({
        fetch: async (request: Request) => {
          routed.push(readRoomMeta(request.headers)!.playerId!);
          return new Response("no", { status: 429, headers: { "retry-after": "5" } });
        },
      }),
    };
    const e = { env: { ROOMS, DEV_MODE: "false", TICKET_SECRET: SECRET } as unknown as GatewayEnv, routed: [] };
    const mallory = await ticketFor("cache1", "mallory");
    const alice = await ticketFor("cache1", "alice");
    // The room's 429 reaches the upgrade as join_throttled with the room's wait in the reason.
    expect(await call(`/rooms/agar/cache1?ticket=${mallory}`, e)).toMatchObject({ close: CloseCode.join_throttled, reason: "no", retryAfterMs: 5000 });
    // The gateway's own answers come after a delay (a caller retrying at once is slowed down).
    const t0 = performance.now();
    const retries = await Promise.all(Array.from({ length: 4 }, () => call(`/rooms/agar/cache1?ticket=${mallory}`, e)));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(GATE_REFUSAL_DELAY_MS - 50);
    expect(retries.map((r) => r.close)).toEqual(Array(4).fill(CloseCode.join_throttled));
    for (const r of retries) expect(r.retryAfterMs).toBeGreaterThanOrEqual(1000);
    // Without an upgrade the same answer is a 429 with Retry-After.
    const plain = await call(`/rooms/agar/cache1?ticket=${mallory}`, e, {});
    expect(plain.status).toBe(429);
    expect(Number(plain.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(routed).toEqual(["mallory"]);
    // Another caller still reaches the room.
    await call(`/rooms/agar/cache1?ticket=${alice}`, e);
    expect(routed).toEqual(["mallory", "alice"]);
  });
});

describe("gateway: what it answers for the room", () => {
  /** A room that answers each upgrade when the test says so, and records who reached it. */
  function heldRoom(status = 101 as number) {
    const routed: string[] = [];
    const waiting: (() => void)[] = [];
    const ROOMS = {
      idFromName: (name: string) => ({ name }),
      get: () => ({
        fetch: async (request: Request) => {
          routed.push(readRoomMeta(request.headers)!.playerId!);
          await new Promise<void>((r) => waiting.push(r));
          return new Response("answer", { status: status === 101 ? 200 : status, headers: status === 429 ? { "retry-after": "3" } : {} });
        },
      }),
    };
    const releaseAll = () => waiting.splice(0).forEach((r) => r());
    return { e: { env: { ROOMS, DEV_MODE: "false", TICKET_SECRET: SECRET } as unknown as GatewayEnv, routed: [] }, routed, releaseAll };
  }
  const settle = () => new Promise((r) => setTimeout(r, 20));
  /**
   * Waits (bounded) until `done`: a join reaches the held room only after its ticket's HMAC is
   * verified, which a loaded machine can take longer than a fixed pause for.
   */
  const until = async (done: () => boolean, ms = 10_000) => {
    for (const end = Date.now() + ms; !done() && Date.now() < end; ) await settle();
  };

  it("turns the room's admission refusals (429, 503) into join_throttled closes with the room's wait, with or without a caller key", async () => {
    const cases = [
      { status: 503, devMode: "true", room: "adm0", query: "" },
      { status: 503, devMode: "false", room: "adm1", query: `?ticket=${await ticketFor("adm1", "carol")}` },
      { status: 429, devMode: "false", room: "adm2", query: `?ticket=${await ticketFor("adm2", "dave")}` },
    ];
    for (const { status, devMode, room, query } of cases) {
      const ROOMS = {
        idFromName: (name: string) => ({ name }),
        get: () => ({ fetch: async () => new Response("too many sockets waiting to join this room; retry later", { status, headers: { "retry-after": "2" } }) }),
      };
      const e = { env: { ROOMS, DEV_MODE: devMode, TICKET_SECRET: devMode === "true" ? undefined : SECRET } as unknown as GatewayEnv };
      expect(await call(`/rooms/agar/${room}${query}`, e), room).toMatchObject({
        close: CloseCode.join_throttled,
        reason: "too many sockets waiting to join this room; retry later",
        retryAfterMs: 2000,
      });
    }
  });

  it("turns the room's refusal of a banned caller (403 with the close it gets) into a banned close with the ban's wait; a plain request keeps the 403", async () => {
    const ban = admissionReply({ status: 403, counter: "banned", closeCode: CloseCode.banned, reason: "banned from this room: cheating", retryAfterMs: 90_000 });
    const ROOMS = { idFromName: (name: string) => ({ name }), get: () => ({ fetch: async () => new Response(ban.body, { status: ban.status, headers: ban.headers }) }) };
    const e = { env: { ROOMS, DEV_MODE: "false", TICKET_SECRET: SECRET } as unknown as GatewayEnv };
    expect(await call(`/rooms/agar/b1?ticket=${await ticketFor("b1", "eve")}`, e)).toMatchObject({ close: CloseCode.banned, reason: "banned from this room: cheating", retryAfterMs: 90_000 });
    expect(await call(`/rooms/agar/b1?ticket=${await ticketFor("b1", "eve")}`, e, {})).toMatchObject({ status: 426 });
  });

  it("answers a refused ticket's retries without checking its signature again", async () => {
    const { e, routed, releaseAll } = heldRoom(429);
    const mallory = await ticketFor("sig1", "mallory");
    const verify = vi.spyOn(crypto.subtle, "verify");
    try {
      const first = call(`/rooms/agar/sig1?ticket=${mallory}`, e);
      await until(() => routed.length === 1);
      releaseAll();
      expect((await first).close).toBe(CloseCode.join_throttled);
      const verified = verify.mock.calls.length;
      const retries = await Promise.all(Array.from({ length: 5 }, () => call(`/rooms/agar/sig1?ticket=${mallory}`, e)));
      for (const r of retries) {
        expect(r.close).toBe(CloseCode.join_throttled);
        expect(r.retryAfterMs).toBeGreaterThanOrEqual(1000);
      }
      expect(verify.mock.calls.length).toBe(verified);
      expect(routed).toEqual(["mallory"]);
      // A forged ticket is still refused by verification, not let through by the memory.
      expect((await call(`/rooms/agar/sig1?ticket=${mallory.slice(0, -2)}xx`, e)).close).toBe(CloseCode.unauthorized);
    } finally {
      verify.mockRestore();
    }
  });

  it("holds back one caller's burst of upgrades beyond what the room lets it have waiting; others still pass", async () => {
    const { e, routed, releaseAll } = heldRoom();
    const mallory = await ticketFor("burst1", "mallory");
    const alice = await ticketFor("burst1", "alice");
    const burst = Array.from({ length: 12 }, () => call(`/rooms/agar/burst1?ticket=${mallory}`, e));
    // 8 reach the room; the other 4 are held back (their answers come after the gateway's hold).
    await until(() => routed.length === 8);
    await settle();
    const honest = call(`/rooms/agar/burst1?ticket=${alice}`, e);
    await until(() => routed.includes("alice"));
    // defaultRoomOptions.maxPendingPerIdentity is 8: the other 4 are answered here.
    expect(routed.filter((p) => p === "mallory")).toHaveLength(8);
    expect(routed).toContain("alice");
    releaseAll();
    const answers = await Promise.all(burst);
    expect(answers.filter((r) => r.close === CloseCode.join_throttled)).toHaveLength(4);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(8);
    expect((await honest).status).toBe(200);
    // Once the room has answered, the caller's upgrades go through again.
    const again = call(`/rooms/agar/burst1?ticket=${mallory}`, e);
    await until(() => routed.length === 10);
    releaseAll();
    expect((await again).status).toBe(200);
  });
});

describe("gateway: bots route", () => {
  const botGames = {
    agar: { kind: "agar", defaults: {}, create: () => null as never, bots: { inputEveryMs: 100, create: () => ({ next: () => null }) } },
    open: { kind: "open", defaults: {}, create: () => null as never, bots: { inputEveryMs: 100, create: () => ({ next: () => null }), allowInProduction: true } },
  } satisfies Record<string, GameDefinition>;
  function botsEnv(vars: Partial<GatewayEnv>) {
    const routed: string[] = [];
    const ns = (tag: string) => ({
      idFromName: (name: string) => ({ name }),
      get: (id: { name: string }) => ({
        fetch: async (req: Request) => {
          routed.push(`${tag}:${id.name}:${req.method}:${new URL(req.url).pathname}`);
          return Response.json({ rooms: [] });
        },
      }),
    });
    return { env: { ROOMS: ns("room"), DEV_MODE: "true", ...vars } as unknown as GatewayEnv, routed };
  }
  const call = (path: string, e: GatewayEnv, method = "GET") => routeGatewayRequest(new Request(`https://g.example.com${path}`, { method }), e, botGames);

  it("routes POST bots to the room in DEV_MODE; outside it only for kinds that allow it", async () => {
    const dev = botsEnv({});
    expect((await call("/rooms/agar/r1/bots?count=3", dev.env, "POST")).status).toBe(200);
    expect(dev.routed).toEqual(["room:agar:r1:POST:/rooms/agar/r1/bots"]);
    expect((await call("/rooms/agar/r1/bots?count=3", dev.env)).status).toBe(405);
    const prod = botsEnv({ DEV_MODE: "false", TICKET_SECRET: "gateway-test-secret-0123456789" });
    expect((await call("/rooms/agar/r1/bots?count=3", prod.env, "POST")).status).toBe(403);
    // Allowed kind: still needs a ticket like a join.
    expect((await call("/rooms/open/r1/bots?count=3", prod.env, "POST")).status).toBe(401);
    expect(prod.routed).toEqual([]);
  });
});

describe("gateway routing: the abort drill (DEV_MODE)", () => {
  const post = (path: string, e: { env: GatewayEnv }, method = "POST") => routeGatewayRequest(new Request(BASE + path, { method }), e.env, games);

  it("is refused outside DEV_MODE before any object is touched", async () => {
    const e = env();
    const res = await post("/rooms/agar/r1/abort?relay=0", e);
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/DEV_MODE only/);
    expect((await post("/rooms/agar/r1/abort", e)).status).toBe(403);
    expect(e.routed).toEqual([]);
  });

  it("sends the abort to the room's object, or to relay i of it, as the metadata route; POST only, relay in range", async () => {
    const e = env({ DEV_MODE: "true" });
    // The mock object answers 200 (it did not abort): passed on as it came.
    expect((await post("/rooms/agar/r1/abort", e)).status).toBe(200);
    expect((await post("/rooms/agar/r1/abort?relay=3", e)).status).toBe(200);
    expect(e.routed.map((r) => [r.name, readRoomMeta(r.request.headers)?.route])).toEqual([
      ["agar:r1", "abort"],
      ["agar:r1#relay3", "abort"],
    ]);
    expect((await post("/rooms/agar/r1/abort", e, "GET")).status).toBe(405);
    for (const bad of ["16", "-1", "1.5", "", "x"]) expect((await post(`/rooms/agar/r1/abort?relay=${bad}`, e)).status, bad).toBe(400);
    expect(e.routed.length).toBe(2);
  });

  it("answers 202 when the object's abort failed the call, as an aborted object's does", async () => {
    const e = env({ DEV_MODE: "true" });
    (e.env as unknown as { ROOMS: { get(): unknown } }).ROOMS.get = () => ({
      fetch: async () => {
        throw new Error("aborted by the DEV_MODE drill");
      },
    });
    const res = await post("/rooms/agar/r1/abort?relay=1", e);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("aborted agar:r1#relay1");
  });
});

describe("gateway routing: relayed rooms (DEV_MODE relays=K)", () => {
  it("sends each join to one of the room's K relay objects, named with its index in the metadata; stats go to the room's object", async () => {
    const e = env({ DEV_MODE: "true" });
    for (let i = 0; i < 4; i++) expect((await call("/rooms/agar/big?relays=2", e)).status).toBe(200);
    const names = e.routed.map((r) => r.name);
    // Joins without an identity alternate over the relays.
    expect(new Set(names)).toEqual(new Set(["agar:big#relay0", "agar:big#relay1"]));
    for (const r of e.routed) {
      const meta = readRoomMeta(r.request.headers)!;
      expect(r.name).toBe(`agar:big#relay${meta.relay}`);
      expect(meta.options.relays).toBe(2);
    }
    expect((await call("/rooms/agar/big/stats?relays=2", e, {})).status).toBe(200);
    expect(e.routed.at(-1)!.name).toBe("agar:big");
    expect(readRoomMeta(e.routed.at(-1)!.request.headers)!.relay).toBeUndefined();
    // relays=0 is the room holding its own sockets; out of range is refused.
    await call("/rooms/agar/small?relays=0", e);
    expect(e.routed.at(-1)!.name).toBe("agar:small");
    expect((await call("/rooms/agar/big?relays=17", e)).close).toBe(CloseCode.bad_request);
  });

  it("relays every join of a kind ROOM_RELAYS names — a matchmaker's join URL (a reservation) and a ticket's alike — without any override", async () => {
    const e = env({ ROOM_RELAYS: "agar=3" });
    const reservation = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "m1", playerId: "carol", ttlSeconds: 60, seat: "reservation-0001-abcd" });
    expect((await call(`/rooms/agar/m1?reservation=${reservation}`, e)).status).toBe(200);
    expect((await call(`/rooms/agar/m1?ticket=${await ticketFor("m1", "carol")}`, e)).status).toBe(200);
    const [byReservation, byTicket] = e.routed;
    expect(byReservation!.name).toMatch(/^agar:m1#relay[0-2]$/);
    // One identity, one relay, whichever way it came in.
    expect(byTicket!.name).toBe(byReservation!.name);
    expect(readRoomMeta(byReservation!.request.headers)).toMatchObject({ reservation: "reservation-0001-abcd", playerId: "carol", options: {} });
    // A DEV_MODE override still decides for its own join.
    const dev = env({ DEV_MODE: "true", ROOM_RELAYS: "agar=3" });
    await call("/rooms/agar/m2?relays=0", dev);
    expect(dev.routed.at(-1)!.name).toBe("agar:m2");
  });

  it("a kind's definition may default to relays; a malformed ROOM_RELAYS refuses joins as unavailable, loudly", async () => {
    const big = { agar: { kind: "agar", defaults: { relays: 2 }, create: () => null as never } } satisfies Record<string, GameDefinition>;
    const e = env({ DEV_MODE: "true" });
    await routeGatewayRequest(new Request(`${BASE}/rooms/agar/d1`, { headers: upgrade }), e.env, big);
    expect(e.routed.at(-1)!.name).toMatch(/^agar:d1#relay[01]$/);
    const bad = env({ DEV_MODE: "true", ROOM_RELAYS: "agar=lots" });
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    expect((await call("/rooms/agar/r1", bad)).close).toBe(CloseCode.unavailable);
    expect(error.mock.calls[0]![0]).toMatch(/ROOM_RELAYS: "agar=lots" is not kind=K/);
    error.mockRestore();
    expect(bad.routed).toEqual([]);
  });

  it("sends every join of one identity to the same relay", async () => {
    const e = env({ DEV_MODE: "true" });
    for (let i = 0; i < 3; i++) await call(`/rooms/agar/r1?relays=3&ticket=${await ticketFor("r1", "alice")}`, e);
    for (let i = 0; i < 3; i++) await call(`/rooms/agar/r1?relays=3&ticket=${await ticketFor("r1", "bob")}`, e);
    const names = e.routed.map((r) => r.name);
    expect(new Set(names.slice(0, 3)).size).toBe(1);
    expect(new Set(names.slice(3)).size).toBe(1);
    expect(names.every((n) => /^agar:r1#relay[0-2]$/.test(n))).toBe(true);
  });

  it("sends a join of a kind relayed from a threshold (K@N) to the room's object, and on to a relay when the object answers that the room is relayed now", async () => {
    // The room's object is promoted: it answers every join with its relay count.
    const promoted = env({ ROOM_RELAYS: "agar=2@150" }, (name) => (name === "agar:p1" ? relayedAnswer(2) : new Response("routed", { status: 200 })));
    for (const who of ["alice", "bob", "alice"]) {
      const res = await call(`/rooms/agar/p1?ticket=${await ticketFor("p1", who)}`, promoted);
      expect(res.status).toBe(200);
    }
    const names = promoted.routed.map((r) => r.name);
    expect(names.filter((n) => n === "agar:p1")).toHaveLength(3);
    const relayed = promoted.routed.filter((r) => r.name !== "agar:p1");
    expect(relayed.map((r) => r.name).every((n) => /^agar:p1#relay[01]$/.test(n))).toBe(true);
    // One identity, one relay; the metadata names it, and the join is otherwise the same.
    expect(relayed[2]!.name).toBe(relayed[0]!.name);
    for (const r of relayed) {
      const meta = readRoomMeta(r.request.headers)!;
      expect(r.name).toBe(`agar:p1#relay${meta.relay}`);
      expect(meta.playerId).toMatch(/^(alice|bob)$/);
      expect(r.request.headers.get("upgrade")).toBe("websocket");
    }
    // The object's first answer carried no relay index.
    expect(readRoomMeta(promoted.routed[0]!.request.headers)!.relay).toBeUndefined();
    // Not promoted yet: the room's object takes the join itself; stats always stay there.
    const single = env({ ROOM_RELAYS: "agar=2@150" });
    await call(`/rooms/agar/p2?ticket=${await ticketFor("p2", "carol")}`, single);
    expect(single.routed.map((r) => r.name)).toEqual(["agar:p2"]);
    const dev = env({ DEV_MODE: "true" }, () => relayedAnswer(2));
    expect((await call("/rooms/agar/p3/stats?relays=2&relayAt=4", dev, {})).status).toBe(421);
    expect(dev.routed.map((r) => r.name)).toEqual(["agar:p3"]);
    // A DEV_MODE threshold goes to the room's object the same way.
    await call("/rooms/agar/p3?relays=2&relayAt=4", dev);
    expect(dev.routed.at(-2)!.name).toBe("agar:p3");
    expect(dev.routed.at(-1)!.name).toMatch(/^agar:p3#relay[01]$/);
  });
});
