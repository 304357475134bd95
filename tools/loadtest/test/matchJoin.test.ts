/**
 * The matched players' join flow against a fake matchmaker in front of real rooms on the Node
 * host: match tickets, retries after retryable refusals, final refusals, answers that are
 * neither, rooms learnt from the answers, and the figures read from the fake's directory.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { ANY_ROOM, verifyRoomTicket } from "@tikron/cloudflare/ticket";
import type { RoomServer } from "@tikron/node";
import { afterEach, describe, expect, it } from "vitest";
import { runLoad } from "../src/index";
import { startRooms } from "./nodeRooms";

const SECRET = "a-test-secret-of-some-length";

/** What the fake answers player i's n-th request (n from 0). */
type Script = (player: number, n: number) => { status: number; body: unknown };

const seat = (roomId: string, created: boolean) => ({
  status: 200,
  // The seat names the room; the rooms here take a DEV_MODE join, so no reservation is needed.
  body: { kind: "agar", roomId, reservation: "r", url: `ws://elsewhere.invalid:1/rooms/agar/${roomId}?cap=2`, expiresAt: Date.now() + 10_000, created },
});
const refuse = (code: string, status: number, retryAfterMs?: number) => ({ status, body: { code, reason: code, ...(retryAfterMs ? { retryAfterMs } : {}) } });

/** A matchmaker that answers by script, lists a made-up directory, and forwards the rest to the rooms. */
async function fakeMatchmaker(rooms: RoomServer, script: Script, directory: { roomId: string; clients: number; reserved: number; maxClients: number }[]): Promise<{ url: string; server: Server; requests: { player: number; query: string }[] }> {
  const requests: { player: number; query: string }[] = [];
  const seen = new Map<number, number>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" }).end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (url.pathname === "/match/agar/stats") {
      return send(200, [
        {
          requests: { match: requests.length },
          seated: 3,
          roomsCreated: 2,
          roomRefusals: 0,
          refused: {},
          rooms: 3,
          queued: 0,
          groups: 0,
          decision: { count: 3, p50: 1, p95: 2, p99: 3, max: 3 },
          directory,
        },
      ]);
    }
    if (url.pathname === "/match/agar/rooms") return send(200, []);
    if (url.pathname === "/match/agar" && req.method === "POST") {
      const auth = req.headers.authorization ?? "";
      const verdict = await verifyRoomTicket(auth.replace(/^Bearer /, ""), { secret: SECRET, kind: "agar", roomId: ANY_ROOM });
      if (!verdict.ok) return send(401, { code: "unauthorized", reason: verdict.reason });
      const player = Number(verdict.claims.playerId.split("-").at(-1));
      const n = seen.get(player) ?? 0;
      seen.set(player, n + 1);
      requests.push({ player, query: url.search });
      const a = script(player, n);
      return send(a.status, a.body);
    }
    // Room stats: the real rooms'.
    const real = await fetch(`${rooms.httpUrl}${url.pathname}`);
    send(real.status, await real.text());
  });
  // Room sockets go to the real rooms, byte for byte.
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const up = connect(rooms.port, "127.0.0.1", () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join("\r\n")}\r\n\r\n`);
      up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on("error", () => socket.destroy());
    socket.on("error", () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

let rooms: RoomServer | null = null;
let fake: Server | null = null;
afterEach(async () => {
  fake?.closeAllConnections();
  await new Promise((r) => (fake ? fake.close(r) : r(undefined)));
  await rooms?.close();
  rooms = fake = null;
});

describe("matched players against a fake matchmaker", () => {
  it("retry what the matchmaker says to retry, give up on the rest, and join the rooms it names", { timeout: 30_000 }, async () => {
    rooms = await startRooms();
    // Room ids are fresh per run (the Node host keeps rooms for the test's life).
    const tag = Math.random().toString(36).slice(2, 8);
    const [A, B] = [`A${tag}`, `B${tag}`];
    const script: Script = (player, n) => {
      switch (player) {
        case 0:
          return seat(A, true);
        case 1:
          return n === 0 ? refuse("unavailable", 503, 30) : seat(A, false);
        case 2:
          return refuse("rate_limited", 429, 20);
        case 3:
          return refuse("no_room", 404);
        case 4:
          return { status: 500, body: "internal" };
        default:
          return seat(B, true);
      }
    };
    // The directory the fake lists: A above its cap (a bug the run must see however the room
    // counts it), B partly filled, and another run's room Z, none of this run's business.
    const f = await fakeMatchmaker(rooms, script, [
      { roomId: A, clients: 3, reserved: 0, maxClients: 2 },
      { roomId: B, clients: 1, reserved: 0, maxClients: 2 },
      { roomId: `Z${tag}`, clients: 9, reserved: 0, maxClients: 2 },
    ]);
    fake = f.server;
    const r = await runLoad(
      { url: f.url, players: 1, rooms: 1, match: true, arrivalRate: 10, arrivals: 6, durationSec: 2, query: "cap=2", statsEverySec: 0, name: "fake-mm" },
      { tickets: { mode: "secret", secret: SECRET } },
    );
    const s = r.summary;
    // Every request carried the run's DEV_MODE overrides and a match ticket (checked by the fake).
    expect(f.requests.every((q) => q.query === "?cap=2")).toBe(true);
    expect(f.requests.filter((q) => q.player === 2)).toHaveLength(4);
    expect(s.match).toMatchObject({
      requests: 1 + 2 + 4 + 1 + 1 + 1,
      seats: 3,
      refusals: 1 + 4 + 1,
      retries: 1 + 3,
      refused: { unavailable: 1, rate_limited: 4, no_room: 1 },
      unmatched: 3,
      unmatchedReasons: { rate_limited: 1, no_room: 1, http_500: 1 },
      roomsUsed: 2,
      roomsCreated: 2,
      matchmaker: { shards: 1, decisionP99Ms: 3 },
    });
    expect(s.clients).toEqual({ planned: 6, joined: 3, refused: 0, throttled: 0, failed: 3 });
    expect(s.failureReasons).toEqual({ "match:rate_limited": 1, "match:no_room": 1, "match:http_500": 1 });
    expect(r.rooms.map((x) => [x.roomId, x.counters.joined, x.counters.matchCreated])).toEqual([
      [A, 2, 1],
      [B, 1, 1],
    ]);
    expect(s.seatedMs?.count).toBe(3);
    // Player 1 waited out the 30 ms the refusal asked for before its seat.
    expect(s.seatedMs!.max).toBeGreaterThanOrEqual(30);
    expect(s.unexpectedCloses).toBe(0);
    expect(s.inputs.sent).toBeGreaterThan(0);
    expect(s.inputs.acked).toBe(s.inputs.sent);
    // Sampled right after the last arrival: of the run's two rooms one is full (A, over even), one partly.
    expect(s.match?.fill).toMatchObject({ rooms: 2, full: 1, partlyFilled: 1, fillPct: 50 });
    // The rooms' own tk:stats, read over HTTP: A seated 2 of its cap of 2, B 1.
    expect(r.rooms.map((x) => (x.tkStats?.stats as { peakCcu: number; cap: number }).peakCcu)).toEqual([2, 1]);
    // The room says it held its cap; the directory showed one seat above it: the run reports 1.
    expect(s.match?.overCap).toBe(1);
    expect(s.match?.reservations).toEqual({ expired: 0, invalid: 0, pendingAtEnd: 0, lost: 0 });
  });
});
