/**
 * The Node host takes the same identity as the gateway: a room ticket or the game's sign-in JWT
 * (verified against a JWKS on 127.0.0.1 with keys made here), for joins and match requests.
 */
import { gameDefinitions } from "@tikron/games";
import { ANY_ROOM, mintRoomTicket } from "@tikron/core/ticket";
import { CloseCode } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { serveRooms, type RoomServer } from "../src";
import { AUDIENCE, ISSUER, JwksServer, makeKey, sign, type TestKey } from "../../core/test/auth/jwksServer";

const SECRET = "node-sign-in-secret-0123456789";
const jwks = new JwksServer();
let key: TestKey;
let server: RoomServer;

beforeAll(async () => {
  key = await makeKey("k1", "EdDSA");
  await jwks.start();
  jwks.publish(key);
  server = await serveRooms({ games: gameDefinitions, devMode: false, ticketSecret: SECRET, auth: { jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE } });
});
afterAll(async () => {
  await server?.close();
  await jwks.stop();
});

const token = (claims: Record<string, unknown> = {}) => sign(key, Date.now(), { sub: "bob", ...claims });

/** Opens a socket and says nothing: whether the host let it in (open 300 ms later) or closed it at once, and how. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<{ open: true } | { close: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("open", () => {
      const timer = setTimeout(() => {
        resolve({ open: true });
        ws.terminate();
      }, 300);
      ws.once("close", (code, reason) => {
        clearTimeout(timer);
        resolve({ close: code, reason: reason.toString() });
      });
    });
    ws.once("error", reject);
  });
}

describe("the Node host's sign-in", () => {
  it("lets a join in with a valid JWT (?token= or Bearer) or a ticket, and binds the seat to its identity", async () => {
    expect(await upgrade(`${server.url}/rooms/agar/s1?token=${await token()}`)).toEqual({ open: true });
    expect(await upgrade(`${server.url}/rooms/agar/s2`, { authorization: `Bearer ${await token()}` })).toEqual({ open: true });
    const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: "s1", playerId: "carol", ttlSeconds: 60 });
    expect(await upgrade(`${server.url}/rooms/agar/s1?ticket=${ticket}`)).toEqual({ open: true });
  });

  it("closes a join with no credential, an expired or foreign token with unauthorized", async () => {
    expect(await upgrade(`${server.url}/rooms/agar/s3`)).toMatchObject({ close: CloseCode.unauthorized, reason: expect.stringMatching(/room ticket .* or a sign-in token/) });
    expect(await upgrade(`${server.url}/rooms/agar/s3?token=${await token({ exp: Math.floor(Date.now() / 1000) - 600 })}`)).toMatchObject({ close: CloseCode.unauthorized, reason: "sign-in token has expired" });
    expect(await upgrade(`${server.url}/rooms/agar/s3?token=${await token({ aud: "other" })}`)).toMatchObject({ close: CloseCode.unauthorized });
    expect(server.room("agar", "s3")?.seatCount ?? 0).toBe(0);
  });

  it("takes a JWT for match requests: the seat is held for its identity and the join takes it", async () => {
    const res = await fetch(`${server.httpUrl}/match/agar`, { method: "POST", body: "{}", headers: { authorization: `Bearer ${await token({ sub: "dora" })}` } });
    expect(res.status).toBe(200);
    const seat = (await res.json()) as { roomId: string; url: string };
    const ws = new WebSocket(seat.url);
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
    const { encodeHello, PROTOCOL_VERSION, BinaryWriter } = await import("@tikron/protocol");
    ws.send(encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: "dora" }).toBytes());
    await new Promise((r) => setTimeout(r, 200));
    expect(server.room("agar", seat.roomId)!.adminView().seats.map((s) => s.identity)).toEqual(["jwt:dora"]);
    ws.terminate();
    expect((await fetch(`${server.httpUrl}/match/agar`, { method: "POST", body: "{}" })).status).toBe(401);
    const bad = await fetch(`${server.httpUrl}/match/agar`, { method: "POST", body: "{}", headers: { authorization: `Bearer ${await token({ iss: "https://x.example/" })}` } });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { code: string }).code).toBe("unauthorized");
    const ticket = await mintRoomTicket({ secret: SECRET, kind: "agar", roomId: ANY_ROOM, playerId: "erin", ttlSeconds: 60 });
    expect((await fetch(`${server.httpUrl}/match/agar`, { method: "POST", body: "{}", headers: { authorization: `Bearer ${ticket}` } })).status).toBe(200);
  });

  it("a Node host that accepts no credential keeps its open joins outside DEV_MODE, but refuses match requests", async () => {
    const open = await serveRooms({ games: gameDefinitions, devMode: false });
    try {
      expect(await upgrade(`${open.url}/rooms/agar/o1`)).toEqual({ open: true });
      const r = await fetch(`${open.httpUrl}/match/agar`, { method: "POST", body: "{}" });
      expect(r.status).toBe(503);
    } finally {
      await open.close();
    }
  });
});
