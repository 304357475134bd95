/**
 * The gateway under abuse, in the Worker's own code (Node stands in for workerd): bodies bounded
 * before they are read, a join naming two players refused, refusals counted by cause (the admin
 * API, an Analytics Engine point per interval) and answered plain past an address's budget, and
 * the runtime's refusal of an oversized frame recognised.
 */
import type { GameDefinition } from "@tikron/core";
import { REFUSAL_UPGRADE_BURST, REFUSAL_UPGRADE_PER_SEC } from "@tikron/core";
import { ANY_ROOM, mintRoomTicket } from "@tikron/core/ticket";
import { CloseCode, REFUSAL_CAUSES, type AdminRefusals } from "@tikron/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { routeGatewayRequest, type GatewayEnv } from "../src/gateway";
import { GATEWAY_METRICS_KIND, REFUSAL_DOUBLES, type AnalyticsDataPoint } from "../src/metricsDataPoint";
import { readRoomMeta } from "../src/roomRequest";
import { isOversizedFrame } from "../src/socketApis";

// Node has no WebSocketPair and no 101 responses: a refused upgrade shows up here as the close it would get.
vi.mock("../src/upgradeRefusal", () => ({
  closedUpgrade: (code: number, reason: string) => new Response(reason, { status: 200, headers: { "x-test-closed-with": String(code) } }),
}));

const SECRET = "gateway-abuse-secret-0123456789";
const TOKEN = "gateway-abuse-admin-token-0123456789";
const BASE = "https://play.example.com";
const games = { agar: { kind: "agar", defaults: {}, create: () => null as never } } satisfies Record<string, GameDefinition>;

function env(vars: Record<string, unknown> = {}) {
  const rooms: { name: string; request: Request }[] = [];
  const matchCalls: string[] = [];
  const points: AnalyticsDataPoint[] = [];
  const ROOMS = {
    idFromName: (name: string) => ({ name }),
    get: (id: { name: string }) => ({ fetch: async (request: Request) => (rooms.push({ name: id.name, request }), new Response("routed")) }),
  };
  let answer: () => unknown = () => ({ roomId: "r1", token: "tok", expiresAt: 1, created: false });
  const MATCHMAKER = {
    idFromName: (name: string) => ({ name }),
    get: () => new Proxy({}, { get: (_t, method: string) => async () => (matchCalls.push(method), answer()) }),
  };
  const METRICS = { writeDataPoint: (p: AnalyticsDataPoint) => points.push(p) };
  const e = { ROOMS, MATCHMAKER, METRICS, DEV_MODE: "false", TICKET_SECRET: SECRET, ADMIN_TOKEN: TOKEN, ...vars } as unknown as GatewayEnv;
  return { env: e, rooms, matchCalls, points, answerWith: (f: () => unknown) => (answer = f) };
}

const ticket = (playerId: string, roomId: string, seat?: string) => mintRoomTicket({ secret: SECRET, kind: "agar", roomId, playerId, ttlSeconds: 60, ...(seat ? { seat } : {}) });
const upgrade = (ip: string, extra: Record<string, string> = {}) => ({ Upgrade: "websocket", "CF-Connecting-IP": ip, ...extra });
const closedWith = (res: Response) => Number(res.headers.get("x-test-closed-with") ?? 0);
const route = (e: ReturnType<typeof env>, path: string, init: RequestInit = {}) => routeGatewayRequest(new Request(BASE + path, init), e.env, games);

async function refusals(e: ReturnType<typeof env>): Promise<AdminRefusals> {
  const res = await route(e, "/admin/api/refusals", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as AdminRefusals;
}

afterEach(() => vi.useRealTimers());

describe("gateway: one identity per join", () => {
  it("refuses a reservation sent with another player's ticket (query or Bearer), unauthorized with the reason, before any object", async () => {
    const e = env();
    const res = await ticket("alice", "r1", "seat-0123456789abcdef");
    const mallory = await ticket("mallory", "r1");
    const a = await route(e, `/rooms/agar/r1?reservation=${res}&ticket=${mallory}`, { headers: upgrade("198.51.100.7") });
    expect(closedWith(a)).toBe(CloseCode.unauthorized);
    expect(await a.text()).toMatch(/held for another player/);
    const b = await route(e, `/rooms/agar/r1?reservation=${res}`, { headers: upgrade("198.51.100.7", { authorization: `Bearer ${mallory}` }) });
    expect(closedWith(b)).toBe(CloseCode.unauthorized);
    expect(e.rooms).toEqual([]);
    // Alice's own ticket beside her reservation: her seat.
    const own = await route(e, `/rooms/agar/r1?reservation=${res}&ticket=${await ticket("alice", "r1")}`, { headers: upgrade("198.51.100.7") });
    expect(closedWith(own)).toBe(0);
    expect(readRoomMeta(e.rooms[0]!.request.headers)).toMatchObject({ playerId: "alice", reservation: "seat-0123456789abcdef" });
    expect((await refusals(e)).byCause.two_identities).toBeGreaterThanOrEqual(2);
  });
});

describe("gateway: refusals counted by cause, plain past the budget", () => {
  it("closes an address's first refused upgrades and answers the rest plain 401; another address keeps its own budget", async () => {
    const e = env();
    const before = await refusals(e);
    const closes: number[] = [];
    const t0 = Date.now();
    for (let i = 0; i < REFUSAL_UPGRADE_BURST + 30; i++) {
      const res = await route(e, "/rooms/agar/r1", { headers: upgrade("203.0.113.50") });
      closes.push(closedWith(res) || res.status);
    }
    // The burst is closes; after it, plain 401s but for the budget that came back while the loop
    // ran (REFUSAL_UPGRADE_PER_SEC: a loaded machine runs the loop for a second or more).
    const refilled = Math.ceil(((Date.now() - t0) / 1000) * REFUSAL_UPGRADE_PER_SEC) + 1;
    const closed = closes.filter((c) => c === CloseCode.unauthorized).length;
    expect(closes.slice(0, REFUSAL_UPGRADE_BURST).every((c) => c === CloseCode.unauthorized)).toBe(true);
    expect(closed - REFUSAL_UPGRADE_BURST).toBeLessThanOrEqual(refilled);
    expect(closed).toBeLessThan(REFUSAL_UPGRADE_BURST + 30);
    expect(closes.every((c) => c === CloseCode.unauthorized || c === 401)).toBe(true);
    expect(closedWith(await route(e, "/rooms/agar/r1", { headers: upgrade("203.0.113.51") }))).toBe(CloseCode.unauthorized);
    // A wrong-room ticket and an unknown kind are counted under their own causes.
    const other = await ticket("bob", "r2");
    await route(e, `/rooms/agar/r1?ticket=${other}`, { headers: upgrade("203.0.113.52") });
    await route(e, `/rooms/nope/r1?ticket=${other}`, { headers: upgrade("203.0.113.52") });
    const after = await refusals(e);
    expect(after.byCause.no_credential - before.byCause.no_credential).toBe(REFUSAL_UPGRADE_BURST + 31);
    expect(after.byCause.wrong_room - before.byCause.wrong_room).toBe(1);
    expect(after.byCause.not_found - before.byCause.not_found).toBe(1);
    expect(after.plain - before.plain).toBe(REFUSAL_UPGRADE_BURST + 30 - closed);
  });

  it("writes the isolate's refusals to Analytics Engine once per metrics interval", async () => {
    // An hour on: the first request writes what the earlier tests' refusals left in the interval.
    vi.useFakeTimers({ now: Date.now() + 3_600_000, toFake: ["Date"] });
    const e = env({ METRICS_INTERVAL_SECONDS: "60" });
    await route(e, "/health");
    expect(e.points).toHaveLength(1);
    await route(e, "/rooms/agar/r1", { headers: upgrade("192.0.2.1") });
    await route(e, "/rooms/agar/r1", { headers: upgrade("192.0.2.1") });
    await route(e, "/health");
    expect(e.points).toHaveLength(1);
    vi.setSystemTime(Date.now() + 61_000);
    await route(e, "/health");
    expect(e.points).toHaveLength(2);
    const point = e.points[1]!;
    expect(point.indexes).toEqual([GATEWAY_METRICS_KIND]);
    expect(point.blobs).toEqual([GATEWAY_METRICS_KIND, "refusals"]);
    expect(point.doubles).toHaveLength(REFUSAL_DOUBLES.length);
    expect(point.doubles[REFUSAL_CAUSES.indexOf("no_credential")]).toBe(2);
    expect(point.doubles.at(-1)).toBeGreaterThanOrEqual(61_000);
    // Nothing refused in an interval: no point.
    vi.setSystemTime(Date.now() + 61_000);
    await route(e, "/health");
    expect(e.points).toHaveLength(2);
  });
});

describe("gateway: bodies bounded before they are read", () => {
  /** A body that records pulls and whether it was cancelled; `endless`: never ends. */
  function body(endless: boolean) {
    const seen = { pulled: 0, cancelled: false };
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          seen.pulled++;
          if (endless || seen.pulled === 1) c.enqueue(new Uint8Array(64 * 1024).fill(0x20));
          else c.close();
        },
        cancel() {
          seen.cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, seen };
  }
  const post = (e: ReturnType<typeof env>, path: string, headers: Record<string, string>, stream: ReadableStream<Uint8Array>) =>
    route(e, path, { method: "POST", headers, body: stream, duplex: "half" } as RequestInit);

  const MEMBER = `?member=${"m".repeat(22)}`;
  /** Every match path that takes a body: a match, the queue, a party's make, join and start. */
  const MATCH_BODY_PATHS = ["/match/agar", "/match/agar/queue", "/match/agar/party", "/match/agar/party/ABCDE12345", `/match/agar/party/ABCDE12345/start${MEMBER}`];

  it("refuses a declared 64 MiB body on the match, queue, party and admin action paths 413 without reading it", async () => {
    const e = env();
    const auth = { authorization: `Bearer ${await ticket("alice", ANY_ROOM)}`, "content-length": String(64 * 1024 * 1024) };
    const paths: [string, Record<string, string>][] = [...MATCH_BODY_PATHS.map((p): [string, Record<string, string>] => [p, auth]), ["/admin/api/rooms/agar/r1/notice", { authorization: `Bearer ${TOKEN}`, "content-length": String(64 * 1024 * 1024) }]];
    for (const [path, headers] of paths) {
      const b = body(true);
      const res = await post(e, path, headers, b.stream);
      expect(res.status, path).toBe(413);
      expect(((await res.json()) as { code: string }).code).toBe("too_large");
      expect(b.seen.pulled, path).toBe(0);
    }
    expect(e.matchCalls).toEqual([]);
  });

  it("reads an endless body without a length only to the bound, cancels it, and refuses it 413", async () => {
    const e = env();
    const alice = `Bearer ${await ticket("alice", ANY_ROOM)}`;
    for (const [path, auth] of [...MATCH_BODY_PATHS.map((p) => [p, alice] as const), ["/admin/api/rooms/agar/r1/kick", `Bearer ${TOKEN}`] as const]) {
      const b = body(true);
      const res = await post(e, path, { authorization: auth }, b.stream);
      expect(res.status, path).toBe(413);
      expect(b.seen.cancelled, path).toBe(true);
      expect(b.seen.pulled, path).toBeLessThanOrEqual(2);
    }
    expect(e.matchCalls).toEqual([]);
  });

  it("does not read the body of a caller it refuses, nor of one its matchmaker told to wait moments ago", async () => {
    const e = env();
    const stranger = body(true);
    expect((await post(e, "/match/agar", {}, stranger.stream)).status).toBe(401);
    expect(stranger.seen.pulled).toBe(0);
    e.answerWith(() => ({ code: "rate_limited", reason: "slow down", retryAfterMs: 5_000 }));
    const auth = { authorization: `Bearer ${await ticket("hasty", ANY_ROOM)}` };
    expect((await route(e, "/match/agar", { method: "POST", headers: auth, body: "{}" })).status).toBe(429);
    const next = body(true);
    const res = await post(e, "/match/agar", auth, next.stream);
    expect(res.status).toBe(429);
    expect(next.seen.pulled).toBe(0);
    expect(e.matchCalls).toEqual(["match"]);
  });
});

describe("the runtime's refusal of an oversized frame", () => {
  it("is recognised from workerd's error event or error", () => {
    const text = "WebSocket protocol error; protocolError.statusCode = 1009; protocolError.description = Message is too large: 34603008 > 33554432";
    expect(isOversizedFrame({ message: `Uncaught Error: ${text}`, error: new Error(text) })).toBe(true);
    expect(isOversizedFrame(new Error(text))).toBe(true);
    expect(isOversizedFrame(new Error("WebSocket peer disconnected"))).toBe(false);
    expect(isOversizedFrame(undefined)).toBe(false);
  });
});
