/**
 * A room's keeping (storage/roomKeeping.ts) against an in-memory storage: each seat's record
 * written at once and confirmed (the one write a join waits for), checkpoints written as pieces
 * of a chain on a later turn, batched and spaced, confirmed only for changes, everything removed
 * once the room has no seats, the store written only when it changed, a relayed room's relay
 * count kept, and what a restarted object reads back (the older single-key checkpoint included).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BusyMeter, type CheckpointSeat, type CheckpointWorld, type HostedRoom, type RoomCheckpoint } from "../../src";
import { RoomKeeping, type KeepingState } from "../../src/storage/roomKeeping";

interface Write {
  op: "put" | "delete";
  keys: string[];
  unconfirmed?: boolean;
}

/** The storage calls the keeping makes, and what a restarted object would read back. */
function fakeState(initial: Record<string, unknown> = {}) {
  const data = new Map<string, unknown>(Object.entries(initial));
  const writes: Write[] = [];
  const state = {
    storage: {
      get: async (keys: string[]) => new Map(keys.filter((k) => data.has(k)).map((k) => [k, structuredClone(data.get(k))])),
      list: async ({ prefix }: { prefix: string }) => new Map([...data].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k, structuredClone(v)])),
      put: async (key: string | Record<string, unknown>, value?: unknown, opts?: { allowUnconfirmed?: boolean }) => {
        const entries = typeof key === "string" ? { [key]: value } : key;
        const o = typeof key === "string" ? opts : (value as typeof opts);
        writes.push({ op: "put", keys: Object.keys(entries), unconfirmed: o?.allowUnconfirmed });
        for (const [k, v] of Object.entries(entries)) data.set(k, structuredClone(v));
      },
      delete: async (key: string | string[], opts?: { allowUnconfirmed?: boolean }) => {
        const keys = typeof key === "string" ? [key] : key;
        writes.push({ op: "delete", keys, unconfirmed: opts?.allowUnconfirmed });
        for (const k of keys) data.delete(k);
        return true;
      },
    },
    waitUntil: (_p: Promise<unknown>) => {},
  };
  return { state: state as unknown as KeepingState, writes, data };
}

const seat = (playerId: number, lastSeq = 0): CheckpointSeat => ({ playerId, token: `t${playerId}`, name: `p${playerId}`, json: false, lastSeq });

/**
 * The slice of a room the keeping reads: its checkpoints are pieces of a world chain, each
 * holding a change of the world (`e<n>`) unless the room is `still` (a later piece then holds none).
 */
function fakeRoom(seats: number) {
  let piece = -1;
  const room = {
    kind: "k",
    roomId: "r",
    seatCount: seats,
    storeVersion: 0,
    store: null as unknown,
    restored: [] as unknown[],
    asked: [] as CheckpointWorld[],
    still: false,
    checkpoint(world: CheckpointWorld = "whole"): RoomCheckpoint {
      room.asked.push(world);
      piece = world === "base" ? 0 : piece + 1;
      const game = { world: { schema: 1, entities: room.still && piece > 0 ? "" : `e${piece}`, piece } };
      return { v: 1, kind: "k", roomId: "r", savedAt: 0, seats: Array.from({ length: room.seatCount }, (_, i) => seat(i + 1, 10 + i)), game, worldPiece: piece };
    },
    storeSnapshot: () => room.store,
    restoreCheckpoint: (value: unknown) => {
      room.restored.push(value);
      return true;
    },
  };
  return room;
}

describe("a room object's keeping", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function keeping(room: ReturnType<typeof fakeRoom> | null, relays = 0, initial: Record<string, unknown> = {}) {
    const s = fakeState(initial);
    const k = new RoomKeeping(s.state, new BusyMeter(), () => room as unknown as HostedRoom | null, () => relays);
    return { k, ...s };
  }

  it("writes a seat's record at once and confirmed, and its removal without holding anything back", () => {
    const { k, writes, data } = keeping(fakeRoom(1));
    k.seatRecord(3, seat(3));
    expect(writes).toEqual([{ op: "put", keys: ["room:seat:3"], unconfirmed: false }]);
    expect(JSON.parse(data.get("room:seat:3") as string)).toEqual(seat(3));
    k.seatRecord(3, null);
    expect(writes[1]).toEqual({ op: "delete", keys: ["room:seat:3"], unconfirmed: true });
    expect(k.writes.counts().seat).toEqual({ calls: 2, confirmed: 1, rows: 2, bytes: JSON.stringify(seat(3)).length, unchanged: 0 });
  });

  it("writes no piece that holds nothing new (counted as unchanged), and the chain's next piece takes its key", async () => {
    const room = fakeRoom(2);
    const { k, writes, data } = keeping(room);
    k.roomMade(room as unknown as HostedRoom);
    k.saveCheckpoint(false);
    k.saveCheckpoint(false);
    // The world still, the seats' seqs and the rest the same: three checkpoints, nothing written.
    room.still = true;
    for (let i = 0; i < 3; i++) k.saveCheckpoint(false);
    expect(writes.map((w) => w.keys)).toEqual([["room:cp:0"], ["room:cp:1"]]);
    expect(k.writes.counts().checkpoint).toMatchObject({ calls: 2, rows: 2, unchanged: 3 });
    // The world moves again: the chain's piece 5 is written as the kept chain's piece 2.
    room.still = false;
    k.saveCheckpoint(false);
    expect(writes.at(-1)?.keys).toEqual(["room:cp:2"]);
    expect(JSON.parse(data.get("room:cp:2") as string)).toMatchObject({ piece: 2, worldPiece: 2, game: { world: { entities: "e5", piece: 2 } } });
    // A seat's seq moved: written even with the world still.
    room.still = true;
    room.seatCount = 3;
    k.saveCheckpoint(false);
    expect(writes.at(-1)?.keys).toEqual(["room:cp:3"]);
    // Read back: one chain, base and the changes written.
    const restarted = keeping(null, 0, Object.fromEntries(data));
    await restarted.k.load();
    const made = fakeRoom(0);
    restarted.k.roomMade(made as unknown as HostedRoom);
    expect((made.restored[0] as RoomCheckpoint).game).toEqual({ world: { schema: 1, entities: "e0", changes: ["e1", "e5"] } });
  });

  it("keeps what the room was made with beside its first seat's record, and makes the restarted room with it", async () => {
    const room = fakeRoom(1);
    const { k, writes, data } = keeping(room);
    k.roomMade(room as unknown as HostedRoom, { options: { cap: 8 }, params: {} });
    k.seatRecord(1, seat(1));
    k.seatRecord(2, seat(2));
    expect(writes.map((w) => w.keys)).toEqual([["room:seat:1", "room:made"], ["room:seat:2"]]);
    expect(writes[0]!.unconfirmed).toBe(false);
    const restarted = keeping(null, 0, Object.fromEntries(data));
    await restarted.k.load();
    expect(restarted.k.savedCheckpoint).toMatchObject({ madeWith: { options: { cap: 8 }, params: {} } });
    k.seatRecord(1, null);
    k.seatRecord(2, null);
    room.seatCount = 0;
    k.saveCheckpoint();
    expect(data.has("room:made")).toBe(false);
  });

  it("writes a burst of due checkpoints as one piece on a later turn, confirmed when any of them was a change", () => {
    const room = fakeRoom(2);
    const { k, writes } = keeping(room);
    k.roomMade(room as unknown as HostedRoom);
    k.checkpointDue(false);
    k.checkpointDue(true);
    k.checkpointDue(false);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(writes).toEqual([{ op: "put", keys: ["room:cp:0"], unconfirmed: false }]);
  });

  it("writes a periodic checkpoint without holding frames back, a base first and the next pieces after it", () => {
    const room = fakeRoom(1);
    const { k, writes } = keeping(room);
    k.roomMade(room as unknown as HostedRoom);
    for (let i = 0; i < 3; i++) {
      k.checkpointDue(false);
      vi.advanceTimersByTime(100);
    }
    expect(writes).toEqual([0, 1, 2].map((n) => ({ op: "put", keys: [`room:cp:${n}`], unconfirmed: true })));
    expect(room.asked).toEqual(["base", "next", "next"]);
  });

  it("spaces writes at least 100 ms apart: a change right after a write waits for the rest of the spacing", () => {
    const { k, writes } = keeping(fakeRoom(1));
    k.checkpointDue(true);
    vi.advanceTimersByTime(0);
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(30);
    k.checkpointDue(true);
    vi.advanceTimersByTime(69);
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(writes).toHaveLength(2);
  });

  it("removes everything kept once the room has no seats, and writes nothing without a room or with nothing kept", () => {
    const room = fakeRoom(2);
    const { k, writes, data } = keeping(room);
    k.seatRecord(1, seat(1));
    k.saveCheckpoint(false);
    k.saveCheckpoint(false);
    k.seatRecord(1, null);
    room.seatCount = 0;
    k.saveCheckpoint();
    expect(writes.at(-1)).toEqual({ op: "delete", keys: ["room:cp:0", "room:cp:1"], unconfirmed: false });
    expect([...data.keys()]).toEqual([]);
    const count = writes.length;
    k.saveCheckpoint();
    expect(writes).toHaveLength(count);
    const none = keeping(null);
    none.k.checkpointDue(true);
    none.k.saveCheckpoint();
    vi.advanceTimersByTime(1000);
    expect(none.writes).toEqual([]);
  });

  it("writes the store with a checkpoint only when its version changed, and removes it when empty", () => {
    const room = fakeRoom(1);
    const { k, writes, data } = keeping(room);
    k.saveCheckpoint();
    expect(writes.map((w) => w.keys)).toEqual([["room:cp:0"]]);
    room.storeVersion = 1;
    room.store = { best: 3 };
    k.saveCheckpoint();
    expect(writes.slice(1).map((w) => [w.op, ...w.keys])).toEqual([["put", "room:cp:1"], ["put", "room:store"]]);
    expect(data.get("room:store")).toEqual({ best: 3 });
    expect(k.store).toEqual({ best: 3 });
    k.saveCheckpoint();
    expect(writes.slice(3).map((w) => w.keys)).toEqual([["room:cp:2"]]);
    room.storeVersion = 2;
    room.store = null;
    k.saveCheckpoint();
    expect(writes.slice(4).map((w) => [w.op, ...w.keys])).toEqual([["put", "room:cp:3"], ["delete", "room:store"]]);
    expect(k.store).toBeUndefined();
  });

  it("keeps a relayed room's relay count with its checkpoint, so a restarted object makes it relayed again", async () => {
    const { k, data } = keeping(fakeRoom(3), 2);
    k.saveCheckpoint();
    expect(JSON.parse(data.get("room:cp:0") as string)).toMatchObject({ relays: 2 });
    const restarted = keeping(null, 0, Object.fromEntries(data));
    await restarted.k.load();
    expect(restarted.k.savedRelays()).toBe(2);
    const single = keeping(fakeRoom(3), 0);
    single.k.saveCheckpoint();
    expect(JSON.parse(single.data.get("room:cp:0") as string)).not.toHaveProperty("relays");
  });

  it("reads no relay count from a checkpoint without one, or with one that is not a count", async () => {
    for (const relays of [undefined, 0, -1, 1.5, "2"]) {
      const { k } = keeping(null, 0, { "room:checkpoint": { seats: 1, relays } });
      await k.load();
      expect(k.savedRelays()).toBe(0);
    }
    const empty = keeping(null);
    await empty.k.load();
    expect(empty.k.savedRelays()).toBe(0);
  });

  it("brings back every kept seat with the last piece's seqs and state, into the first room made, once", async () => {
    const room = fakeRoom(2);
    const { k, data } = keeping(room);
    k.seatRecord(1, seat(1));
    k.seatRecord(2, seat(2));
    k.saveCheckpoint(false);
    k.saveCheckpoint(false);
    // A seat taken after the last piece: kept by its record alone.
    k.seatRecord(3, seat(3));
    const restarted = keeping(null, 0, Object.fromEntries(data));
    await restarted.k.load();
    const first = fakeRoom(0);
    restarted.k.roomMade(first as unknown as HostedRoom);
    const cp = first.restored[0] as RoomCheckpoint;
    expect(cp.seats.map((s) => [s.playerId, s.lastSeq])).toEqual([
      [1, 10],
      [2, 11],
      [3, 0],
    ]);
    expect(cp.gameSeats).toEqual([1, 2]);
    expect(cp.game).toEqual({ world: { schema: 1, entities: "e0", changes: ["e1"] } });
    expect(restarted.k.savedCheckpoint).toBeUndefined();
    const second = fakeRoom(0);
    restarted.k.roomMade(second as unknown as HostedRoom);
    expect(second.restored).toEqual([]);
  });

  it("brings back seats kept without any checkpoint as the room's own", async () => {
    const { k } = keeping(null, 0, { "room:seat:4": JSON.stringify(seat(4, 2)) });
    await k.load();
    const room = fakeRoom(0);
    k.roomMade(room as unknown as HostedRoom);
    expect(room.restored).toEqual([{ v: 1, kind: "k", roomId: "r", savedAt: 0, seats: [seat(4, 2)] }]);
  });

  it("reads a checkpoint kept whole under the older key, gives its seats records of their own, and removes it with the next write", async () => {
    const old: RoomCheckpoint = { v: 1, kind: "k", roomId: "r", savedAt: 1, seats: [seat(1, 5)], game: { board: [1] } };
    const room = fakeRoom(1);
    const { k: reading, data, writes } = keeping(room, 0, { "room:checkpoint": old, "room:store": { best: 1 } });
    await reading.load();
    expect(reading.store).toEqual({ best: 1 });
    reading.roomMade(room as unknown as HostedRoom);
    expect(room.restored).toEqual([old]);
    expect(data.has("room:seat:1")).toBe(true);
    reading.saveCheckpoint(false);
    expect(writes.at(-1)).toMatchObject({ op: "delete", keys: ["room:checkpoint"] });
    expect(data.has("room:checkpoint")).toBe(false);
  });
});
