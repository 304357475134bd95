/**
 * Parties on one matchmaker whose rooms are real `Room`s answering at once: made, joined,
 * watched (the long poll), started into a room or the queue, left before and after the match,
 * dropped when idle, expired, and kept across a restart by the party store.
 */
import { describe, expect, it } from "vitest";
import { BinaryWriter, PROTOCOL_VERSION, encodeHello, isMatchError, type MatchError, type PartyStartRequest } from "@tikron/protocol";
import { FakeClock, Room } from "../../src";
import {
  Matchmaker,
  NO_OVERRIDES,
  PARTY_MEMBER_IDLE_MS,
  PARTY_TTL_MS,
  PARTY_WATCH_HOLD_MS,
  resolveMatchmaking,
  type Caller,
  type MatchmakingSpec,
  type PartyAnswer,
  type PartyRecord,
  type PartyStore,
} from "../../src/match";
import { CounterGame, FakeConnection } from "../fakes";

const CAP = 4;
const w = new BinaryWriter();
const hello = () => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: "p" }).toBytes();
let codes = 0;
const JOIN_OR_CREATE: PartyStartRequest = { queue: false, match: { mode: "joinOrCreate", filters: {}, options: {}, private: false } };

/** `hang`: seat requests are never answered (a room that does not answer while the matchmaker restarts). */
function setup(spec: MatchmakingSpec = {}, clock = new FakeClock(), saved = new Map<string, PartyRecord>(), hang = false) {
  const rooms = new Map<string, Room>();
  let n = 0;
  const partyStore: PartyStore = {
    load: async () => [...saved.values()].map((p) => structuredClone(p)),
    put: (p) => void saved.set(p.code, structuredClone(p)),
    delete: (code) => void saved.delete(code),
  };
  const mm = new Matchmaker("counter", resolveMatchmaking({ reservationTtlMs: 1000, ...spec }), {
    clock,
    partyStore,
    rooms: {
      reserve: async (req) => {
        if (hang) return new Promise(() => {});
        let room = rooms.get(req.roomId);
        if (!room && req.create) {
          room = new Room({ kind: "counter", roomId: req.roomId, game: new CounterGame(), clock, options: { cap: CAP, tickMs: 50 }, listing: { metadata: req.create.metadata, private: req.create.private } });
          rooms.set(req.roomId, room);
        }
        return room ? room.reserveSeats(req) : { ok: false, code: "not_found", reason: "no room" };
      },
      release: async (req) => rooms.get(req.roomId)?.releaseSeats(req.seats) ?? null,
    },
    newRoomId: () => `room${n++}`,
    newReservationId: () => `id-${String(n++).padStart(18, "0")}`,
    // Codes run on across matchmakers, as random ones would not collide: restarts share a store.
    newPartyCode: () => `CODE${String(codes++).padStart(6, "0")}`,
    signSeat: async (s) => `${s.roomId}|${s.identity}|${s.reservationId}`,
    capFor: () => CAP,
  });
  /** Joins a room with a seat's token (as the gateway would after verifying it): welcomed or not. */
  const take = (seat: { token: string }): boolean => {
    const [roomId, identity, reservation] = seat.token.split("|") as [string, string, string];
    const conn = new FakeConnection();
    const room = rooms.get(roomId)!;
    room.message(room.open(conn, identity, undefined, reservation), hello());
    return conn.messages().some((m) => m.kind === "welcome");
  };
  return { clock, mm, rooms, saved, take };
}

const who = (identity: string): Caller => ({ identity, verified: true });
function ok<T>(v: T | MatchError): T {
  if (isMatchError(v)) throw new Error(`${v.code}: ${v.reason}`);
  return v;
}
/** Lets the promise chains a step started run (every port answers at once). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe("parties", () => {
  it("a party of three is seated in one room at once, every member with its own seat, and lands there together", async () => {
    const { mm, rooms, take } = setup();
    const ann = ok(mm.parties.create({ name: "ann" }, who("ann"), NO_OVERRIDES));
    expect(ann).toMatchObject({ state: "open", version: 1, maxSize: CAP, members: [{ name: "ann", leader: true, you: true }] });
    const bob = ok(mm.parties.join(ann.code, { name: "bob" }, who("bob")));
    const cid = ok(mm.parties.join(ann.code, { name: "cid" }, who("cid")));
    expect(cid.members.map((m) => [m.name, m.leader, m.you])).toEqual([["ann", true, false], ["bob", false, false], ["cid", false, true]]);
    // Only the leader starts it.
    expect(await mm.parties.start(ann.code, bob.member, JOIN_OR_CREATE, who("bob"))).toMatchObject({ code: "forbidden" });
    const started = ok(await mm.parties.start(ann.code, ann.member, JOIN_OR_CREATE, who("ann")));
    expect(started.state).toBe("matched");
    const seats = [started.seat!, ok(await mm.parties.watch(ann.code, bob.member, undefined, who("bob"))).seat!, ok(await mm.parties.watch(ann.code, cid.member, undefined, who("cid"))).seat!];
    expect(new Set(seats.map((s) => s.roomId)).size).toBe(1);
    expect(new Set(seats.map((s) => s.token)).size).toBe(3);
    expect(rooms.get(seats[0]!.roomId)!.status()).toMatchObject({ clients: 0, reserved: 3 });
    for (const s of seats) expect(take(s)).toBe(true);
    expect(rooms.get(seats[0]!.roomId)!.status()).toMatchObject({ clients: 3, reserved: 0 });
    // A started party takes no one.
    expect(mm.parties.join(ann.code, { name: "dan" }, who("dan"))).toMatchObject({ code: "locked" });
    expect(mm.stats().parties).toMatchObject({ made: 1, matched: 1 });
  });

  it("joinOrCreate puts a party only in a room with a free seat for every member, else a new room", async () => {
    const { mm, rooms, take } = setup();
    for (const p of ["s1", "s2"]) expect(take(ok(await mm.match({ mode: "joinOrCreate", filters: {}, options: {}, private: false }, who(p))))).toBe(true);
    const solo = [...rooms.values()][0]!;
    mm.report(solo.status());
    const lead = ok(mm.parties.create({ name: "" }, who("a"), NO_OVERRIDES));
    for (const p of ["b", "c"]) ok(mm.parties.join(lead.code, { name: "" }, who(p)));
    // Three do not fit beside two in a room of four: a new room for all three.
    const three = ok(await mm.parties.start(lead.code, lead.member, JOIN_OR_CREATE, who("a")));
    expect(three.seat!.roomId).not.toBe(solo.roomId);
    expect(three.seat!.created).toBe(true);
    const duo = ok(mm.parties.create({ name: "" }, who("d"), NO_OVERRIDES));
    ok(mm.parties.join(duo.code, { name: "" }, who("e")));
    // Two fit beside the two solos.
    expect(ok(await mm.parties.start(duo.code, duo.member, JOIN_OR_CREATE, who("d"))).seat!.roomId).toBe(solo.roomId);
    expect(solo.status()).toMatchObject({ clients: 2, reserved: 2 });
    // join mode: no room with four free seats is no_room, and the party is open again, told why.
    const four = ok(mm.parties.create({ name: "" }, who("f"), NO_OVERRIDES));
    for (const p of ["g", "h", "i"]) ok(mm.parties.join(four.code, { name: "" }, who(p)));
    expect(await mm.parties.start(four.code, four.member, { queue: false, match: { mode: "join", filters: {}, options: {}, private: false } }, who("f"))).toMatchObject({ code: "no_room" });
    expect(ok(await mm.parties.watch(four.code, four.member, undefined, who("f")))).toMatchObject({ state: "open", error: { code: "no_room" } });
  });

  it("limits a party to the rooms' cap, refuses unknown codes and members, and a member acts only as itself", async () => {
    const { mm } = setup();
    const lead = ok(mm.parties.create({ name: "" }, who("a"), NO_OVERRIDES));
    for (const p of ["b", "c", "d"]) ok(mm.parties.join(lead.code, { name: p }, who(p)));
    expect(mm.parties.join(lead.code, { name: "e" }, who("e"))).toMatchObject({ code: "party_full" });
    // The same verified identity joining again gets its own place back, not a second seat.
    const again = ok(mm.parties.join(lead.code, { name: "b2" }, who("b")));
    expect(again.members).toHaveLength(4);
    expect(again.members.find((m) => m.you)).toMatchObject({ name: "b" });
    expect(mm.parties.join("NOSUCHCODE", { name: "" }, who("x"))).toMatchObject({ code: "not_found" });
    expect(await mm.parties.watch(lead.code, "not-a-member-id-xxxxxx", undefined, who("a"))).toMatchObject({ code: "not_found" });
    // Another identity naming ann's member id is not ann.
    expect(mm.parties.leave(lead.code, lead.member, who("mallory"))).toMatchObject({ code: "not_found" });
    expect(ok(await mm.parties.watch(lead.code, lead.member, undefined, who("a"))).members).toHaveLength(4);
  });

  it("a member who leaves after the match gives back only its own seat; the others keep theirs", async () => {
    const { mm, rooms, take } = setup();
    const lead = ok(mm.parties.create({ name: "" }, who("a"), NO_OVERRIDES));
    const b = ok(mm.parties.join(lead.code, { name: "" }, who("b")));
    const c = ok(mm.parties.join(lead.code, { name: "" }, who("c")));
    const seatA = ok(await mm.parties.start(lead.code, lead.member, JOIN_OR_CREATE, who("a"))).seat!;
    const room = rooms.get(seatA.roomId)!;
    const seatC = ok(await mm.parties.watch(lead.code, c.member, undefined, who("c"))).seat!;
    expect(take(seatA)).toBe(true);
    expect(ok(mm.parties.leave(lead.code, b.member, who("b")))).toBe(true);
    await settle();
    expect(room.status()).toMatchObject({ clients: 1, reserved: 1 });
    expect(room.snapshot().reservations).toMatchObject({ released: 1 });
    // The leader leaving after joining releases nothing it still holds.
    ok(mm.parties.leave(lead.code, lead.member, who("a")));
    await settle();
    expect(room.status()).toMatchObject({ clients: 1, reserved: 1 });
    expect(take(seatC)).toBe(true);
  });

  it("the watch is a long poll: answered at once for an old version, else when the party changes or the hold ends", async () => {
    const { mm, clock } = setup();
    const lead = ok(mm.parties.create({ name: "ann" }, who("a"), NO_OVERRIDES));
    let heard: PartyAnswer | MatchError | undefined;
    void mm.parties.watch(lead.code, lead.member, lead.version, who("a")).then((v) => (heard = v));
    await settle();
    expect(heard).toBeUndefined();
    ok(mm.parties.join(lead.code, { name: "bob" }, who("b")));
    await settle();
    expect(ok(heard!)).toMatchObject({ version: lead.version + 1, members: [{ name: "ann" }, { name: "bob" }] });
    // Nothing changes: the same view after the hold, and no timer left behind.
    heard = undefined;
    void mm.parties.watch(lead.code, lead.member, lead.version + 1, who("a")).then((v) => (heard = v));
    clock.advance(PARTY_WATCH_HOLD_MS - 1);
    await settle();
    expect(heard).toBeUndefined();
    clock.advance(1);
    await settle();
    expect(ok(heard!).version).toBe(lead.version + 1);
    expect(clock.pending).toBe(0);
  });

  it("drops a member that stopped asking (the leadership passes on), and the whole party when its code expires", async () => {
    const { mm, clock } = setup();
    const lead = ok(mm.parties.create({ name: "ann" }, who("a"), NO_OVERRIDES));
    const bob = ok(mm.parties.join(lead.code, { name: "bob" }, who("b")));
    // Bob keeps watching (each hold ends and he asks again); ann goes quiet.
    for (let t = 0; t < PARTY_MEMBER_IDLE_MS; t += PARTY_WATCH_HOLD_MS / 2) {
      ok(await mm.parties.watch(lead.code, bob.member, undefined, who("b")));
      clock.advance(PARTY_WATCH_HOLD_MS / 2);
    }
    const view = ok(await mm.parties.watch(lead.code, bob.member, undefined, who("b")));
    expect(view.members).toEqual([{ name: "bob", leader: true, you: true }]);
    // Bob alone keeps it going until its code's time is up, however active he is.
    while (clock.now() + PARTY_MEMBER_IDLE_MS / 2 < lead.expiresAt) {
      clock.advance(PARTY_MEMBER_IDLE_MS / 2);
      ok(await mm.parties.watch(lead.code, bob.member, undefined, who("b")));
    }
    clock.advance(lead.expiresAt - clock.now());
    expect(await mm.parties.watch(lead.code, bob.member, undefined, who("b"))).toMatchObject({ code: "not_found" });
    expect(mm.stats().parties.held).toBe(0);
  });

  it("queues a party as one entry of its members' mean rating, seats it with a solo in one room, and a member leaving stops the wait", async () => {
    const queue = { groupSize: 3, ratingWindow: { initial: 50, widenPerSec: 0, max: 50 }, timeoutMs: 5000 };
    const { mm, clock, rooms } = setup({ queue });
    const lead = ok(mm.parties.create({ name: "", rating: 1000 }, who("a"), NO_OVERRIDES));
    const b = ok(mm.parties.join(lead.code, { name: "", rating: 1100 }, who("b")));
    // Mean 1050: a solo at 1090 fits the window of 50, one at 1200 does not.
    const far = mm.queueFor({ rating: 1200, queueId: "far" }, who("far"));
    const started = mm.parties.start(lead.code, lead.member, { queue: true }, who("a"));
    await settle();
    expect(ok(await mm.parties.watch(lead.code, b.member, undefined, who("b"))).state).toBe("matching");
    const near = mm.queueFor({ rating: 1090, queueId: "near" }, who("near"));
    clock.advance(300);
    await settle();
    const party = ok(await started);
    const solo = ok(await near);
    expect(party.seat).toMatchObject({ roomId: solo.roomId, group: 3 });
    expect(rooms.get(solo.roomId)!.status()).toMatchObject({ reserved: 3, private: true });
    expect(ok(await mm.parties.watch(lead.code, b.member, undefined, who("b"))).seat!.roomId).toBe(solo.roomId);
    // A second party: a member leaving while it waits stops the wait; the party is open again.
    const two = ok(mm.parties.create({ name: "", rating: 3000 }, who("c"), NO_OVERRIDES));
    const d = ok(mm.parties.join(two.code, { name: "d" }, who("d")));
    const waiting = mm.parties.start(two.code, two.member, { queue: true }, who("c"));
    await settle();
    ok(mm.parties.leave(two.code, d.member, who("d")));
    expect(await waiting).toMatchObject({ code: "cancelled", reason: "d left the party" });
    expect(ok(await mm.parties.watch(two.code, two.member, undefined, who("c")))).toMatchObject({ state: "open", error: { code: "cancelled" } });
    // The leader stops a wait; a party bigger than a group, or with no rating, is refused.
    const again = mm.parties.start(two.code, two.member, { queue: true }, who("c"));
    await settle();
    expect(ok(mm.parties.cancel(two.code, two.member, who("c")))).toBe(true);
    expect(await again).toMatchObject({ code: "cancelled" });
    const noRating = ok(mm.parties.create({ name: "" }, who("e"), NO_OVERRIDES));
    expect(await mm.parties.start(noRating.code, noRating.member, { queue: true }, who("e"))).toMatchObject({ code: "bad_request" });
    const big = ok(mm.parties.create({ name: "", rating: 1 }, who("f"), NO_OVERRIDES));
    for (const p of ["g", "h", "i"]) ok(mm.parties.join(big.code, { name: "" }, who(p)));
    expect(await mm.parties.start(big.code, big.member, { queue: true }, who("f"))).toMatchObject({ code: "bad_request" });
    mm.dispose();
    await far;
  });

  it("a restart keeps every party (a matched one's seats too); one caught matching is open again, told to start again", async () => {
    const clock = new FakeClock();
    const first = setup({}, clock);
    const matched = ok(first.mm.parties.create({ name: "" }, who("a"), NO_OVERRIDES));
    const b = ok(first.mm.parties.join(matched.code, { name: "" }, who("b")));
    const seat = ok(await first.mm.parties.start(matched.code, matched.member, JOIN_OR_CREATE, who("a"))).seat!;
    const open = ok(first.mm.parties.create({ name: "" }, who("c"), NO_OVERRIDES));
    // A start whose room never answers: the matchmaker is reset while it waits.
    const hanging = setup({}, clock, first.saved, true);
    const stuck = ok(hanging.mm.parties.create({ name: "" }, who("d"), NO_OVERRIDES));
    void hanging.mm.parties.start(stuck.code, stuck.member, JOIN_OR_CREATE, who("d"));
    await settle();
    expect(first.saved.get(stuck.code)!.state).toBe("matching");
    first.mm.dispose();
    hanging.mm.dispose();

    const next = setup({}, clock, first.saved);
    await next.mm.load();
    expect(ok(await next.mm.parties.watch(matched.code, b.member, undefined, who("b"))).seat!.roomId).toBe(seat.roomId);
    expect(ok(await next.mm.parties.watch(open.code, open.member, undefined, who("c"))).state).toBe("open");
    expect(ok(await next.mm.parties.watch(stuck.code, stuck.member, undefined, who("d")))).toMatchObject({ state: "open", error: { code: "unavailable" } });
  });
});
