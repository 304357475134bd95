import { describe, expect, it } from "vitest";
import { isMatchError } from "@tikron/protocol";
import { FakeClock } from "../../src";
import { Matchmaker, NO_OVERRIDES, resolveMatchmaking, type MatchmakingSpec, type RoomStatus, type SeatAnswer, type SeatRequest } from "../../src/match";

/** A matchmaker whose rooms answer at once: a cap of 4, reservations held until told otherwise. */
function setup(spec: MatchmakingSpec = {}) {
  const clock = new FakeClock();
  const rooms = new Map<string, RoomStatus>();
  let n = 0;
  const requests: SeatRequest[] = [];
  const reserve = async (req: SeatRequest): Promise<SeatAnswer> => {
    requests.push(req);
    let s = rooms.get(req.roomId);
    if (!s && !req.create) return { ok: false, code: "not_found", reason: "no room" };
    s ??= { roomId: req.roomId, clients: 0, bots: 0, reserved: 0, maxClients: 4, metadata: req.create!.metadata, locked: false, private: req.create!.private, createdAt: clock.now(), version: [1, 0], overrides: "", refreshMs: 60_000 };
    if (s.reserved + s.clients + req.seats.length > s.maxClients) return { ok: false, code: "room_full", reason: "full", status: s };
    s = { ...s, reserved: s.reserved + req.seats.length, version: [1, s.version[1] + 1] };
    rooms.set(req.roomId, s);
    return { ok: true, status: s };
  };
  const mm = new Matchmaker("k", resolveMatchmaking(spec), {
    clock,
    rooms: { reserve },
    newRoomId: () => `room${n++}`,
    newReservationId: () => `res-${String(n++).padStart(16, "0")}`,
    signSeat: async (s) => `${s.roomId}/${s.identity}`,
    capFor: () => 4,
  });
  return { clock, mm, rooms, requests };
}
const who = (identity: string, rateKey?: string) => ({ identity, verified: true, ...(rateKey ? { rateKey } : {}) });

describe("Matchmaker", () => {
  it("asks the room to hold each seat with the claims its caller was verified with (the seat's player gets them)", async () => {
    const { mm, requests } = setup({ queue: { groupSize: 2, ratingWindow: { initial: 100, widenPerSec: 50, max: 1000 }, timeoutMs: 5000 } });
    await mm.match({ mode: "joinOrCreate", filters: {}, options: {}, private: false }, { ...who("jwt:ann"), claims: { name: "Ann" } });
    expect(requests.at(-1)!.seats).toEqual([{ reservationId: expect.any(String), identity: "jwt:ann", claims: { name: "Ann" } }]);
    await mm.match({ mode: "joinOrCreate", filters: {}, options: {}, private: false }, who("t-1"));
    expect(requests.at(-1)!.seats).toEqual([{ reservationId: expect.any(String), identity: "t-1" }]);
    // A queue's group: every member's own claims.
    const a = mm.queueFor({ rating: 1000, queueId: "qa" }, { ...who("jwt:a"), claims: { name: "A" } });
    const b = mm.queueFor({ rating: 1000, queueId: "qb" }, { ...who("jwt:b"), claims: { name: "B" } });
    await Promise.all([a, b]);
    expect(requests.at(-1)!.seats.map((s) => [s.identity, s.claims])).toEqual([
      ["jwt:a", { name: "A" }],
      ["jwt:b", { name: "B" }],
    ]);
  });

  it("seats a party's members with their own claims, matched together or through the queue", async () => {
    const { mm, requests } = setup({ queue: { groupSize: 2, ratingWindow: { initial: 100, widenPerSec: 50, max: 1000 }, timeoutMs: 5000 } });
    const seatsOfLast = () => requests.at(-1)!.seats.map((s) => [s.identity, s.claims]);
    for (const queue of [false, true]) {
      const ann = mm.parties.create({ name: "ann", rating: 1000 }, { ...who("jwt:ann"), claims: { name: "Ann" } }, NO_OVERRIDES);
      if (isMatchError(ann)) throw new Error(ann.reason);
      const bob = mm.parties.join(ann.code, { name: "bob", rating: 1000 }, who("t-bob"));
      if (isMatchError(bob)) throw new Error(bob.reason);
      const started = await mm.parties.start(ann.code, ann.member, queue ? { queue: true } : { queue: false, match: { mode: "joinOrCreate", filters: {}, options: {}, private: false } }, { ...who("jwt:ann"), claims: { name: "Ann" } });
      expect(isMatchError(started) ? started.code : started.state).toBe("matched");
      expect(seatsOfLast()).toEqual([
        ["jwt:ann", { name: "Ann" }],
        ["t-bob", undefined],
      ]);
    }
  });

  it("makes a new room's metadata from the options, with the request's equality filters under them", async () => {
    const { mm, rooms } = setup({ filterBy: ["mode", "level"] });
    const seat = await mm.match({ mode: "joinOrCreate", filters: { mode: "duel" }, options: { level: 3, map: "x" }, private: false }, who("a"));
    if (isMatchError(seat)) throw new Error(seat.reason);
    expect(rooms.get(seat.roomId)!.metadata).toEqual({ mode: "duel", level: 3 });
    // A later request filtering on a range finds that room.
    const again = await mm.match({ mode: "join", filters: { level: { gte: 2, lte: 4 } }, options: {}, private: false }, who("b"));
    expect(isMatchError(again) ? again.code : again.roomId).toBe(seat.roomId);
    expect(await mm.match({ mode: "join", filters: { level: { gte: 4 } }, options: {}, private: false }, who("c"))).toMatchObject({ code: "no_room" });
    expect(await mm.match({ mode: "join", filters: { map: "x" }, options: {}, private: false }, who("d"))).toMatchObject({ code: "bad_filter" });
  });

  it("refuses options its game's metadata function refuses, and options that would not match the request's own filters", async () => {
    const { mm } = setup({
      filterBy: ["mode"],
      metadata: (o) => {
        if (o.mode !== "duel" && o.mode !== "party") throw new Error("mode is duel or party");
        return { mode: o.mode };
      },
    });
    expect(await mm.match({ mode: "create", filters: {}, options: { mode: "chess" }, private: false }, who("a"))).toMatchObject({ code: "bad_options", reason: "mode is duel or party" });
    const own = setup({ filterBy: ["mode"], metadata: () => ({ mode: "party" }) });
    expect(await own.mm.match({ mode: "joinOrCreate", filters: { mode: "duel" }, options: {}, private: false }, who("a"))).toMatchObject({ code: "bad_options" });
  });

  it("limits each caller's request rate and answers the wait", async () => {
    const { mm, clock } = setup({ requestsPerSec: 1, requestBurst: 2 });
    const req = { mode: "joinOrCreate" as const, filters: {}, options: {}, private: false };
    expect(isMatchError(await mm.match(req, who("a", "key")))).toBe(false);
    expect(isMatchError(await mm.match(req, who("b", "key")))).toBe(false);
    const third = await mm.match(req, who("c", "key"));
    expect(third).toMatchObject({ code: "rate_limited" });
    expect(isMatchError(third) && third.retryAfterMs! > 0).toBe(true);
    // Another key, and no key at all (loopback), are not held back by it.
    expect(isMatchError(await mm.match(req, who("d", "other")))).toBe(false);
    expect(isMatchError(await mm.match(req, who("e")))).toBe(false);
    clock.advance(1000);
    expect(isMatchError(await mm.match(req, who("f", "key")))).toBe(false);
    expect(mm.stats().refused.rate_limited).toBe(1);
  });

  it("keeps no timer when nobody waits in a queue, and drops rooms that stopped refreshing on a later request", async () => {
    const { mm, clock } = setup({ queue: { groupSize: 2, ratingWindow: { initial: 0, widenPerSec: 0, max: 0 }, timeoutMs: 1000 } });
    const seat = await mm.match({ mode: "joinOrCreate", filters: {}, options: {}, private: false }, who("a"));
    if (isMatchError(seat)) throw new Error(seat.reason);
    expect(clock.pending).toBe(0);
    const waiting = mm.queueFor({ rating: 1, queueId: "q1" }, who("b"));
    expect(clock.pending).toBe(1);
    clock.advance(1000);
    expect(await waiting).toMatchObject({ code: "queue_timeout" });
    expect(clock.pending).toBe(0);
    expect(mm.rooms().map((e) => e.status.roomId)).toEqual([seat.roomId]);
    // Three missed 60 s refreshes later, the next request finds the room gone from the directory.
    clock.advance(3 * 60_000 + 1);
    expect(mm.list({})).toEqual([]);
    expect(mm.rooms()).toEqual([]);
  });
});
