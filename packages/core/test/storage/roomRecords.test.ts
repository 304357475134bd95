import { afterEach, describe, expect, it, vi } from "vitest";
import { closesByName, RoomRecorder, type RecordDatabase, type RecordOutboxStorage } from "../../src/storage/roomRecords";

/** In-memory Durable Object storage with one alarm. */
class FakeStorage implements RecordOutboxStorage {
  readonly data = new Map<string, unknown>();
  alarm: number | null = null;
  async get<T>(key: string): Promise<T | undefined> {
    return structuredClone(this.data.get(key)) as T | undefined;
  }
  async put<T>(key: string, value: T): Promise<void> {
    this.data.set(key, structuredClone(value));
  }
  async delete(key: string): Promise<boolean> {
    return this.data.delete(key);
  }
  async list<T>(options: { prefix: string }): Promise<Map<string, T>> {
    const keys = [...this.data.keys()].filter((k) => k.startsWith(options.prefix)).sort();
    return new Map(keys.map((k) => [k, structuredClone(this.data.get(k)) as T]));
  }
  async getAlarm(): Promise<number | null> {
    return this.alarm;
  }
  async setAlarm(at: number): Promise<void> {
    this.alarm = at;
  }
}

/** A D1 stand-in that applies the recorder's upserts to a table keyed like room_records. */
class FakeD1 implements RecordDatabase {
  readonly rows = new Map<string, unknown[]>();
  batches = 0;
  failNext = 0;
  /** Runs while a batch is "in flight" (after it was built, before it commits). */
  duringBatch: (() => Promise<void>) | null = null;
  prepare(query: string) {
    return { bind: (...values: unknown[]) => ({ query, values }) };
  }
  async batch(statements: unknown[]): Promise<unknown> {
    this.batches++;
    if (this.duringBatch) {
      const f = this.duringBatch;
      this.duringBatch = null;
      await f();
    }
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error("D1_ERROR: network connection lost");
    }
    for (const s of statements as { query: string; values: unknown[] }[]) {
      expect(s.query).toMatch(/^INSERT INTO room_records .* ON CONFLICT \(kind, room_id, started_at\) DO UPDATE/);
      this.rows.set(`${s.values[0]}:${s.values[1]}:${s.values[2]}`, s.values);
    }
    return [];
  }
  row(startedAt: number) {
    const v = this.rows.get(`agar:r1:${startedAt}`);
    if (!v) return undefined;
    const [kind, roomId, started, endedAt, peakCcu, totalJoins, refusals, closesJson, endReason] = v;
    return { kind, roomId, startedAt: started, endedAt, peakCcu, totalJoins, refusals, closes: JSON.parse(closesJson as string), endReason };
  }
}

let now = 1_000_000;
function setup() {
  const storage = new FakeStorage();
  const db = new FakeD1();
  const recorder = new RoomRecorder(storage, db, {}, () => now);
  return { storage, db, recorder };
}
const session = (startedAt: number) => ({ kind: "agar", roomId: "r1", startedAt });
const ended = (startedAt: number, endedAt: number, extra: Partial<Parameters<RoomRecorder["sessionEnded"]>[0]> = {}) => ({
  ...session(startedAt),
  endedAt,
  peakCcu: 3,
  totalJoins: 4,
  refusals: 1,
  closes: { "1000": 3, "4004": 1 },
  ...extra,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("room records", () => {
  it("names close codes", () => {
    expect(closesByName({ "1000": 2, "1006": 1, "4004": 1, "4321": 5 })).toEqual({ normal: 2, abnormal: 1, slow_consumer: 1, code_4321: 5 });
  });

  it("writes a short session once: the end overwrites the unflushed start", async () => {
    const { storage, db, recorder } = setup();
    now = 1_000_000;
    await recorder.sessionStarted(session(now));
    expect(storage.alarm).toBe(now + 10_000);
    await recorder.sessionEnded(ended(1_000_000, 1_003_000));
    expect(storage.alarm).toBe(now + 500);
    expect(await recorder.flush()).toBe(1);
    expect(db.batches).toBe(1);
    expect(db.row(1_000_000)).toEqual({
      kind: "agar",
      roomId: "r1",
      startedAt: 1_000_000,
      endedAt: 1_003_000,
      peakCcu: 3,
      totalJoins: 4,
      refusals: 1,
      closes: { normal: 3, slow_consumer: 1 },
      endReason: "empty",
    });
    expect(await recorder.pending()).toEqual([]);
    expect(storage.data.has("records:open")).toBe(false);
  });

  it("writes a long session's start, then updates the same row at its end", async () => {
    const { db, recorder } = setup();
    await recorder.sessionStarted(session(2_000_000));
    await recorder.flush();
    expect(db.row(2_000_000)).toMatchObject({ endedAt: null, endReason: null, peakCcu: 0 });
    await recorder.sessionEnded(ended(2_000_000, 2_900_000));
    await recorder.flush();
    expect(db.rows.size).toBe(1);
    expect(db.row(2_000_000)).toMatchObject({ endedAt: 2_900_000, endReason: "empty", peakCcu: 3 });
  });

  it("retries a failed batch with exponential backoff and keeps the rows until it succeeds", async () => {
    const { storage, db, recorder } = setup();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    now = 3_000_000;
    await recorder.sessionStarted(session(now));
    await recorder.sessionEnded(ended(3_000_000, 3_001_000));
    db.failNext = 3;
    const alarms: number[] = [];
    for (let i = 0; i < 3; i++) {
      expect(await recorder.flush()).toBe(0);
      alarms.push(storage.alarm! - now);
    }
    expect(alarms).toEqual([1_000, 2_000, 4_000]);
    expect(warn).toHaveBeenCalledTimes(3);
    expect(db.rows.size).toBe(0);
    expect(await recorder.pending()).toHaveLength(1);
    expect(await recorder.flush()).toBe(1);
    expect(db.row(3_000_000)).toMatchObject({ endedAt: 3_001_000 });
    expect(storage.data.has("records:attempts")).toBe(false);
  });

  it("gives up after a bounded number of attempts, logging the rows it drops", async () => {
    const { db, recorder } = setup();
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    await recorder.sessionStarted(session(4_000_000));
    await recorder.sessionEnded(ended(4_000_000, 4_000_500));
    db.failNext = 100;
    for (let i = 0; i < 8; i++) await recorder.flush();
    expect(db.batches).toBe(8);
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0]![0])).toMatch(/dropping 1 row.*"startedAt":4000000/);
    expect(await recorder.pending()).toEqual([]);
  });

  it("keeps a row that changed while its batch was in flight and flushes it again", async () => {
    const { storage, db, recorder } = setup();
    await recorder.sessionStarted(session(5_000_000));
    db.duringBatch = () => recorder.sessionEnded(ended(5_000_000, 5_000_900));
    await recorder.flush();
    expect(db.row(5_000_000)).toMatchObject({ endedAt: null });
    expect(await recorder.pending()).toHaveLength(1);
    expect(storage.alarm).not.toBeNull();
    await recorder.flush();
    expect(db.row(5_000_000)).toMatchObject({ endedAt: 5_000_900, endReason: "empty" });
    expect(await recorder.pending()).toEqual([]);
  });

  it("closes a session cut by a restart when the next session starts (flushed or not)", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    // Not yet flushed when the object died.
    const a = setup();
    await a.recorder.sessionStarted(session(6_000_000));
    const revived = new RoomRecorder(a.storage, a.db, {}, () => now);
    await revived.sessionStarted(session(6_500_000));
    await revived.flush();
    expect(a.db.row(6_000_000)).toMatchObject({ endedAt: 6_500_000, endReason: "restart" });
    expect(a.db.row(6_500_000)).toMatchObject({ endedAt: null, endReason: null });

    // Already flushed (its row is in D1 with ended_at NULL) when the object died.
    const b = setup();
    await b.recorder.sessionStarted(session(7_000_000));
    await b.recorder.flush();
    const revivedB = new RoomRecorder(b.storage, b.db, {}, () => now);
    await revivedB.sessionStarted(session(7_200_000));
    await revivedB.flush();
    expect(b.db.row(7_000_000)).toMatchObject({ endedAt: 7_200_000, endReason: "restart" });
  });

  it("never throws into the room when storage fails", async () => {
    const { storage, recorder } = setup();
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    storage.put = async () => {
      throw new Error("storage exploded");
    };
    await expect(recorder.sessionStarted(session(8_000_000))).resolves.toBeUndefined();
    await expect(recorder.sessionEnded(ended(8_000_000, 8_000_100))).resolves.toBeUndefined();
    expect(error).toHaveBeenCalledTimes(2);
  });
});
