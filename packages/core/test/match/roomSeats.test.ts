import { describe, expect, it } from "vitest";
import { BinaryWriter, CloseCode, ErrorCode, PROTOCOL_VERSION, encodeHello, encodeLeave } from "@tikron/protocol";
import { FakeClock, Room, type RoomOptions } from "../../src";
import type { SeatRequest } from "../../src/match";
import { CounterGame, FakeConnection } from "../fakes";

const w = new BinaryWriter();
const hello = () => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: "p" }).toBytes();

function setup(opts: Partial<RoomOptions> = {}, listing: ConstructorParameters<typeof Room>[0]["listing"] = {}) {
  const clock = new FakeClock();
  const game = new CounterGame();
  let reports = 0;
  const room = new Room({ kind: "counter", roomId: "r1", game, clock, options: { cap: 3, ...opts }, listing, hooks: { onStatusChange: () => reports++ } });
  /** A socket with an identity (as a verified reservation token gives), saying hello. */
  const join = (identity?: string, reservation?: string) => {
    const conn = new FakeConnection();
    const id = room.open(conn, identity, undefined, reservation);
    room.message(id, hello());
    const welcome = conn.messages().find((m) => m.kind === "welcome");
    const error = conn.messages().find((m) => m.kind === "error");
    return { conn, id, welcome, error };
  };
  const reserve = (seats: [string, string][], extra: Partial<SeatRequest> = {}) =>
    room.reserveSeats({ roomId: "r1", seats: seats.map(([reservationId, identity]) => ({ reservationId, identity })), ttlMs: 1000, byId: false, ...extra });
  return { clock, game, room, join, reserve, reports: () => reports };
}

describe("Room: seat reservations", () => {
  it("holds a seat for one identity: its join takes it, counted against the cap meanwhile", () => {
    const { room, join, reserve } = setup({ cap: 2 });
    expect(reserve([["res-aaaaaaaaaaaaaaaa", "ann"]]).ok).toBe(true);
    expect(room.status()).toMatchObject({ clients: 0, reserved: 1, maxClients: 2 });
    join();
    // One seat taken, one held: a direct join finds the room full.
    const third = join();
    expect(third.error).toMatchObject({ code: ErrorCode.room_full });
    expect(third.conn.closedWith?.code).toBe(CloseCode.room_full);
    const ann = join("ann", "res-aaaaaaaaaaaaaaaa");
    expect(ann.welcome).toBeDefined();
    expect(room.status()).toMatchObject({ clients: 2, reserved: 0 });
    expect(room.snapshot().reservations).toMatchObject({ made: 1, used: 1, pending: 0 });
  });

  it("is single-use and bound to its identity", () => {
    const { room, join, reserve } = setup();
    reserve([["res-bbbbbbbbbbbbbbbb", "bob"]]);
    const eve = join("eve", "res-bbbbbbbbbbbbbbbb");
    expect(eve.error).toMatchObject({ code: ErrorCode.reservation_invalid });
    expect(eve.conn.closedWith?.code).toBe(CloseCode.reservation_invalid);
    // The rightful holder still gets it; a second use by another socket is refused.
    expect(join("bob", "res-bbbbbbbbbbbbbbbb").welcome).toBeDefined();
    expect(join("carl", "res-bbbbbbbbbbbbbbbb").conn.closedWith?.code).toBe(CloseCode.reservation_invalid);
    expect(room.snapshot().reservations).toMatchObject({ used: 1, invalid: 2 });
  });

  it("is given up when unused after its lifetime, and the seat is free again", () => {
    const { clock, room, join, reserve } = setup({ cap: 1 });
    reserve([["res-cccccccccccccccc", "cid"]]);
    expect(join().conn.closedWith?.code).toBe(CloseCode.room_full);
    clock.advance(999);
    expect(room.status().reserved).toBe(1);
    clock.advance(1);
    expect(room.status().reserved).toBe(0);
    expect(join("cid", "res-cccccccccccccccc").conn.closedWith?.code).toBe(CloseCode.reservation_invalid);
    expect(join().welcome).toBeDefined();
    expect(room.snapshot().reservations).toMatchObject({ made: 1, expired: 1, used: 0 });
  });

  it("refuses seats past the cap whatever was asked, all or none", () => {
    const { room, join, reserve } = setup({ cap: 3 });
    join();
    const r = reserve([["res-1111111111111111", "a"], ["res-2222222222222222", "b"], ["res-3333333333333333", "c"]]);
    expect(r).toMatchObject({ ok: false, code: "room_full" });
    expect(room.status().reserved).toBe(0);
    expect(reserve([["res-1111111111111111", "a"], ["res-2222222222222222", "b"]]).ok).toBe(true);
    expect(reserve([["res-4444444444444444", "d"]])).toMatchObject({ ok: false, code: "room_full", status: { clients: 1, reserved: 2 } });
  });

  it("one identity holds one reservation; an identity already seated needs none", () => {
    const { room, join, reserve } = setup({ cap: 2 });
    reserve([["res-aaaaaaaaaaaaaaaa", "ann"]]);
    reserve([["res-bbbbbbbbbbbbbbbb", "ann"]]);
    expect(room.status().reserved).toBe(1);
    expect(join("ann", "res-aaaaaaaaaaaaaaaa").conn.closedWith?.code).toBe(CloseCode.reservation_invalid);
    expect(join("ann", "res-bbbbbbbbbbbbbbbb").welcome).toBeDefined();
    expect(reserve([["res-cccccccccccccccc", "ann"]]).ok).toBe(true);
    expect(room.status()).toMatchObject({ clients: 1, reserved: 0 });
  });

  it("a locked room takes no reservation and no direct join; a private one is found by id only", () => {
    const { game, room, join, reserve } = setup({}, { private: true, metadata: { mode: "duel" } });
    expect(reserve([["res-aaaaaaaaaaaaaaaa", "ann"]])).toMatchObject({ ok: false, code: "not_found", status: { private: true } });
    expect(reserve([["res-aaaaaaaaaaaaaaaa", "ann"]], { byId: true }).ok).toBe(true);
    game.ctx.lock();
    expect(reserve([["res-bbbbbbbbbbbbbbbb", "bob"]], { byId: true })).toMatchObject({ ok: false, code: "locked" });
    expect(join().conn.closedWith?.code).toBe(CloseCode.room_locked);
    // A reservation made before the lock is honoured.
    expect(join("ann", "res-aaaaaaaaaaaaaaaa").welcome).toBeDefined();
    game.ctx.unlock();
    expect(join().welcome).toBeDefined();
    expect(room.status()).toMatchObject({ private: true, locked: false, metadata: { mode: "duel" } });
  });

  it("reports every change of seats, reservations, metadata and lock, each with a newer version", () => {
    const { game, room, join, reserve, reports } = setup();
    const versions: number[] = [];
    const seen = () => versions.push(room.status().version[1]);
    seen();
    reserve([["res-aaaaaaaaaaaaaaaa", "ann"]]);
    seen();
    const a = join("ann", "res-aaaaaaaaaaaaaaaa");
    seen();
    game.ctx.setMetadata({ round: 2 });
    seen();
    game.ctx.lock();
    seen();
    room.message(a.id, encodeLeave(w.reset()).toBytes());
    seen();
    expect(reports()).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < versions.length; i++) expect(versions[i]!).toBeGreaterThan(versions[i - 1]!);
    expect(room.status()).toMatchObject({ clients: 0, locked: true, metadata: { round: 2 } });
    expect(() => game.ctx.setMetadata({ "bad key": 1 })).toThrow(/metadata key/);
    expect(() => game.ctx.setMetadata({ n: Number.NaN })).toThrow(/finite/);
  });

  it("gives back a reservation its matchmaker releases (its seat free again), leaving used ones and other identities' alone", () => {
    const { room, join, reserve, reports } = setup({ cap: 3 });
    expect(reserve([["res-aaaaaaaaaaaaaaaa", "ann"], ["res-bbbbbbbbbbbbbbbb", "bob"], ["res-cccccccccccccccc", "cid"]]).ok).toBe(true);
    expect(join("ann", "res-aaaaaaaaaaaaaaaa").welcome).toBeDefined();
    const before = reports();
    // Ann's was used; bob's is named with another identity: neither changes. Cid's goes.
    const status = room.releaseSeats([
      { reservationId: "res-aaaaaaaaaaaaaaaa", identity: "ann" },
      { reservationId: "res-bbbbbbbbbbbbbbbb", identity: "eve" },
      { reservationId: "res-cccccccccccccccc", identity: "cid" },
    ]);
    expect(status).toMatchObject({ clients: 1, reserved: 1 });
    expect(reports()).toBe(before + 1);
    expect(room.snapshot().reservations).toMatchObject({ released: 1, used: 1, pending: 1 });
    // The released seat is free for anyone; its reservation no longer seats cid.
    expect(join().welcome).toBeDefined();
    expect(join("cid", "res-cccccccccccccccc").conn.closedWith?.code).toBe(CloseCode.reservation_invalid);
    expect(join("bob", "res-bbbbbbbbbbbbbbbb").welcome).toBeDefined();
  });
});

describe("Room: a restart keeps how the room is listed", () => {
  it("a private, locked room with metadata comes back private, locked and with its metadata", () => {
    const clock = new FakeClock();
    const firstGame = new CounterGame();
    const first = new Room({ kind: "counter", roomId: "r1", game: firstGame, clock, options: { cap: 3 }, listing: { private: true, metadata: { mode: "duel" } } });
    const conn = new FakeConnection();
    first.message(first.open(conn, "ann"), hello());
    const game = new CounterGame();
    const second = new Room({ kind: "counter", roomId: "r1", game, clock, options: { cap: 3 } });
    const cp = first.checkpoint();
    firstGame.ctx.lock();
    const locked = first.checkpoint();
    expect(cp.listing).toEqual({ metadata: { mode: "duel" }, private: true, locked: false });
    expect(second.restoreCheckpoint(locked)).toBe(true);
    expect(second.status()).toMatchObject({ private: true, locked: true, metadata: { mode: "duel" }, clients: 1 });
    // A checkpoint without a listing (an older one) leaves the new room's own listing as it is.
    const third = new Room({ kind: "counter", roomId: "r1", game: new CounterGame(), clock, options: { cap: 3 }, listing: { metadata: { mode: "party" } } });
    expect(third.restoreCheckpoint({ ...cp, listing: undefined })).toBe(true);
    expect(third.status()).toMatchObject({ private: false, locked: false, metadata: { mode: "party" } });
  });
});
