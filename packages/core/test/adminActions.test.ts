import { describe, expect, it } from "vitest";
import { BinaryWriter, CloseCode, ErrorCode, PROTOCOL_VERSION, encodeHello, encodeInput, OPERATOR_NOTICE, readCloseReason } from "@tikron/protocol";
import { FakeClock, Room, type RoomOptions } from "../src";
import { RECENT_ERRORS } from "../src/room/recentErrors";
import { CounterGame, FakeConnection } from "./fakes";

const w = new BinaryWriter();
const hello = (name = "p") => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name }).toBytes();

function setup(opts: Partial<RoomOptions> = {}) {
  const clock = new FakeClock();
  const game = new CounterGame();
  const room = new Room({ kind: "counter", roomId: "r1", game, clock, options: { cap: 4, ...opts } });
  /** A socket with an identity (as a verified ticket gives) or an address, saying hello. */
  const join = (identity?: string, name = "p", address?: string) => {
    const conn = new FakeConnection();
    const refused = room.admitSocket(identity, address);
    if (refused) return { conn, id: -1, refused, welcome: undefined, error: undefined };
    const id = room.open(conn, identity, address);
    room.message(id, hello(name));
    const welcome = conn.messages().find((m) => m.kind === "welcome");
    const error = conn.messages().find((m) => m.kind === "error");
    return { conn, id, refused: null, welcome, error };
  };
  const playerId = (j: ReturnType<typeof join>) => (j.welcome as { playerId: number }).playerId;
  return { clock, game, room, join, playerId };
}

describe("the operator's view of a room", () => {
  it("lists every seat with its identity, state and backlog, and the room's recent errors", () => {
    const { clock, room, join, playerId } = setup({ reconnectWindowMs: 15_000 });
    const ann = join("ann", "Ann");
    const anon = join(undefined, "Anon");
    // A held seat: the socket dropped.
    room.closed(anon.id, 1006);
    clock.advance(5_000);
    // A refused input shows among the recent errors, with the seat it went to.
    room.message(ann.id, encodeInput(w.reset(), 0, new Uint8Array([1])).toBytes());
    const view = room.adminView();
    expect(view.seats).toEqual([
      { playerId: playerId(ann), name: "Ann", identity: "ann", connected: true, bot: false, heldForMs: null, lastSeq: 0, backlogBytes: expect.any(Number), rttMs: null },
      { playerId: playerId(anon), name: "Anon", identity: null, connected: false, bot: false, heldForMs: 10_000, lastSeq: 0, backlogBytes: 0, rttMs: null },
    ]);
    expect(view.seats[0]!.backlogBytes).toBeGreaterThan(0); // the welcome, unconfirmed
    expect(view.errors).toEqual([{ at: clock.now(), name: "bad_input", reason: expect.stringContaining("seq"), playerId: playerId(ann) }]);
    expect(view.bans).toEqual([]);
  });

  it("keeps the last errors only, oldest first", () => {
    const { room, join } = setup({ maxErrorsPerConnection: 1000, msgBurst: 1000, rejectedFramesBurst: 1000 });
    const a = join("a");
    for (let i = 0; i < RECENT_ERRORS + 5; i++) room.message(a.id, new Uint8Array([0x7f, i]));
    const errors = room.adminView().errors;
    expect(errors).toHaveLength(RECENT_ERRORS);
    expect(errors.every((e) => e.name === "unknown_kind")).toBe(true);
  });
});

describe("kick", () => {
  it("closes the player's socket with kicked and the reason, and frees its seat; the player may come back", () => {
    const { room, join, playerId } = setup();
    const ann = join("ann");
    expect(room.kick(playerId(ann), "afk too long")).toBe(1);
    expect(ann.conn.closedWith).toEqual({ code: CloseCode.kicked, reason: "removed by the operator: afk too long" });
    expect(room.seatCount).toBe(0);
    expect(room.snapshot().closes[CloseCode.kicked]).toBe(1);
    expect(join("ann").welcome).toBeDefined();
  });

  it("frees a held seat at once, and says null for a seat that does not exist", () => {
    const { room, join, playerId } = setup();
    const ann = join("ann");
    room.closed(ann.id, 1006);
    expect(room.seatCount).toBe(1);
    expect(room.kick(playerId(ann))).toBe(0);
    expect(room.seatCount).toBe(0);
    expect(room.kick(99)).toBeNull();
  });
});

describe("ban", () => {
  it("closes the identity's sockets with banned and the wait, frees its seat, and refuses it until the ban ends", () => {
    const { clock, room, join, playerId } = setup();
    const ann = join("ann");
    const bob = join("bob");
    const out = room.ban({ playerId: playerId(ann) }, 60_000, "cheating");
    expect(out).toEqual({ identity: "ann", until: clock.now() + 60_000, closed: 1 });
    expect(ann.conn.closedWith?.code).toBe(CloseCode.banned);
    expect(readCloseReason(ann.conn.closedWith!.reason)).toEqual({ reason: "banned from this room: cheating", retryAfterMs: 60_000 });
    expect(room.seatCount).toBe(1);
    expect(bob.conn.closedWith).toBeNull();
    // Refused before the upgrade, with the wait and the close a ban gets.
    clock.advance(10_000);
    expect(join("ann").refused).toEqual({ status: 403, counter: "banned", closeCode: CloseCode.banned, reason: "banned from this room: cheating", retryAfterMs: 50_000 });
    expect(room.adminView().bans).toEqual([{ identity: "ann", until: out !== "anonymous" && out !== "no_such_player" ? out.until : 0, reason: "cheating" }]);
    clock.advance(50_000);
    expect(join("ann").welcome).toBeDefined();
    expect(room.adminView().bans).toEqual([]);
    expect(room.snapshot().refused.banned).toBe(1);
  });

  it("a socket already open when the ban came is refused at its hello", () => {
    const { clock, room } = setup();
    const conn = new FakeConnection();
    const id = room.open(conn, "eve");
    expect(room.ban({ identity: "eve" }, 5_000, "")).toMatchObject({ identity: "eve", closed: 1 });
    expect(conn.closedWith?.code).toBe(CloseCode.banned);
    // Another socket opened by a host that did not ask admission: its hello meets the ban.
    const late = new FakeConnection();
    const lateId = room.open(late, "eve");
    room.message(lateId, hello());
    expect(late.messages().find((m) => m.kind === "error")).toMatchObject({ code: ErrorCode.banned, retryAfterMs: 5_000 });
    expect(late.closedWith?.code).toBe(CloseCode.banned);
    expect(room.seatCount).toBe(0);
    clock.advance(5_000);
    room.message(id, hello()); // the closed socket is gone: nothing happens
    expect(room.seatCount).toBe(0);
  });

  it("bans by identity a player who is not there, and frees its held seat", () => {
    const { room, join } = setup();
    const ann = join("ann");
    room.closed(ann.id, 1006);
    expect(room.ban({ identity: "ann" }, 1_000, "")).toMatchObject({ identity: "ann", closed: 0 });
    expect(room.seatCount).toBe(0);
    expect(room.ban({ identity: "ghost" }, 1_000, "")).toMatchObject({ identity: "ghost", closed: 0 });
  });

  it("bans an anonymous player by its address, and refuses one with neither", () => {
    const { room, join, playerId } = setup();
    const far = join(undefined, "far", "203.0.113.9");
    const local = join(undefined, "local");
    expect(room.ban({ playerId: playerId(far) }, 1_000, "")).toMatchObject({ identity: "203.0.113.9", closed: 1 });
    expect(join(undefined, "again", "203.0.113.9").refused?.counter).toBe("banned");
    expect(room.ban({ playerId: playerId(local) }, 1_000, "")).toBe("anonymous");
    expect(room.ban({ playerId: 77 }, 1_000, "")).toBe("no_such_player");
  });

  it("turns a banned identity's seat requests away as from a locked room", () => {
    const { room } = setup();
    room.ban({ identity: "ann" }, 60_000, "");
    const req = (identity: string) => room.reserveSeats({ roomId: "r1", seats: [{ reservationId: `res-${identity.padEnd(16, "x")}`, identity }], ttlMs: 1000, byId: true });
    expect(req("ann")).toMatchObject({ ok: false, code: "locked", reason: "banned from this room" });
    expect(req("bob").ok).toBe(true);
  });

  it("unban lifts it; bans survive a host's restart through activeBans / restoreBans, expired ones dropped", () => {
    const { clock, room, join } = setup();
    room.ban({ identity: "ann" }, 60_000, "a");
    room.ban({ identity: "bob" }, 1_000, "b");
    expect(room.unban("ann")).toBe(true);
    expect(room.unban("ann")).toBe(false);
    expect(join("ann").welcome).toBeDefined();
    room.ban({ identity: "carl" }, 60_000, "c");
    const kept = room.activeBans();
    expect(kept.map((b) => b.identity)).toEqual(["bob", "carl"]);
    const next = setup();
    next.clock.advance(clock.now() - next.clock.now() + 2_000);
    next.room.restoreBans(kept);
    expect(next.room.activeBans()).toEqual([{ identity: "carl", until: kept[1]!.until, reason: "c" }]);
    expect(next.join("carl").refused?.counter).toBe("banned");
    expect(next.join("bob").welcome).toBeDefined();
  });
});

describe("lock, close and notice", () => {
  it("lock keeps new players out (status locked), unlock lets them in", () => {
    const { room, join } = setup();
    room.setLocked(true);
    expect(room.status().locked).toBe(true);
    expect(join("ann").conn.closedWith?.code).toBe(CloseCode.room_locked);
    room.setLocked(false);
    expect(join("ann").welcome).toBeDefined();
  });

  it("close tells every socket room_closed with the reason, frees every seat and reservation, and leaves an empty room that plays on", () => {
    const { room, join } = setup({ cap: 4 });
    const ann = join("ann");
    const bob = join("bob");
    room.closed(bob.id, 1006); // held
    const pending = new FakeConnection();
    room.open(pending, "carl");
    room.reserveSeats({ roomId: "r1", seats: [{ reservationId: "res-dddddddddddddddd", identity: "dan" }], ttlMs: 10_000, byId: false });
    expect(room.closeRoom("maintenance")).toBe(2);
    expect(ann.conn.closedWith).toEqual({ code: CloseCode.room_closed, reason: "closed by the operator: maintenance" });
    expect(pending.closedWith?.code).toBe(CloseCode.room_closed);
    expect(room.status()).toMatchObject({ clients: 0, reserved: 0 });
    expect(room.seatCount).toBe(0);
    expect(room.loopRunning).toBe(false);
    expect(join("erin").welcome).toBeDefined();
  });

  it("close sends the room's bots away too", () => {
    const clock = new FakeClock();
    const room = new Room({
      kind: "counter",
      roomId: "b",
      game: new CounterGame(),
      clock,
      bots: { inputEveryMs: 100, create: () => ({ next: () => null }) },
    });
    expect(room.setBots(2)).toBe(2);
    room.closeRoom("");
    expect(room.botCount).toBe(0);
    expect(room.seatCount).toBe(0);
  });

  it("notice reaches every connected player, and no held seat", () => {
    const { room, join } = setup();
    const ann = join("ann");
    const bob = join("bob");
    const gone = join("gone");
    room.closed(gone.id, 1006);
    expect(room.notice("restart in 5 minutes")).toBe(2);
    for (const p of [ann, bob]) expect(p.conn.messages().filter((m) => m.kind === "notice")).toEqual([{ kind: "notice", type: OPERATOR_NOTICE, data: { text: "restart in 5 minutes" } }]);
    expect(gone.conn.messages().some((m) => m.kind === "notice")).toBe(false);
  });
});
