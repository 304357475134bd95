/**
 * A match request's join options are checked against the kind's declaration before the
 * matchmaker is asked for anything: a join the room would refuse leaves no reservation behind.
 * The claims of a sign-in JWT go with the caller to the seat's reservation.
 */
import { defineJoinOptions, joinOption, routeMatchPath, type MatchRoute } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { callerOfVerdict, serveMatchRoute, type BodySource, type MatchBackend, type MatchCall } from "../../src/match";

const options = defineJoinOptions({ mark: joinOption.oneOf(["X", "O"]) });

function backend(): MatchBackend & { calls: string[] } {
  const calls: string[] = [];
  const seat = async () => ({ roomId: "r1", token: "tok", expiresAt: 0, created: false });
  const party = async () => ({ code: "ABCDE23456", member: "m1", version: 1, state: "open" as const, members: [], maxSize: 2, expiresAt: 0 });
  return {
    calls,
    match: async (...a) => (calls.push(`match ${JSON.stringify(a[0])}`), seat()),
    joinById: async (roomId) => (calls.push(`joinById ${roomId}`), seat()),
    queue: async () => (calls.push("queue"), seat()),
    cancel: async () => false,
    rooms: async () => [],
    stats: async () => ({}),
    partyCreate: async (req) => (calls.push(`partyCreate ${JSON.stringify(req)}`), party()),
    partyJoin: async (code, req) => (calls.push(`partyJoin ${code} ${JSON.stringify(req)}`), party()),
    partyWatch: async () => party(),
    partyLeave: async () => true,
    partyStart: async () => party(),
    partyCancel: async () => true,
  };
}

/** A request body of `text` (none for null), as a host hands it over. */
function bodyOf(text: string | null): BodySource {
  const bytes = text === null ? null : new TextEncoder().encode(text);
  return { contentLength: bytes === null ? null : String(bytes.length), body: bytes === null ? null : (async function* () { yield bytes; })() };
}

function call(path: string, body: unknown): MatchCall {
  return {
    route: routeMatchPath(path, "POST") as MatchRoute,
    url: new URL(`http://h${path}`),
    devMode: true,
    wsOrigin: "ws://h",
    caller: async () => ({ identity: "jwt:ann", verified: true, rateKey: "jwt:ann" }),
    body: bodyOf(body === undefined ? null : JSON.stringify(body)),
    joinOptions: options,
  };
}

describe("match requests' join options", () => {
  for (const [path, body] of [
    ["/match/ttt-json", { mode: "joinOrCreate", joinOptions: { mark: "Z" } }],
    ["/match/ttt-json/room/r1", { joinOptions: { mark: "Z" } }],
    ["/match/ttt-json/queue", { rating: 1000, queueId: "q1", joinOptions: { mark: "Z" } }],
    ["/match/ttt-json", { joinOptions: { colour: "red" } }],
    ["/match/ttt-json/party", { name: "ann", joinOptions: { mark: "Z" } }],
    ["/match/ttt-json/party/ABCDE23456", { name: "bob", joinOptions: { colour: "red" } }],
  ] as const) {
    it(`${path} with ${JSON.stringify(body.joinOptions)}: 400 bad_request naming the option, and nothing reserved`, async () => {
      const b = backend();
      const answer = await serveMatchRoute(call(path, body), b);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: "bad_request", reason: expect.stringContaining(Object.keys(body.joinOptions)[0]!) });
      expect(b.calls).toEqual([]);
    });
  }

  it("valid (or no) join options go on to the matchmaker", async () => {
    const b = backend();
    expect((await serveMatchRoute(call("/match/ttt-json", { joinOptions: { mark: "X" } }), b)).status).toBe(200);
    expect((await serveMatchRoute(call("/match/ttt-json/room/r1", undefined), b)).status).toBe(200);
    expect((await serveMatchRoute(call("/match/ttt-json/queue", { rating: 1, queueId: "q2" }), b)).status).toBe(200);
    expect(b.calls).toHaveLength(3);
  });

  it("a party member's valid join options are read with its make or join", async () => {
    const b = backend();
    expect((await serveMatchRoute(call("/match/ttt-json/party", { name: "ann", joinOptions: { mark: "X" } }), b)).status).toBe(200);
    expect((await serveMatchRoute(call("/match/ttt-json/party/ABCDE23456", { name: "bob" }), b)).status).toBe(200);
    expect(b.calls).toEqual([`partyCreate {"name":"ann","joinOptions":{"mark":"X"}}`, `partyJoin ABCDE23456 {"name":"bob"}`]);
  });

  it("a sign-in JWT's claims go with its caller; a guest is limited by its address", () => {
    expect(callerOfVerdict({ ok: true, via: "jwt", identity: "jwt:ann", claims: {}, playerClaims: { name: "Ann" }, credential: "t" }, "1.2.3.4", "host")).toEqual({ identity: "jwt:ann", verified: true, rateKey: "jwt:ann", claims: { name: "Ann" } });
    expect(callerOfVerdict({ ok: true, via: null, identity: "guest-abc" }, "1.2.3.4", "host")).toEqual({ identity: "guest-abc", verified: true, rateKey: "1.2.3.4" });
  });
});
