import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  PARTY_CODE_ALPHABET,
  isMatchError,
  matchesFilters,
  normalizePartyCode,
  readFilterQuery,
  readFilters,
  readMatchRequest,
  readPartyAfter,
  readPartyJoinRequest,
  readPartyMember,
  readPartyStartRequest,
  readQueueRequest,
  routeMatchPath,
  type MatchFilters,
  type RoomMetadata,
} from "../src";

describe("match requests", () => {
  it("reads a match body with defaults, and refuses what does not fit with a code", () => {
    expect(readMatchRequest(undefined)).toEqual({ mode: "joinOrCreate", filters: {}, options: {}, private: false });
    expect(readMatchRequest({ mode: "create", private: true, options: { map: "x" }, filters: { level: { gte: 2 } } })).toEqual({
      mode: "create",
      private: true,
      options: { map: "x" },
      filters: { level: { gte: 2 } },
    });
    expect(readMatchRequest({ mode: "joinOrCreate", private: true })).toMatchObject({ code: "bad_request" });
    expect(readMatchRequest({ mode: "grab" })).toMatchObject({ code: "bad_request" });
    expect(readMatchRequest([])).toMatchObject({ code: "bad_request" });
    expect(readMatchRequest({ options: 3 })).toMatchObject({ code: "bad_options" });
    expect(readMatchRequest({ filters: { "a b": 1 } })).toMatchObject({ code: "bad_filter" });
    expect(readMatchRequest({ filters: { n: { gt: 1 } } })).toMatchObject({ code: "bad_filter" });
    expect(readMatchRequest({ filters: { n: { gte: Number.NaN } } })).toMatchObject({ code: "bad_filter" });
    expect(readMatchRequest({ filters: { n: "x".repeat(200) } })).toMatchObject({ code: "bad_filter" });
    expect(readQueueRequest({ rating: 1200, queueId: "abc" })).toEqual({ rating: 1200, queueId: "abc" });
    expect(readQueueRequest({ rating: Infinity, queueId: "abc" })).toMatchObject({ code: "bad_request" });
    expect(readQueueRequest({ rating: 1, queueId: "a/b" })).toMatchObject({ code: "bad_request" });
  });

  it("filters named code and reason are filters, not a refusal", () => {
    const read = readFilters({ code: "no_room", reason: "x" });
    expect(isMatchError(read)).toBe(false);
    expect(read).toEqual({ filters: { code: "no_room", reason: "x" } });
  });

  it("reads filters from a query: values typed as they read, ranges as key.gte / key.lte", () => {
    expect(readFilterQuery(new URLSearchParams("mode=ranked&level.gte=3&level.lte=5&open=true&n=7"))).toEqual({
      filters: { mode: "ranked", level: { gte: 3, lte: 5 }, open: true, n: 7 },
    });
    expect(readFilterQuery(new URLSearchParams("level.gte=x"))).toMatchObject({ code: "bad_filter" });
  });

  it("property: matchesFilters is every key's equality or range check", () => {
    const value = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom("a", "b"), fc.boolean());
    const meta = fc.dictionary(fc.constantFrom("x", "y", "z"), value);
    const filter = fc.oneof(value, fc.record({ gte: fc.integer({ min: -5, max: 5 }), lte: fc.integer({ min: -5, max: 5 }) }, { requiredKeys: [] }));
    fc.assert(
      fc.property(meta, fc.dictionary(fc.constantFrom("x", "y", "z"), filter), (m: RoomMetadata, f: MatchFilters) => {
        let naive = true;
        for (const [k, cond] of Object.entries(f)) {
          const v = m[k];
          if (typeof cond === "object") naive &&= typeof v === "number" && (cond.gte === undefined || v >= cond.gte) && (cond.lte === undefined || v <= cond.lte);
          else naive &&= v === cond;
        }
        expect(matchesFilters(m, f)).toBe(naive);
      }),
    );
  });

  it("routes the match paths, with a method check", () => {
    expect(routeMatchPath("/match/agar", "POST")).toEqual({ op: "match", kind: "agar" });
    expect(routeMatchPath("/match/agar/r1", "POST")).toEqual({ op: "joinById", kind: "agar", roomId: "r1" });
    expect(routeMatchPath("/match/agar/room/rooms", "POST")).toEqual({ op: "joinById", kind: "agar", roomId: "rooms" });
    expect(routeMatchPath("/match/agar/rooms", "GET")).toEqual({ op: "rooms", kind: "agar" });
    expect(routeMatchPath("/match/agar/queue", "POST")).toEqual({ op: "queue", kind: "agar" });
    expect(routeMatchPath("/match/agar/queue/q1", "DELETE")).toEqual({ op: "cancel", kind: "agar", queueId: "q1" });
    expect(routeMatchPath("/match/agar/rooms", "POST")).toEqual({ method: "GET" });
    expect(routeMatchPath("/match/agar", "GET")).toEqual({ method: "POST" });
    expect(routeMatchPath("/match/agar/r1/x", "POST")).toBeNull();
    expect(routeMatchPath("/match/a%20b", "POST")).toBeNull();
    expect(routeMatchPath("/rooms/agar/r1", "GET")).toBeNull();
  });

  it("routes the party paths: make, join, watch, leave, start and stop a start, each by its method", () => {
    expect(routeMatchPath("/match/agar/party", "POST")).toEqual({ op: "partyCreate", kind: "agar" });
    expect(routeMatchPath("/match/agar/party", "GET")).toEqual({ method: "POST" });
    expect(routeMatchPath("/match/agar/party/ABCDE12345", "POST")).toEqual({ op: "partyJoin", kind: "agar", code: "ABCDE12345" });
    expect(routeMatchPath("/match/agar/party/ABCDE12345", "GET")).toEqual({ op: "partyWatch", kind: "agar", code: "ABCDE12345" });
    expect(routeMatchPath("/match/agar/party/ABCDE12345", "DELETE")).toEqual({ op: "partyLeave", kind: "agar", code: "ABCDE12345" });
    expect(routeMatchPath("/match/agar/party/ABCDE12345", "PUT")).toEqual({ method: "GET, POST, DELETE" });
    expect(routeMatchPath("/match/agar/party/ABCDE12345/start", "POST")).toEqual({ op: "partyStart", kind: "agar", code: "ABCDE12345" });
    expect(routeMatchPath("/match/agar/party/ABCDE12345/start", "DELETE")).toEqual({ op: "partyCancel", kind: "agar", code: "ABCDE12345" });
    expect(routeMatchPath("/match/agar/party/ABCDE12345/start", "GET")).toEqual({ method: "POST, DELETE" });
    expect(routeMatchPath("/match/agar/party/ABCDE12345/go", "POST")).toBeNull();
    // A fourth segment means nothing outside the party paths; a room named "party" is joined with /room/.
    expect(routeMatchPath("/match/agar/queue/q1/x", "DELETE")).toBeNull();
    expect(routeMatchPath("/match/agar/room/party", "POST")).toEqual({ op: "joinById", kind: "agar", roomId: "party" });
  });

  it("reads party codes as typed: any case, dashes and spaces, O for 0 and I or L for 1; nothing else", () => {
    expect(normalizePartyCode("abcde-12345")).toBe("ABCDE12345");
    expect(normalizePartyCode(" 7kq2m 9txab ")).toBe("7KQ2M9TXAB");
    expect(normalizePartyCode("OOOOOIIIII")).toBe("0000011111");
    expect(normalizePartyCode("LLLLLLLLLL")).toBe("1111111111");
    expect(normalizePartyCode("ABCDE1234")).toBeNull();
    expect(normalizePartyCode("ABCDE123456")).toBeNull();
    expect(normalizePartyCode("ABCDEU2345")).toBeNull();
    expect(normalizePartyCode("ABCD_12345")).toBeNull();
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PARTY_CODE_ALPHABET), { minLength: 10, maxLength: 10 }), (chars) => {
        const code = chars.join("");
        expect(normalizePartyCode(code)).toBe(code);
        expect(normalizePartyCode(code.toLowerCase())).toBe(code);
      }),
    );
  });

  it("reads party bodies and queries, refusing what does not fit with bad_request", () => {
    expect(readPartyJoinRequest(undefined)).toEqual({ name: "" });
    expect(readPartyJoinRequest({ name: "ann", rating: 1200 })).toEqual({ name: "ann", rating: 1200 });
    expect(readPartyJoinRequest({ name: "x".repeat(33) })).toMatchObject({ code: "bad_request" });
    expect(readPartyJoinRequest({ rating: Number.NaN })).toMatchObject({ code: "bad_request" });
    expect(readPartyJoinRequest({ rating: "1200" })).toMatchObject({ code: "bad_request" });
    expect(readPartyJoinRequest([1])).toMatchObject({ code: "bad_request" });
    expect(readPartyStartRequest(undefined)).toEqual({ queue: false, match: { mode: "joinOrCreate", filters: {}, options: {}, private: false } });
    expect(readPartyStartRequest({ mode: "queue" })).toEqual({ queue: true });
    expect(readPartyStartRequest({ mode: "create", private: true })).toEqual({ queue: false, match: { mode: "create", filters: {}, options: {}, private: true } });
    expect(readPartyStartRequest({ mode: "grab" })).toMatchObject({ code: "bad_request" });
    expect(readPartyMember(new URLSearchParams("member=abcdefghijklmnopqrstuv"))).toBe("abcdefghijklmnopqrstuv");
    expect(readPartyMember(new URLSearchParams("member=short"))).toMatchObject({ code: "bad_request" });
    expect(readPartyMember(new URLSearchParams(""))).toMatchObject({ code: "bad_request" });
    expect(readPartyAfter(new URLSearchParams(""))).toBeUndefined();
    expect(readPartyAfter(new URLSearchParams("after=7"))).toBe(7);
    for (const bad of ["after=", "after=-1", "after=1.5", "after=x"]) expect(readPartyAfter(new URLSearchParams(bad))).toMatchObject({ code: "bad_request" });
  });
});
