/**
 * Sign in with the game's own provider: the gateway takes a JWT (`?token=` or `Authorization:
 * Bearer`) for joins and match requests, verified against a JWKS served by node:http on
 * 127.0.0.1 with keys made here, next to (or instead of) room tickets.
 */
import type { GameDefinition } from "@tikron/core";
import { ANY_ROOM, mintRoomTicket } from "@tikron/core/ticket";
import { CloseCode, readCloseReason } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AUDIENCE, ISSUER, JwksServer, makeKey, sign, type TestKey } from "../../core/test/auth/jwksServer";
import { routeGatewayRequest, type GatewayEnv } from "../src/gateway";
import { readRoomMeta } from "../src/roomRequest";

vi.mock("../src/upgradeRefusal", () => ({
  closedUpgrade: (code: number, reason: string) => new Response(reason, { status: 200, headers: { "x-test-closed-with": String(code) } }),
}));

const SECRET = "sign-in-test-secret-0123456789";
const BASE = "https://play.example.com";
const games = { agar: { kind: "agar", defaults: {}, create: () => null as never } } satisfies Record<string, GameDefinition>;
const jwks = new JwksServer();
let key: TestKey;

beforeAll(async () => {
  key = await makeKey("k1", "ES256");
  await jwks.start();
  jwks.publish(key);
});
afterAll(() => jwks.stop());

const authVars = () => ({ AUTH_JWKS_URL: jwks.url, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE });
const token = (claims: Record<string, unknown> = {}) => sign(key, Date.now(), { sub: "bob", ...claims });

function env(vars: Record<string, unknown> = {}) {
  const routed: Request[] = [];
  const calls: { method: string; args: unknown[] }[] = [];
  const ROOMS = { idFromName: (name: string) => ({ name }), get: () => ({ fetch: async (r: Request) => (routed.push(r), new Response("routed")) }) };
  const MATCHMAKER = {
    idFromName: (name: string) => ({ name }),
    get: () =>
      new Proxy({}, { get: (_t, method: string) => async (...args: unknown[]) => (calls.push({ method, args }), { roomId: "room-one", token: "tok", expiresAt: 1, created: true }) }),
  };
  return { env: { ROOMS, MATCHMAKER, DEV_MODE: "false", ...vars } as unknown as GatewayEnv, routed, calls };
}

async function join(path: string, e: ReturnType<typeof env>, headers: Record<string, string> = { Upgrade: "websocket" }) {
  const res = await routeGatewayRequest(new Request(BASE + path, { headers }), e.env, games);
  const body = await res.text();
  const closed = res.headers.get("x-test-closed-with");
  if (closed === null) return { status: res.status, body, headers: res.headers };
  return { status: 101, close: Number(closed), ...readCloseReason(body), headers: res.headers };
}

async function match(path: string, e: ReturnType<typeof env>, headers: Record<string, string>) {
  const res = await routeGatewayRequest(new Request(BASE + path, { method: "POST", body: "{}", headers }), e.env, games);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

describe("joins with the provider's JWT", () => {
  it("routes a valid token (?token= or Authorization: Bearer) with its identity; it is good for any room", async () => {
    const e = env({ TICKET_SECRET: SECRET, ...authVars() });
    const t = await token();
    expect((await join(`/rooms/agar/r1?token=${t}`, e)).status).toBe(200);
    expect((await join("/rooms/agar/r2", e, { Upgrade: "websocket", Authorization: `Bearer ${t}` })).status).toBe(200);
    expect(e.routed.map((r) => readRoomMeta(r.headers)).map((m) => [m?.roomId, m?.playerId])).toEqual([
      ["r1", "jwt:bob"],
      ["r2", "jwt:bob"],
    ]);
    // Room tickets still work next to it.
    const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "carol", ttlSeconds: 60 });
    expect((await join(`/rooms/agar/r1?ticket=${ticket}`, e)).status).toBe(200);
    expect(readRoomMeta(e.routed[2]!.headers)?.playerId).toBe("carol");
  });

  it("hands the room the claims AUTH_CLAIMS names (the seat's Player.claims), and matches carry them to the reservation", async () => {
    const e = env({ TICKET_SECRET: SECRET, ...authVars(), AUTH_CLAIMS: "name,roles" });
    const t = await token({ name: "Bob B.", roles: ["beta"], email: "b@example.com" });
    expect((await join(`/rooms/agar/r1?token=${t}`, e)).status).toBe(200);
    expect(readRoomMeta(e.routed[0]!.headers)).toMatchObject({ playerId: "jwt:bob", claims: { name: "Bob B.", roles: ["beta"] } });
    expect(readRoomMeta(e.routed[0]!.headers)?.claims).not.toHaveProperty("email");
    expect((await match("/match/agar", e, { authorization: `Bearer ${t}` })).status).toBe(200);
    expect(e.calls[0]!.args.find((a) => typeof a === "object" && a !== null && "identity" in a)).toEqual({ identity: "jwt:bob", verified: true, rateKey: "jwt:bob", claims: { name: "Bob B.", roles: ["beta"] } });
  });

  it("closes a join with a bad token with unauthorized and the reason, never reaching the room", async () => {
    const e = env({ TICKET_SECRET: SECRET, ...authVars() });
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ exp: now - 600, iat: now - 1200 }, /expired/],
      [{ aud: "another-game" }, /another audience/],
      [{ iss: "https://evil.example/" }, /another issuer/],
    ];
    for (const [claims, reason] of cases) expect(await join(`/rooms/agar/r1?token=${await token(claims)}`, e)).toMatchObject({ close: CloseCode.unauthorized, reason: expect.stringMatching(reason) });
    const stranger = await makeKey("k9", "ES256");
    expect(await join(`/rooms/agar/r1?token=${await sign(stranger, Date.now())}`, e)).toMatchObject({ close: CloseCode.unauthorized, reason: expect.stringMatching(/key the provider does not publish/) });
    expect(await join(`/rooms/agar/r1?token=${await token()}`, e, {})).toMatchObject({ status: 426 });
    expect(await join("/rooms/agar/r1", e)).toMatchObject({ close: CloseCode.unauthorized, reason: expect.stringMatching(/room ticket .* or a sign-in token/) });
    expect(await join(`/rooms/agar/r1?token=${await token({ aud: "x" })}`, e, {})).toMatchObject({ status: 401 });
    expect(e.routed).toEqual([]);
  });

  it("takes JWTs alone when the gateway has no ticket secret", async () => {
    const e = env(authVars());
    expect((await join(`/rooms/agar/r1?token=${await token()}`, e)).status).toBe(200);
    const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "r1", playerId: "carol", ttlSeconds: 60 });
    expect(await join(`/rooms/agar/r1?ticket=${ticket}`, e)).toMatchObject({ close: CloseCode.unauthorized, reason: expect.stringMatching(/^a sign-in token is required/) });
  });

  it("tells the client to come back shortly when the provider's keys cannot be had, and refuses all when the vars are wrong", async () => {
    const down = env({ AUTH_JWKS_URL: "http://127.0.0.1:1/jwks.json", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE });
    expect(await join(`/rooms/agar/r1?token=${await token()}`, down)).toMatchObject({ close: CloseCode.join_throttled, retryAfterMs: 5000 });
    const plain = await join(`/rooms/agar/r1?token=${await token()}`, down, {});
    expect(plain).toMatchObject({ status: 503 });
    expect(plain.headers.get("retry-after")).toBe("5");
    const wrong = env({ ...authVars(), AUTH_JWKS_URL: "http://keys.example.com/jwks.json" });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await join(`/rooms/agar/r1?token=${await token()}`, wrong)).toMatchObject({ close: CloseCode.unavailable });
    expect(errors.mock.calls.flat().join(" ")).toMatch(/AUTH_JWKS_URL .*https/);
    errors.mockRestore();
    expect(down.routed.length + wrong.routed.length).toBe(0);
  });

  it("DEV_MODE needs no token but checks one that is sent", async () => {
    const e = env({ DEV_MODE: "true", ...authVars() });
    expect((await join("/rooms/agar/r1", e)).status).toBe(200);
    expect(readRoomMeta(e.routed[0]!.headers)?.playerId).toBeUndefined();
    expect(await join(`/rooms/agar/r1?token=${await token({ aud: "x" })}`, e)).toMatchObject({ close: CloseCode.unauthorized });
    expect((await join(`/rooms/agar/r1?token=${await token()}`, e)).status).toBe(200);
    expect(readRoomMeta(e.routed[1]!.headers)?.playerId).toBe("jwt:bob");
  });
});

describe("match requests with the provider's JWT", () => {
  it("take the token's identity as a verified caller, for matches and joins by id", async () => {
    const e = env({ TICKET_SECRET: SECRET, ...authVars() });
    const auth = { authorization: `Bearer ${await token()}` };
    expect((await match("/match/agar", e, auth)).status).toBe(200);
    expect((await match("/match/agar/room/r7", e, auth)).status).toBe(200);
    expect(e.calls.map((c) => [c.method, c.args.find((a) => typeof a === "object" && a !== null && "identity" in a)])).toEqual([
      ["match", { identity: "jwt:bob", verified: true, rateKey: "jwt:bob", claims: {} }],
      ["joinById", { identity: "jwt:bob", verified: true, rateKey: "jwt:bob", claims: {} }],
    ]);
    // Match tickets still work on the same header.
    const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: ANY_ROOM, playerId: "carol", ttlSeconds: 60 });
    expect((await match("/match/agar", e, { authorization: `Bearer ${ticket}` })).status).toBe(200);
  });

  it("refuse a bad token and none alike (401 unauthorized, as a join does), and ask again later when the provider is down", async () => {
    const e = env({ TICKET_SECRET: SECRET, ...authVars() });
    expect(await match("/match/agar", e, { authorization: `Bearer ${await token({ aud: "x" })}` })).toMatchObject({ status: 401, body: { code: "unauthorized", reason: expect.stringMatching(/another audience/) } });
    expect(await match("/match/agar", e, {})).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    const down = env({ AUTH_JWKS_URL: "http://127.0.0.1:1/jwks.json", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE });
    expect(await match("/match/agar", down, { authorization: `Bearer ${await token()}` })).toMatchObject({ status: 503, body: { code: "unavailable", retryAfterMs: 5000 } });
    expect(e.calls.length + down.calls.length).toBe(0);
  });
});
