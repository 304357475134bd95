/**
 * A room object's checkpoint and store keeping (roomKeeping.ts) against an in-memory storage:
 * how writes are batched and spaced, when frames wait for them, the store written only when it
 * changed, and a relayed room's relay count kept with its checkpoint.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BusyMeter, type HostedRoom } from "@tikron/core";
import { RoomKeeping, type KeepingState } from "../src/roomKeeping";

interface Write {
  op: "put" | "delete";
  key: string;
  value?: unknown;
  unconfirmed?: boolean;
}

/** The storage calls the keeping makes, and what a restarted object would read back. */
function fakeState(initial: Record<string, unknown> = {}) {
  const data = new Map<string, unknown>(Object.entries(initial));
  const writes: Write[] = [];
  const state = {
    storage: {
      get: async (keys: string[]) => new Map(keys.filter((k) => data.has(k)).map((k) => [k, structuredClone(data.get(k))])),
      put: async (key: string, value: unknown, opts?: { allowUnconfirmed?: boolean }) => {
        writes.push({ op: "put", key, value: structuredClone(value), unconfirmed: opts?.allowUnconfirmed });
        data.set(key, structuredClone(value));
      },
      delete: async (key: string, opts?: { allowUnconfirmed?: boolean }) => {
        writes.push({ op: "delete", key, unconfirmed: opts?.allowUnconfirmed });
        return data.delete(key);
      },
    },
    waitUntil: (_p: Promise<unknown>) => {},
  };
  return { state: state as unknown as KeepingState, writes, data };
}

/** The slice of a room the keeping reads. */
function fakeRoom(seats: number) {
  const room = {
    kind: "k",
    roomId: "r",
    seatCount: seats,
    storeVersion: 0,
    store: null as unknown,
    restored: [] as unknown[],
    checkpoint: () => ({ kind: "k", roomId: "r", seats: room.seatCount }),
    storeSnapshot: () => room.store,
    restoreCheckpoint: (value: unknown) => {
      room.restored.push(value);
      return true;
    },
  };
  return room;
}

describe("a room object's checkpoint and store keeping", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function keeping(room: ReturnType<typeof fakeRoom> | null, relays = 0, initial: Record<string, unknown> = {}) {
    const s = fakeState(initial);
    const k = new RoomKeeping(s.state, new BusyMeter(), () => room as unknown as HostedRoom | null, () => relays);
    return { k, ...s };
  }

  it("writes a burst of changes as one write on a later turn, confirmed when any of them was a change", () => {
    const room = fakeRoom(2);
    const { k, writes } = keeping(room);
    k.checkpointDue(false);
    k.checkpointDue(true);
    k.checkpointDue(false);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(writes).toEqual([{ op: "put", key: "room:checkpoint", value: room.checkpoint(), unconfirmed: false }]);
  });

  it("writes a periodic checkpoint without holding frames back", () => {
    const { k, writes } = keeping(fakeRoom(1));
    k.checkpointDue(false);
    vi.advanceTimersByTime(0);
    expect(writes.map((w) => w.unconfirmed)).toEqual([true]);
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

  it("removes the checkpoint once the room has no seats, and writes nothing without a room", () => {
    const room = fakeRoom(0);
    const { k, writes } = keeping(room);
    k.checkpointDue(true);
    vi.advanceTimersByTime(0);
    expect(writes).toEqual([{ op: "delete", key: "room:checkpoint", unconfirmed: false }]);
    const none = keeping(null);
    none.k.checkpointDue(true);
    none.k.saveCheckpoint();
    vi.advanceTimersByTime(1000);
    expect(none.writes).toEqual([]);
  });

  it("writes the store with the checkpoint only when its version changed, and removes it when empty", () => {
    const room = fakeRoom(1);
    const { k, writes, data } = keeping(room);
    k.saveCheckpoint();
    expect(writes.map((w) => w.key)).toEqual(["room:checkpoint"]);
    room.storeVersion = 1;
    room.store = { best: 3 };
    k.saveCheckpoint();
    expect(writes.slice(1).map((w) => [w.op, w.key])).toEqual([["put", "room:checkpoint"], ["put", "room:store"]]);
    expect(data.get("room:store")).toEqual({ best: 3 });
    expect(k.store).toEqual({ best: 3 });
    k.saveCheckpoint();
    expect(writes.slice(3).map((w) => w.key)).toEqual(["room:checkpoint"]);
    room.storeVersion = 2;
    room.store = null;
    k.saveCheckpoint();
    expect(writes.slice(4).map((w) => [w.op, w.key])).toEqual([["put", "room:checkpoint"], ["delete", "room:store"]]);
    expect(k.store).toBeUndefined();
  });

  it("keeps a relayed room's relay count with its checkpoint, so a restarted object makes it relayed again", async () => {
    const { k, data } = keeping(fakeRoom(3), 2);
    k.saveCheckpoint();
    expect(data.get("room:checkpoint")).toMatchObject({ relays: 2 });
    const restarted = keeping(null, 0, Object.fromEntries(data));
    await restarted.k.load();
    expect(restarted.k.savedRelays()).toBe(2);
    const single = keeping(fakeRoom(3), 0);
    single.k.saveCheckpoint();
    expect(single.data.get("room:checkpoint")).not.toHaveProperty("relays");
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

  it("restores the saved checkpoint into the first room made, once, and starts it from the saved store", async () => {
    const saved = { kind: "k", roomId: "r", seats: 2 };
    const { k } = keeping(null, 0, { "room:checkpoint": saved, "room:store": { best: 1 } });
    await k.load();
    expect(k.store).toEqual({ best: 1 });
    const first = fakeRoom(0);
    k.roomMade(first as unknown as HostedRoom);
    expect(first.restored).toEqual([saved]);
    expect(k.savedCheckpoint).toBeUndefined();
    const second = fakeRoom(0);
    k.roomMade(second as unknown as HostedRoom);
    expect(second.restored).toEqual([]);
  });
});
