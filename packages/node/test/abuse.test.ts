/**
 * The Node host under abuse, with the production rules (tickets required, an admin token): big
 * and endless bodies on every body-taking route refused 413 before they are read, a rate-limited
 * caller answered before its body is read, a join or match request naming two players refused
 * unauthorized, an upgrade flood counted by cause and answered plain past its address's budget,
 * and a frame over `ws`'s limit counted as an oversized frame — each next to an honest player
 * who stays seated and acked.
 */
import { gameDefinitions } from "@tikron/games";
import { REFUSAL_UPGRADE_BURST, REFUSAL_UPGRADE_PER_SEC } from "@tikron/core";
import { ANY_ROOM, mintRoomTicket } from "@tikron/core/ticket";
import { CloseCode, type AdminRefusals } from "@tikron/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { refusedUnread, sendBody } from "../../../test/hostile/bodies";
import { upgradeFlood } from "../../../test/hostile/flood";
import { HonestPlayer } from "../../../test/hostile/honest";
import { serveRooms, type RoomServer } from "../src";

const SECRET = "node-abuse-secret-0123456789abcdef";
const TOKEN = "node-abuse-admin-token-0123456789";
const MAX_PAYLOAD = 64 * 1024;
let server: RoomServer;
let honest: HonestPlayer;

const ticket = (playerId: string, roomId: string = ANY_ROOM) => mintRoomTicket({ secret: SECRET, kind: "agar", roomId, playerId, ttlSeconds: 600 });
const bearer = async (playerId: string) => ({ authorization: `Bearer ${await ticket(playerId)}` });

beforeAll(async () => {
  server = await serveRooms({ games: gameDefinitions, devMode: false, ticketSecret: SECRET, adminToken: TOKEN, maxPayloadBytes: MAX_PAYLOAD });
  honest = new HonestPlayer(`${server.url}/rooms/agar/honest?ticket=${await ticket("honest", "honest")}`, "honest");
  expect(await honest.join()).toBe("joined");
  honest.steer();
});
afterAll(async () => {
  honest?.leave();
  await server?.close();
});

/** The honest player is still seated and its inputs are still acked. */
async function honestStillPlays(): Promise<void> {
  const before = honest.ackMs.length;
  await new Promise((r) => setTimeout(r, 300));
  expect(honest.closeCode).toBe(0);
  expect(honest.ackMs.length).toBeGreaterThan(before);
}

describe("bodies on the Node host", () => {
  it("refuses 4 parallel 64 MiB declared bodies and endless chunked ones on every body-taking route 413, before reading them", async () => {
    const routes: [string, Record<string, string>][] = [
      [`${server.httpUrl}/match/agar`, await bearer("b1")],
      [`${server.httpUrl}/match/agar/queue`, await bearer("b2")],
      [`${server.httpUrl}/match/agar/party`, await bearer("b3")],
      [`${server.httpUrl}/match/agar/party/ABCDE12345`, await bearer("b4")],
      [`${server.httpUrl}/match/agar/party/ABCDE12345/start?member=${"m".repeat(22)}`, await bearer("b5")],
      [`${server.httpUrl}/admin/api/rooms/agar/honest/notice`, { authorization: `Bearer ${TOKEN}` }],
    ];
    for (const [url, headers] of routes) {
      const declared = await Promise.all(Array.from({ length: 4 }, () => sendBody(url, { headers, declared: 64 * 1024 * 1024, timeoutMs: 10_000 })));
      const endless = await Promise.all(Array.from({ length: 4 }, () => sendBody(url, { headers, total: 64 * 1024 * 1024, timeoutMs: 10_000 })));
      for (const p of [...declared, ...endless]) {
        // Answered long before the body was through (at most what the socket buffers took), or
        // reset while still sending: closing a connection with a body left unread resets it,
        // which can drop the answer itself.
        expect(refusedUnread(p, 413, 16 * 1024 * 1024), `${url}: ${JSON.stringify(p)}`).toBe(true);
        if (p.status !== 0) expect(p.code).toBe("too_large");
      }
      expect([...declared, ...endless].filter((p) => p.status === 413).length, url).toBeGreaterThan(4);
    }
    await honestStillPlays();
  });

  it("answers a caller the matchmaker rate-limited before reading its next body", async () => {
    const headers = await bearer("hasty");
    let limited = 0;
    for (let i = 0; i < 30 && limited === 0; i++) {
      const r = await fetch(`${server.httpUrl}/match/agar?ignored=${i}`, { method: "POST", headers, body: '{"mode":"join"}' });
      if (r.status === 429) limited++;
      await r.arrayBuffer();
    }
    expect(limited).toBe(1);
    // The next one, with an endless body: answered 429 without the body being read.
    const p = await sendBody(`${server.httpUrl}/match/agar`, { headers, total: 64 * 1024 * 1024, timeoutMs: 10_000 });
    expect(refusedUnread(p, 429, 16 * 1024 * 1024), JSON.stringify(p)).toBe(true);
    await honestStillPlays();
  });
});

describe("one identity per join and per match request", () => {
  it("refuses a reservation presented with another player's ticket, unauthorized with the reason; the same player's ticket is fine", async () => {
    const res = await fetch(`${server.httpUrl}/match/agar`, { method: "POST", headers: await bearer("alice"), body: "{}" });
    expect(res.status).toBe(200);
    const seat = (await res.json()) as { roomId: string; url: string };
    const mallory = await ticket("mallory", seat.roomId);
    const refused = await closeOf(`${seat.url}&ticket=${mallory}`);
    expect(refused).toMatchObject({ code: CloseCode.unauthorized, reason: expect.stringMatching(/held for another player/) });
    const refusedBearer = await closeOf(seat.url, { authorization: `Bearer ${mallory}` });
    expect(refusedBearer).toMatchObject({ code: CloseCode.unauthorized });
    // Alice's own ticket next to her reservation takes her seat.
    expect(await closeOf(`${seat.url}&ticket=${await ticket("alice", seat.roomId)}`)).toEqual({ open: true });
  });

  it("refuses a match request carrying two players' credentials, unauthorized with the reason", async () => {
    const r = await fetch(`${server.httpUrl}/match/agar?ticket=${await ticket("mallory")}`, { method: "POST", headers: await bearer("alice"), body: "{}" });
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ code: "unauthorized", reason: expect.stringMatching(/two credentials/) });
  });
});

describe("refused upgrades on the Node host", () => {
  it("counts a flood without a credential by cause, closes the first ones and answers the rest plain 401; the honest player plays on", async () => {
    const before = await refusals();
    const flood = await upgradeFlood({ url: () => `${server.url}/rooms/agar/honest`, count: 150, durationMs: 1_000 });
    expect(flood.sent).toBe(150);
    const closed = flood.closes[CloseCode.unauthorized] ?? 0;
    const plain = flood.statuses[401] ?? 0;
    expect(closed + plain).toBe(150);
    expect(closed).toBeGreaterThanOrEqual(1);
    // The budget, plus what came back of it while the flood ran.
    expect(closed).toBeLessThanOrEqual(REFUSAL_UPGRADE_BURST + Math.ceil((REFUSAL_UPGRADE_PER_SEC * flood.wallMs) / 1000) + 1);
    const after = await refusals();
    expect(after.byCause.no_credential - before.byCause.no_credential).toBe(150);
    expect(after.plain - before.plain).toBe(plain);
    await honestStillPlays();
  });

  it("counts a frame over ws's limit as an oversized frame and frees the seat", async () => {
    const url = `${server.url}/rooms/agar/big?ticket=${await ticket("big", "big")}`;
    const p = new HonestPlayer(url, "big");
    expect(await p.join()).toBe("joined");
    const ws = new WebSocket(`${server.url}/rooms/agar/big?ticket=${await ticket("mallory", "big")}`);
    await new Promise((r) => ws.once("open", r));
    const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
    ws.on("error", () => {});
    ws.send(Buffer.alloc(MAX_PAYLOAD + 1));
    expect(await closed).toBe(1009);
    await new Promise((r) => setTimeout(r, 100));
    const stats = server.room("agar", "big")!.snapshot();
    expect(stats.errors.frame_too_large).toBe(1);
    expect(stats.seats).toBe(1);
    p.leave();
    await honestStillPlays();
  });
});

async function refusals(): Promise<AdminRefusals> {
  const r = await fetch(`${server.httpUrl}/admin/api/refusals`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  return (await r.json()) as AdminRefusals;
}

/** Opens a socket: closed at once (its code and reason), or open 300 ms later. */
function closeOf(url: string, headers: Record<string, string> = {}): Promise<{ open: true } | { code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("open", () => {
      const timer = setTimeout(() => {
        resolve({ open: true });
        ws.terminate();
      }, 300);
      ws.once("close", (code, reason) => {
        clearTimeout(timer);
        resolve({ code, reason: reason.toString() });
      });
    });
    ws.once("error", reject);
  });
}
