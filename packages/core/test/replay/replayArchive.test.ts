/**
 * Recorded matches kept in a bucket (replay/replayArchive.ts) and recorded piece by piece into a
 * host's storage (replay/replayPieces.ts), on in-memory ports: listed newest first across pages,
 * a match nobody joined never kept, old matches pruned, cut matches archived at the next start.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BusyMeter } from "../../src/busyMeter";
import { BucketArchive, replayKey, retentionDaysOf, type ReplayBucket } from "../../src/replay/replayArchive";
import { PIECE_PREFIX, ReplayPieces, type PieceHost } from "../../src/replay/replayPieces";
import type { MatchSummary } from "../../src/replay/recording";

const DAY = 86_400_000;
/** A match id started at `at` (ids sort by start: base-36 time first). */
const idAt = (at: number, n = 0) => `${at.toString(36).padStart(9, "0")}-${String(n).padStart(10, "0")}`;

/** A bucket in memory whose listing pages hold `pageSize` objects. */
function memoryBucket(pageSize = 2): ReplayBucket & { objects: Map<string, { bytes: Uint8Array; summary: string }> } {
  const objects = new Map<string, { bytes: Uint8Array; summary: string }>();
  return {
    objects,
    async put(key, bytes, summary) {
      objects.set(key, { bytes, summary });
    },
    async list(prefix, cursor) {
      // The cursor is the last key listed, as a store's own cursor holds however keys change.
      const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && (cursor === undefined || k > cursor)).sort();
      const page = keys.slice(0, pageSize);
      const truncated = pageSize < keys.length;
      return { objects: page.map((key) => ({ key, summary: objects.get(key)!.summary })), truncated, cursor: truncated ? page.at(-1) : undefined };
    },
    async get(key) {
      const o = objects.get(key);
      return o ? new Uint8Array(o.bytes) : null;
    },
    async delete(keys) {
      for (const k of keys) objects.delete(k);
    },
  };
}

const summary = (matchId: string, players = 2): MatchSummary => ({ kind: "agar", roomId: "r1", matchId, startedAt: 0, endedAt: 0, players, bytes: 0, reason: "ended" }) as unknown as MatchSummary;

describe("BucketArchive", () => {
  it("keeps matches with players, lists them newest first across pages, and reads one back", async () => {
    const bucket = memoryBucket(2);
    const archive = new BucketArchive(bucket, 0);
    const now = Date.now();
    for (let i = 0; i < 5; i++) await archive.keep(summary(idAt(now - 5_000 + i)), new Uint8Array([i, i]), now);
    await archive.keep(summary(idAt(now), 0), new Uint8Array([9]), now);
    const listed = await archive.list("agar");
    expect(listed.map((s) => s.matchId)).toEqual([4, 3, 2, 1, 0].map((i) => idAt(now - 5_000 + i)));
    expect(listed[0]!.bytes).toBe(2);
    expect(await archive.get("agar", idAt(now - 5_000 + 2))).toEqual(new Uint8Array([2, 2]));
    expect(await archive.get("agar", idAt(now))).toBeNull();
    expect(await archive.list("fps")).toEqual([]);
  });

  it("deletes a kind's matches past the retention when another ends, and none with a retention of 0", async () => {
    const bucket = memoryBucket(1);
    const now = 100 * DAY;
    const old = [idAt(now - 3 * DAY, 1), idAt(now - 2 * DAY, 2)];
    for (const id of old) await bucket.put(replayKey("agar", id), new Uint8Array(1), "{}");
    await bucket.put(replayKey("fps", old[0]!), new Uint8Array(1), "{}");
    await new BucketArchive(bucket, 0).keep(summary(idAt(now)), new Uint8Array(1), now);
    expect(bucket.objects.size).toBe(4);
    await new BucketArchive(bucket, 1).keep(summary(idAt(now, 3)), new Uint8Array(1), now);
    expect([...bucket.objects.keys()].sort()).toEqual([replayKey("agar", idAt(now)), replayKey("agar", idAt(now, 3)), replayKey("fps", old[0]!)].sort());
  });

  it("reads the retention var: days, 0 for ever, the default for junk", () => {
    expect(retentionDaysOf("7")).toBe(7);
    expect(retentionDaysOf("0")).toBe(0);
    expect(retentionDaysOf(undefined)).toBe(30);
    expect(retentionDaysOf("soon")).toBe(30);
  });
});

describe("ReplayPieces", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function host(): PieceHost & { data: Map<string, unknown>; waits: Promise<unknown>[]; settled(): Promise<void> } {
    const data = new Map<string, unknown>();
    const waits: Promise<unknown>[] = [];
    return {
      data,
      waits,
      storage: {
        async put(entries) {
          for (const [k, v] of Object.entries(entries)) data.set(k, v);
        },
        async list<T>(o: { prefix: string }) {
          return new Map([...data].filter(([k]) => k.startsWith(o.prefix)).sort(([a], [b]) => (a < b ? -1 : 1))) as Map<string, T>;
        },
        async delete(keys) {
          for (const k of keys) data.delete(k);
          return keys.length;
        },
      },
      waitUntil: (p) => void waits.push(p),
      async settled() {
        while (waits.length > 0) await waits.shift();
      },
    };
  }

  it("writes a room's pieces on a later turn, in one write, and joins them into the archive when the match ends", async () => {
    const h = host();
    const bucket = memoryBucket();
    const sink = new ReplayPieces(h, new BucketArchive(bucket, 0), new BusyMeter()).sink();
    const id = idAt(Date.now());
    sink.chunk(id, 0, new Uint8Array([1, 2]));
    sink.chunk(id, 1, new Uint8Array([3]));
    expect(h.data.size).toBe(0);
    await vi.advanceTimersByTimeAsync(0);
    await h.settled();
    expect([...h.data.keys()]).toEqual([`${PIECE_PREFIX}${id}:000000`, `${PIECE_PREFIX}${id}:000001`]);
    sink.chunk(id, 2, new Uint8Array([4]));
    sink.end(summary(id));
    await h.settled();
    expect(bucket.objects.get(replayKey("agar", id))!.bytes).toEqual(new Uint8Array([1, 2, 3, 4]));
    expect(h.data.size).toBe(0);
  });

  it("a later instance archives what an earlier one left in storage as it was cut (a log that does not read is dropped)", async () => {
    const h = host();
    const bucket = memoryBucket();
    h.data.set(`${PIECE_PREFIX}${idAt(1)}:000000`, new Uint8Array([0xde, 0xad]));
    new ReplayPieces(h, new BucketArchive(bucket, 0), new BusyMeter()).keepLeftovers();
    await h.settled();
    expect(h.data.size).toBe(0);
    expect(bucket.objects.size).toBe(0);
  });
});
