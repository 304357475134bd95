/**
 * Host parity of the join gate: the same refused join, sent to the Cloudflare gateway (driven in
 * Node, its Durable Object namespace a stand-in) and to the Node host (`serveRooms` over a real
 * socket), both in production mode with one ticket secret, gets the same close code and reason
 * and is counted under the same cause (the gateway's `gatewayRefusals`, the Node host's admin
 * API); a match request with a declared oversize body gets the same 413. Both hosts call the
 * core's join gate (core/src/join); this holds them to it.
 */
import { request as httpRequest } from "node:http";
import { gameDefinitions } from "@tikron/games";
import { serveRooms, type RoomServer } from "@tikron/node";
import { mintSeatReservation } from "@tikron/core/join";
import { ANY_ROOM, mintRoomTicket } from "@tikron/core/ticket";
import { readCloseReason, type AdminRefusals, type RefusalCause } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { routeGatewayRequest, type GatewayEnv } from "../src/gateway";
import { gatewayRefusals } from "../src/gatewayRefusals";

// Node has no WebSocketPair and no 101 responses: a refused upgrade shows up here as the close it would get.
vi.mock("../src/upgradeRefusal", () => ({
  closedUpgrade: (code: number, reason: string) => new Response(reason, { status: 200, headers: { "x-test-closed-with": String(code) } }),
}));

const SECRET = "join-parity-secret-0123456789";
const ADMIN_TOKEN = "join-parity-admin-token-0123456789";
let node: RoomServer;
const reached: string[] = [];

const ROOMS = {
  idFromName: (name: string) => ({ name }),
  get: (id: { name: string }) => ({ fetch: async () => (reached.push(id.name), new Response("routed")) }),
};
const MATCHMAKER = { idFromName: (name: string) => ({ name }), get: () => new Proxy({}, { get: () => async () => ({ code: "unavailable" }) }) };
const env = { ROOMS, MATCHMAKER, DEV_MODE: "false", TICKET_SECRET: SECRET } as unknown as GatewayEnv;

beforeAll(async () => {
  node = await serveRooms({ games: gameDefinitions, devMode: false, ticketSecret: SECRET, adminToken: ADMIN_TOKEN });
});

afterAll(async () => {
  await node?.close();
});

interface Refused {
  close: number;
  reason: string;
  retryAfterMs: number;
}

let address = 0;
/** The gateway's refusal of an upgrade to `path` (from an address of its own, so no budget runs out). */
async function viaGateway(path: string): Promise<Refused | { status: number }> {
  const res = await routeGatewayRequest(new Request(`https://rooms.example.com${path}`, { headers: { Upgrade: "websocket", "CF-Connecting-IP": `198.51.100.${++address}` } }), env, gameDefinitions);
  const closed = res.headers.get("x-test-closed-with");
  if (closed === null) return { status: res.status };
  return { close: Number(closed), ...readCloseReason(await res.text()) };
}

/** The Node host's refusal of an upgrade to `path`: the close right after it. */
function viaNode(path: string): Promise<Refused | { opened: true }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(node.url + path);
    let opened = false;
    ws.on("open", () => (opened = true));
    ws.on("close", (code, reason) => resolve(opened && code === 1005 ? { opened: true } : { close: code, ...readCloseReason(reason.toString()) }));
    ws.on("error", reject);
  });
}

async function nodeRefusals(): Promise<AdminRefusals> {
  const res = await fetch(`${node.httpUrl}/admin/api/refusals`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return (await res.json()) as AdminRefusals;
}

/** The causes counted between two snapshots (only those that changed). */
function counted(before: AdminRefusals, after: AdminRefusals): Partial<Record<RefusalCause, number>> {
  const out: Partial<Record<RefusalCause, number>> = {};
  for (const [cause, n] of Object.entries(after.byCause) as [RefusalCause, number][]) if (n !== before.byCause[cause]) out[cause] = n - before.byCause[cause];
  return out;
}

const ticket = (roomId: string, playerId: string, secret = SECRET, nowMs?: number) => mintRoomTicket({ secret, kind: "agar", roomId, playerId, ttlSeconds: 60, ...(nowMs !== undefined ? { nowMs } : {}) });
const reservation = (roomId: string, identity: string) => mintSeatReservation(SECRET, "agar", { roomId, identity, reservationId: "parity-0123456789abcdef" });

describe("the join gate on both hosts: the same refusal for each cause", () => {
  it("closes each refused join with the same code and reason on the gateway and the Node host, counted under the same cause, before any room", async () => {
    const alice = await ticket("r1", "alice");
    const cases: [string, string, RefusalCause][] = [
      ["no credential", "/rooms/agar/r1", "no_credential"],
      ["a malformed ticket", "/rooms/agar/r1?ticket=garbage", "malformed"],
      ["a forged ticket", `/rooms/agar/r1?ticket=${await ticket("r1", "alice", "another-secret-0123456789")}`, "forged"],
      ["an expired ticket", `/rooms/agar/r1?ticket=${await ticket("r1", "alice", SECRET, Date.now() - 3_600_000)}`, "expired"],
      ["a ticket for another room", `/rooms/agar/r2?ticket=${alice}`, "wrong_room"],
      ["a match ticket", `/rooms/agar/r1?ticket=${await ticket(ANY_ROOM, "alice")}`, "wrong_room"],
      ["two credentials", `/rooms/agar/r1?ticket=${alice}&token=a.b.c`, "two_identities"],
      ["a reservation for another room", `/rooms/agar/r2?reservation=${await reservation("r1", "alice")}`, "wrong_room"],
      ["a reservation with another player's ticket", `/rooms/agar/r1?reservation=${await reservation("r1", "alice")}&ticket=${await ticket("r1", "mallory")}`, "two_identities"],
      ["a ticket sent as a reservation", `/rooms/agar/r1?reservation=${alice}`, "malformed"],
      ["a forged reservation", `/rooms/agar/r1?reservation=${await ticket("r1", "alice", "another-secret-0123456789")}`, "forged"],
      ["an unknown kind", `/rooms/chess/r1?ticket=${alice}`, "not_found"],
      ["a bad room id", `/rooms/agar/a.b?ticket=${alice}`, "bad_request"],
      ["overrides outside DEV_MODE", `/rooms/agar/r1?cap=5&ticket=${alice}`, "forbidden"],
      ["stats outside DEV_MODE", "/rooms/agar/r1/stats", "forbidden"],
    ];
    for (const [what, path, cause] of cases) {
      const gwBefore = gatewayRefusals.snapshot();
      const nodeBefore = await nodeRefusals();
      const gw = await viaGateway(path);
      const nd = await viaNode(path);
      expect(nd, what).toEqual(gw);
      expect(gw, what).toHaveProperty("close");
      expect(counted(gwBefore, gatewayRefusals.snapshot()), what).toEqual({ [cause]: 1 });
      expect(counted(nodeBefore, await nodeRefusals()), what).toEqual({ [cause]: 1 });
    }
    expect(reached).toEqual([]);
    expect(node.rooms()).toEqual([]);
  });

  it("refuses a match request whose declared body is over the bound with the same 413 on both hosts, unread", async () => {
    const auth = `Bearer ${await ticket(ANY_ROOM, "alice")}`;
    const headers = { authorization: auth, "content-type": "application/json", "content-length": String(64 * 1024 * 1024) };
    const gw = await routeGatewayRequest(new Request("https://rooms.example.com/match/agar", { method: "POST", headers, body: "{}", duplex: "half" } as RequestInit), env, gameDefinitions);
    const nd = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${node.httpUrl}/match/agar`, { method: "POST", headers }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.write("{}");
    });
    expect(gw.status).toBe(413);
    expect(nd.status).toBe(gw.status);
    expect(JSON.parse(nd.body)).toEqual(await gw.json());
  });
});
