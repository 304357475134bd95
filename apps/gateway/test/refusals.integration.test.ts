/**
 * Refused joins as a client sees them, against real `wrangler dev` with the production config
 * (`wrangler.jsonc`, a `TICKET_SECRET`): through the SDK over Node's own WebSocket (which reports
 * a refused upgrade with an error and no close) and over `ws`. Each refusal is a close code and
 * reason right after the upgrade, `whenJoined()` rejects with it, and only a throttled join is
 * tried again, no sooner than asked.
 */
import { createServer, type AddressInfo } from "node:net";
import { connect, jsonDialect, JoinError, type CloseInfo, type ConnectOptions, type ReconnectingInfo, type RoomConnection, type WebSocketConstructor } from "@tikron/client";
import { mintRoomTicket } from "@tikron/cloudflare/ticket";
import { CloseCode } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startWranglerDev, type WranglerDevServer } from "./harness/wranglerDev";

const SECRET = "refusals-ticket-secret-0123456789";
let prod: WranglerDevServer;
const conns: RoomConnection[] = [];
const raw: WebSocket[] = [];

beforeAll(async () => {
  prod = await startWranglerDev({ config: "wrangler.jsonc", vars: { TICKET_SECRET: SECRET } });
  // The first room request of a fresh workerd can be slow on a loaded machine: have one room
  // object answer before anything is timed.
  const warm = connect(prod.url, { kind: "agar", room: "warmup", ticket: await ticket("warmup", "warm"), connectTimeoutMs: 60_000 });
  conns.push(warm);
  await warm.whenJoined();
  warm.close();
}, 180_000);

afterAll(async () => {
  for (const c of conns) c.close();
  for (const ws of raw) ws.terminate();
  await prod?.stop();
});

const ticket = (roomId: string, playerId: string, kind = "agar") => mintRoomTicket({ secret: SECRET, kind, roomId, playerId, ttlSeconds: 300 });

/** `ws`'s WebSocket sending an `Origin`, as a browser page on that origin would. */
function wsWithOrigin(origin: string): WebSocketConstructor {
  return class extends WebSocket {
    constructor(url: string) {
      super(url, { origin });
    }
  } as unknown as WebSocketConstructor;
}

const IMPLS: [string, WebSocketConstructor | undefined][] = [
  ["Node's WebSocket", undefined],
  ["ws", WebSocket as unknown as WebSocketConstructor],
];

/** Joins through the SDK and reports how the join ended: its error, how long it took, and every close and retry on the way. */
async function refusedJoin(options: ConnectOptions) {
  const conn = connect(prod.url, { reconnect: { baseMs: 50, maxMs: 100 }, ...options });
  conns.push(conn);
  const closes: CloseInfo[] = [];
  const retries: ReconnectingInfo[] = [];
  conn.on("close", (c) => closes.push(c));
  conn.on("reconnecting", (r) => retries.push(r));
  const t0 = performance.now();
  const error = await conn.whenJoined().then(
    () => null,
    (e: unknown) => e,
  );
  const ms = performance.now() - t0;
  // Anything retried would show up here.
  await new Promise((r) => setTimeout(r, 300));
  return { conn, error, ms, closes, retries };
}

describe("refused joins reach the client as close codes (production config)", () => {
  for (const [label, WebSocketImpl] of IMPLS) {
    it(`a join with no ticket rejects whenJoined within 1 s with unauthorized, and is not retried (${label})`, async () => {
      const r = await refusedJoin({ kind: "agar", room: "noticket", WebSocketImpl });
      expect(r.error).toBeInstanceOf(JoinError);
      expect(r.error).toMatchObject({ code: "unauthorized", closeCode: CloseCode.unauthorized, reason: "a room ticket is required (?ticket=)" });
      expect(r.ms).toBeLessThan(1000);
      expect(r.closes).toEqual([{ code: CloseCode.unauthorized, reason: "a room ticket is required (?ticket=)", willReconnect: false, deliberate: false }]);
      expect(r.retries).toEqual([]);
      expect(r.conn.status).toBe("closed");
    });
  }

  it("a forged or wrong-room ticket is unauthorized, an unknown kind not_found, a foreign page origin forbidden; none is retried", async () => {
    const forged = await mintRoomTicket({ secret: "not-the-gateway-secret-42", kind: "agar", roomId: "r1", playerId: "eve", ttlSeconds: 60 });
    const cases: [string, ConnectOptions, string, RegExp][] = [
      ["forged ticket", { kind: "agar", room: "r1", ticket: forged }, "unauthorized", /signature/],
      ["wrong room", { kind: "agar", room: "r2", ticket: await ticket("r1", "alice") }, "unauthorized", /another room/],
      ["unknown kind", { kind: "chess", room: "r1", ticket: await ticket("r1", "alice") }, "not_found", /unknown room kind/],
      ["foreign origin", { kind: "agar", room: "r1", ticket: await ticket("r1", "alice"), WebSocketImpl: wsWithOrigin("https://evil.example") }, "forbidden", /origin/],
    ];
    for (const [what, options, code, reason] of cases) {
      const r = await refusedJoin(options);
      expect(r.error, what).toMatchObject({ name: "JoinError", code, reason: expect.stringMatching(reason) });
      expect(r.ms, what).toBeLessThan(1000);
      expect(r.closes.length, what).toBe(1);
      expect(r.retries, what).toEqual([]);
    }
  });

  it("a full room rejects the join with room_full; a throttled join is retried after its wait and then joins", async () => {
    // ttt-json seats two.
    const seated = await Promise.all(["x", "o"].map(async (p) => connect(prod.url, { kind: "ttt-json", json: jsonDialect, room: "full1", ticket: await ticket("full1", p, "ttt-json") })));
    conns.push(...seated);
    await Promise.all(seated.map((c) => c.whenJoined()));
    const full = await refusedJoin({ kind: "ttt-json", json: jsonDialect, room: "full1", ticket: await ticket("full1", "third", "ttt-json") });
    expect(full.error).toMatchObject({ code: "room_full", closeCode: CloseCode.room_full });
    expect(full.ms).toBeLessThan(1000);
    expect(full.retries).toEqual([]);

    // One caller may have 8 sockets waiting for their hello; the room refuses the 9th before
    // the upgrade (429), and the Worker closes it with join_throttled and the room's wait.
    const t = await ticket("busy1", "mallory");
    const url = `${prod.wsUrl}/rooms/agar/busy1?ticket=${t}`;
    const silent = Array.from({ length: 8 }, () => new WebSocket(url));
    raw.push(...silent);
    await Promise.all(silent.map((ws) => new Promise((r) => ws.once("open", r))));
    const conn = connect(prod.url, { kind: "agar", room: "busy1", ticket: t, reconnect: { baseMs: 50, maxMs: 100, maxAttempts: 20 } });
    conns.push(conn);
    const retries: ReconnectingInfo[] = [];
    conn.on("reconnecting", (r) => retries.push(r));
    // The silent sockets are closed by the room's hello timeout (3 s); then the join goes through.
    await conn.whenJoined();
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ code: CloseCode.join_throttled, reason: expect.stringMatching(/^retry in \d+ ms: /) });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    for (const r of retries) expect(r.code).toBe(CloseCode.join_throttled);
  });

  it("a request without an upgrade keeps its HTTP status", async () => {
    expect((await fetch(`${prod.url}/rooms/agar/r1`)).status).toBe(401);
    expect((await fetch(`${prod.url}/rooms/chess/r1?ticket=${await ticket("r1", "alice")}`)).status).toBe(404);
  });

  it("a server that is down is a drop at once, not a connect timeout (Node's WebSocket)", async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const conn = connect(`ws://127.0.0.1:${port}`, { kind: "agar", room: "r1", reconnect: { baseMs: 5000, maxMs: 5000 } });
    conns.push(conn);
    const t0 = performance.now();
    const close = await new Promise<CloseInfo>((r) => conn.once("close", r));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(close).toMatchObject({ code: 1006, willReconnect: true });
  });
});
