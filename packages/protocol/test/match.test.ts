import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isMatchError, matchesFilters, readFilterQuery, readFilters, readMatchRequest, readQueueRequest, routeMatchPath, type MatchFilters, type RoomMetadata } from "../src";

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
});
