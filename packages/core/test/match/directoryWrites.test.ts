/**
 * A matchmaker object's writes (directoryWrites.ts): the directory batched a moment after a
 * change, each room's last state once, removals included, never confirmed, a room storage does
 * not hold yet written at once (a restart must not lose it); parties written at
 * once and confirmed (the matchmaker is their only authority), counted apart.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BusyMeter } from "@tikron/core";
import type { PartyRecord, RoomStatus } from "@tikron/core/match";
import { DirectoryWrites } from "../../src/match/directoryWrites";
import { StorageMeter, type MeteredState } from "../../src/storage/storageMeter";

const status = (roomId: string, clients: number): RoomStatus => ({ roomId, clients, bots: 0, reserved: 0, maxClients: 8, metadata: {}, locked: false, private: false, createdAt: 1, version: [1, clients], overrides: "", refreshMs: 0 });

function setup() {
  const calls: { op: string; keys: string[]; unconfirmed: boolean; values?: unknown[] }[] = [];
  const state = {
    storage: {
      put: async (entries: string | Record<string, unknown>, value?: unknown, opts?: { allowUnconfirmed?: boolean }) => {
        const e = typeof entries === "string" ? { [entries]: value } : entries;
        const o = typeof entries === "string" ? opts : (value as typeof opts);
        calls.push({ op: "put", keys: Object.keys(e), unconfirmed: o?.allowUnconfirmed === true, values: Object.values(e) });
      },
      delete: async (keys: string | string[], opts?: { allowUnconfirmed?: boolean }) => {
        calls.push({ op: "delete", keys: typeof keys === "string" ? [keys] : keys, unconfirmed: opts?.allowUnconfirmed === true });
        return true;
      },
    },
    waitUntil: () => {},
  } as unknown as MeteredState;
  const meter = new StorageMeter(state, "matchmaker");
  return { dir: new DirectoryWrites(meter, new BusyMeter(), 250), calls, meter };
}

describe("a matchmaker's directory writes", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("writes a burst of changes once, each room's last state, a moment later and unconfirmed", () => {
    const { dir, calls, meter } = setup();
    dir.held(["a", "b"]);
    dir.put(status("a", 1));
    dir.put(status("a", 2));
    dir.put(status("b", 1));
    dir.put(status("a", 3));
    dir.delete("c");
    vi.advanceTimersByTime(249);
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(calls.map(({ op, keys, unconfirmed }) => ({ op, keys, unconfirmed }))).toEqual([
      { op: "put", keys: ["room:a", "room:b"], unconfirmed: true },
      { op: "delete", keys: ["room:c"], unconfirmed: true },
    ]);
    expect((calls[0]!.values![0] as RoomStatus).clients).toBe(3);
    expect(meter.counts().directory).toMatchObject({ calls: 2, confirmed: 0, rows: 3 });
  });

  it("removes a room put and dropped in the same moment, and starts a new batch after each write", () => {
    const { dir, calls } = setup();
    dir.held(["a", "b"]);
    dir.put(status("a", 1));
    dir.delete("a");
    vi.advanceTimersByTime(250);
    dir.put(status("b", 1));
    vi.advanceTimersByTime(250);
    expect(calls.map((c) => [c.op, ...c.keys])).toEqual([
      ["delete", "room:a"],
      ["put", "room:b"],
    ]);
  });

  it("writes a party's record at once and confirmed, apart from the directory's batch, and counts it as the party's", () => {
    const { dir, calls, meter } = setup();
    const party = { code: "ABCDEFGHJK", version: 1, members: [] } as unknown as PartyRecord;
    dir.held(["a"]);
    dir.put(status("a", 1));
    dir.putParty(party);
    expect(calls).toEqual([{ op: "put", keys: ["party:ABCDEFGHJK"], unconfirmed: false, values: [party] }]);
    dir.deleteParty("ABCDEFGHJK");
    expect(calls[1]).toEqual({ op: "delete", keys: ["party:ABCDEFGHJK"], unconfirmed: false });
    vi.advanceTimersByTime(250);
    expect(calls.map((c) => [c.op, ...c.keys])).toEqual([
      ["put", "party:ABCDEFGHJK"],
      ["delete", "party:ABCDEFGHJK"],
      ["put", "room:a"],
    ]);
    expect(meter.counts()).toMatchObject({ party: { calls: 2, confirmed: 2, rows: 2 }, directory: { calls: 1, confirmed: 0, rows: 1 } });
    expect(meter.counts().party!.bytes).toBe(JSON.stringify(party).length);
  });

  it("writes a room storage does not hold yet at once with what waits, then batches its changes; a removed room is new again", () => {
    const { dir, calls } = setup();
    dir.held(["old"]);
    dir.put(status("old", 2));
    expect(calls).toEqual([]);
    dir.put(status("new", 1));
    expect(calls.map((c) => [c.op, c.unconfirmed, ...c.keys])).toEqual([["put", true, "room:old", "room:new"]]);
    dir.put(status("new", 2));
    vi.advanceTimersByTime(249);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls.map((c) => [c.op, ...c.keys])).toEqual([
      ["put", "room:old", "room:new"],
      ["put", "room:new"],
    ]);
    dir.delete("new");
    vi.advanceTimersByTime(250);
    dir.put(status("new", 1));
    expect(calls.map((c) => [c.op, ...c.keys]).slice(2)).toEqual([
      ["delete", "room:new"],
      ["put", "room:new"],
    ]);
  });
});
