import { matchError, routeMatchPath, type MatchError, type MatchRoute } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { RateLimitMemory, serveMatchRoute, type BodySource, type Caller, type MatchBackend, type MatchCall, type ReservedSeat } from "../../src/match";
import type { PartyAnswer } from "../../src/match/parties";

const enc = new TextEncoder();
const SEAT: ReservedSeat = { roomId: "r1", token: "tok", expiresAt: 1, created: false };
const PARTY: PartyAnswer = { code: "ABCDE12345", member: "m".repeat(22), version: 1, state: "open", members: [], maxSize: 8, expiresAt: 1 };
const CODE = "ABCDE12345";
const MEMBER = `?member=${"m".repeat(22)}`;
/** Every path that takes a body, with its method. */
const BODY_PATHS = [
  ["/match/agar", "POST"],
  ["/match/agar/queue", "POST"],
  ["/match/agar/party", "POST"],
  [`/match/agar/party/${CODE}`, "POST"],
  [`/match/agar/party/${CODE}/start${MEMBER}`, "POST"],
] as const;

/** A body that records whether anything pulled it. */
function body(text: string | null, contentLength: string | null = text === null ? null : String(enc.encode(text).length)): BodySource & { pulled: () => number } {
  let pulled = 0;
  const stream =
    text === null
      ? new ReadableStream<Uint8Array>({
          pull(c) {
            pulled++;
            c.enqueue(new Uint8Array(4096));
          },
        }, { highWaterMark: 0 })
      : new ReadableStream<Uint8Array>({
          pull(c) {
            pulled++;
            c.enqueue(enc.encode(text));
            c.close();
          },
        }, { highWaterMark: 0 });
  // No eager pull (a stream's default high-water mark pulls one chunk at once): every pull is a read.
  return { contentLength, body: stream, pulled: () => pulled };
}

function backend(answer: () => ReservedSeat | MatchError = () => SEAT) {
  const calls: string[] = [];
  const party = (op: string) => async (): Promise<PartyAnswer | MatchError> => {
    calls.push(op);
    const out = answer();
    return "code" in out && "reason" in out ? out : PARTY;
  };
  const b: MatchBackend = {
    match: async () => (calls.push("match"), answer()),
    joinById: async () => (calls.push("joinById"), answer()),
    queue: async () => (calls.push("queue"), answer()),
    cancel: async () => (calls.push("cancel"), true),
    rooms: async () => (calls.push("rooms"), []),
    stats: async () => (calls.push("stats"), []),
    partyCreate: party("partyCreate"),
    partyJoin: party("partyJoin"),
    partyWatch: party("partyWatch"),
    partyStart: party("partyStart"),
    partyLeave: async () => (calls.push("partyLeave"), true),
    partyCancel: async () => (calls.push("partyCancel"), true),
  };
  return { b, calls };
}

const alice: Caller = { identity: "alice", verified: true, rateKey: "alice" };

function call(path: string, method: string, b: BodySource, extra: Partial<MatchCall> = {}, who: Caller | MatchError = alice) {
  const asked = { caller: 0 };
  const c: MatchCall = {
    route: routeMatchPath(path.split("?")[0]!, method) as MatchRoute,
    url: new URL(`https://g.example${path}`),
    devMode: false,
    wsOrigin: "wss://g.example",
    caller: async () => (asked.caller++, who),
    body: b,
    ...extra,
  };
  return { c, asked };
}

describe("serveMatchRoute: cheapest refusal first, nothing read before it must be", () => {
  it("refuses a declared 64 MiB body on any path before the caller is asked or a byte is read", async () => {
    for (const [path, method] of [...BODY_PATHS, ["/match/agar/r1", "POST"], ["/match/agar/rooms", "GET"], [`/match/agar/party/${CODE}${MEMBER}`, "GET"]] as const) {
      const big = body("{}", String(64 * 1024 * 1024));
      const { b, calls } = backend();
      const { c, asked } = call(path, method, big);
      expect(await serveMatchRoute(c, b)).toMatchObject({ status: 413, body: { code: "too_large" } });
      expect([asked.caller, big.pulled(), calls.length]).toEqual([0, 0, 0]);
    }
  });

  it("reads an endless body without a length only up to the bound, and refuses it 413, on every path that takes a body", async () => {
    for (const [path, method] of BODY_PATHS) {
      const endless = body(null);
      const { b, calls } = backend();
      const { c } = call(path, method, endless);
      expect(await serveMatchRoute(c, b), path).toMatchObject({ status: 413, body: { code: "too_large" } });
      expect(endless.pulled(), path).toBeLessThanOrEqual(5);
      expect(calls, path).toEqual([]);
    }
  });

  it("holds a party's make and join to their own limit (1024 characters: a name, a rating and 512 B of join options), its start to a match's", async () => {
    const name = (n: number) => '{"name":"ann"}' + " ".repeat(n - 14); // n characters, valid JSON
    for (const path of ["/match/agar/party", `/match/agar/party/${CODE}`]) {
      const { b, calls } = backend();
      // Declared over the party's byte bound: refused before a byte is read.
      const declared = body(name(100), String(1025 * 3));
      expect(await serveMatchRoute(call(path, "POST", declared).c, b), path).toMatchObject({ status: 413, body: { code: "too_large" } });
      expect(declared.pulled()).toBe(0);
      // Declared within it, but the text is longer than the limit.
      expect(await serveMatchRoute(call(path, "POST", body(name(1025))).c, b), path).toMatchObject({ status: 413, body: { code: "too_large" } });
      expect(calls).toEqual([]);
      expect(await serveMatchRoute(call(path, "POST", body(name(1024))).c, b), path).toMatchObject({ status: 200 });
      expect(calls).toHaveLength(1);
    }
    const { b, calls } = backend();
    const start = `/match/agar/party/${CODE}/start${MEMBER}`;
    const big = '{"mode":"joinOrCreate"}' + " ".repeat(1000);
    expect(await serveMatchRoute(call(start, "POST", body(big)).c, b)).toMatchObject({ status: 200 });
    expect(await serveMatchRoute(call(start, "POST", body("x".repeat(4097))).c, b)).toMatchObject({ status: 413, body: { code: "too_large" } });
    expect(calls.filter((op) => op === "partyStart")).toHaveLength(1);
  });

  it("answers a party request of a caller the matchmaker told to wait from the host's memory, before its body is read", async () => {
    const limits = new RateLimitMemory();
    const now = () => 1_000;
    const { b, calls } = backend(() => matchError("rate_limited", "slow down", 2_000));
    expect(await serveMatchRoute(call("/match/agar/party", "POST", body("{}"), { limits, now }).c, b)).toMatchObject({ status: 429 });
    const again = body("{}");
    expect(await serveMatchRoute(call(`/match/agar/party/${CODE}`, "POST", again, { limits, now }).c, b)).toMatchObject({ status: 429, body: { code: "rate_limited" } });
    expect([again.pulled(), calls]).toEqual([0, ["partyCreate"]]);
  });

  it("refuses a caller without reading its body", async () => {
    const sent = body('{"mode":"join"}');
    const { b, calls } = backend();
    const { c } = call("/match/agar", "POST", sent, {}, matchError("unauthorized", "no"));
    expect(await serveMatchRoute(c, b)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    expect([sent.pulled(), calls.length]).toEqual([0, 0]);
  });

  it("answers a caller the matchmaker told to wait from the host's memory, before its body is read", async () => {
    const limits = new RateLimitMemory();
    let now = 1_000;
    const { b, calls } = backend(() => matchError("rate_limited", "slow down", 2_000));
    const first = call("/match/agar", "POST", body("{}"), { limits, now: () => now });
    expect(await serveMatchRoute(first.c, b)).toMatchObject({ status: 429, body: { code: "rate_limited", retryAfterMs: 2_000 } });
    const again = body("{}");
    const second = call("/match/agar", "POST", again, { limits, now: () => (now = 2_500) });
    expect(await serveMatchRoute(second.c, b)).toMatchObject({ status: 429, body: { code: "rate_limited", retryAfterMs: 500 }, headers: { "retry-after": "1" } });
    expect([again.pulled(), calls]).toEqual([0, ["match"]]);
    // Another caller is not held back; the waited-out one is asked again.
    // (A join by id reads its body for the player's join options: an empty one here.)
    const bob = call("/match/agar/r1", "POST", body(""), { limits, now: () => now }, { identity: "bob", verified: true, rateKey: "bob" });
    await serveMatchRoute(bob.c, b);
    now = 3_001;
    await serveMatchRoute(call("/match/agar", "POST", body("{}"), { limits, now: () => now }).c, b);
    expect(calls).toEqual(["match", "joinById", "match"]);
  });

  it("refuses malformed, deeply nested and oversized bodies and huge filters with codes, never asking the backend", async () => {
    const { b, calls } = backend();
    const cases: [string, string, number, string][] = [
      ["/match/agar", "{nope", 400, "bad_request"],
      ["/match/agar", "[".repeat(2000) + "]".repeat(2000), 400, "bad_request"],
      ["/match/agar", JSON.stringify({ filters: { a: { b: { c: 1 } } } }), 400, "bad_filter"],
      ["/match/agar", JSON.stringify({ filters: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i])) }), 400, "bad_filter"],
      ["/match/agar", JSON.stringify({ filters: { name: "x".repeat(4000) } }), 400, "bad_filter"],
      ["/match/agar", "x".repeat(5000), 413, "too_large"],
      ["/match/agar/queue", JSON.stringify({ rating: "high", queueId: "q1" }), 400, "bad_request"],
      ["/match/agar/queue", JSON.stringify({ rating: 1, queueId: "q".repeat(65) }), 400, "bad_request"],
    ];
    for (const [path, text, status, code] of cases) {
      const { c } = call(path, "POST", body(text));
      expect(await serveMatchRoute(c, b), text.slice(0, 40)).toMatchObject({ status, body: { code } });
    }
    expect(calls).toEqual([]);
  });
});
