/**
 * Durable room records: one `room_records` row in D1 per room session (first seat taken → last
 * seat freed), written off the tick path through an outbox in the Durable Object's own storage.
 *
 * Why an outbox: a D1 write is network I/O that can be slow or fail, and a room must never wait
 * for it. Session start/end only put a small entry into the object's storage (local, and not
 * gating outgoing frames) and arm the object's alarm; the alarm handler upserts every pending
 * entry in one D1 batch. Consequences:
 * - a short session costs one D1 write: its end overwrites the unflushed start entry;
 * - a failed batch is retried with exponential backoff, a bounded number of times, then logged
 *   (with the rows) and dropped;
 * - entries and the alarm survive a restart of the object, so nothing queued is lost to an evict;
 * - a session cut by a restart (the object died with players seated) is closed, when the next
 *   session in that object starts, with `end_reason = 'restart'` and `ended_at` = that moment
 *   (an upper bound: the object could not record when it died).
 *
 * It needs no runtime of its own: the storage is a port ({@link RecordOutboxStorage}: a Durable
 * Object's storage and alarm have its shape) and so is the database ({@link RecordDatabase}: D1's).
 */
import { CloseCode } from "@tikron/protocol";
import type { RoomSessionRecord } from "../host";

/** Why a recorded session ended: its last seat was freed, or its object restarted under it. */
export type SessionEndReason = "empty" | "restart";

/** One pending row, as kept in the outbox. `endedAt` is null while the session runs. */
export interface PendingRoomRecord {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** Session start (epoch ms): the first seat taken. */
  startedAt: number;
  /** Session end (epoch ms), or null while it runs. */
  endedAt: number | null;
  /** Most players connected at once. */
  peakCcu: number;
  /** New seats taken during the session. */
  totalJoins: number;
  /** Joins refused during the session. */
  refusals: number;
  /** Close counts by close name, e.g. `{"normal":12,"slow_consumer":1}`. */
  closes: Record<string, number>;
  /** Why the session ended, or null while it runs. */
  endReason: SessionEndReason | null;
  /** Bumped on every change so a flush never deletes an entry that changed while it ran. */
  rev: number;
}

/** Timing knobs of {@link RoomRecorder}. */
export interface RoomRecorderOptions {
  /** How long a session-start entry waits for more changes (e.g. its own end) before a flush. */
  startDelayMs: number;
  /** Delay between a session end and its flush (lets near-simultaneous ends share a batch). */
  endDelayMs: number;
  /** First retry delay after a failed batch; doubles per failure up to {@link maxRetryDelayMs}. */
  retryBaseMs: number;
  /** Longest retry delay after repeated failures (ms). */
  maxRetryDelayMs: number;
  /** Failed attempts after which the pending rows are logged and dropped. */
  maxAttempts: number;
}

/** Defaults: a session shorter than 10 s is written once; retries span about three minutes. */
export const defaultRoomRecorderOptions: RoomRecorderOptions = {
  startDelayMs: 10_000,
  endDelayMs: 500,
  retryBaseMs: 1_000,
  maxRetryDelayMs: 60_000,
  maxAttempts: 8,
};

/** The storage the outbox is kept in, with one alarm the host calls {@link RoomRecorder.flush} from (a Durable Object's storage; a fake in unit tests). */
export interface RecordOutboxStorage {
  /** The value kept under `key`. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Keeps `value` under `key`. */
  put<T>(key: string, value: T, options?: { allowUnconfirmed?: boolean }): Promise<void>;
  /** Removes `key`. */
  delete(key: string, options?: { allowUnconfirmed?: boolean }): Promise<boolean>;
  /** The keys (and values) under `prefix`, in key order. */
  list<T = unknown>(options: { prefix: string }): Promise<Map<string, T>>;
  /** When the alarm is set for (epoch ms), or null. */
  getAlarm(): Promise<number | null>;
  /** Sets the alarm for `scheduledTime` (epoch ms). */
  setAlarm(scheduledTime: number, options?: { allowUnconfirmed?: boolean }): Promise<void>;
}

/** The SQL database records go to (the part of a D1 binding the recorder uses). */
export interface RecordDatabase {
  /** A statement. */
  prepare(query: string): {
    /** Binds its parameters. */
    bind(...values: unknown[]): unknown;
  };
  /** Runs bound statements in one batch. */
  batch(statements: unknown[]): Promise<unknown>;
}

/** The database in a host's `env` that records go to: its `DB` binding (D1 on Cloudflare), when present. */
export function recordDatabaseIn(env: unknown): RecordDatabase | undefined {
  const db = (env as { DB?: Partial<RecordDatabase> } | undefined)?.DB;
  return db && typeof db.prepare === "function" && typeof db.batch === "function" ? (db as RecordDatabase) : undefined;
}

const RECORD_PREFIX = "records:row:";
const OPEN_KEY = "records:open";
const ATTEMPTS_KEY = "records:attempts";
// Records are bookkeeping: nothing a client is sent depends on them, so their storage writes
// must not hold back outgoing frames until confirmed.
const UNCONFIRMED = { allowUnconfirmed: true } as const;

const UPSERT_SQL =
  "INSERT INTO room_records (kind, room_id, started_at, ended_at, peak_ccu, total_joins, refusals, closes_json, end_reason) " +
  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) " +
  "ON CONFLICT (kind, room_id, started_at) DO UPDATE SET " +
  "ended_at = excluded.ended_at, peak_ccu = excluded.peak_ccu, total_joins = excluded.total_joins, " +
  "refusals = excluded.refusals, closes_json = excluded.closes_json, end_reason = excluded.end_reason";

const CLOSE_NAMES = new Map<number, string>([
  ...(Object.entries(CloseCode) as [string, number][]).map(([name, code]) => [code, name] as [number, string]),
  [1005, "no_status"],
  [1006, "abnormal"],
  [1011, "server_error"],
]);

/** Turns the core's close counts (keyed by numeric code) into counts keyed by close name. */
export function closesByName(closes: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [code, count] of Object.entries(closes)) {
    const name = CLOSE_NAMES.get(Number(code)) ?? `code_${code}`;
    out[name] = (out[name] ?? 0) + count;
  }
  return out;
}

/**
 * Queues room session records in a Durable Object's storage and flushes them to D1 from the
 * object's alarm. Every method is safe to call without awaiting from a room hook: failures are
 * logged, never thrown into the room.
 */
export class RoomRecorder {
  private readonly options: RoomRecorderOptions;
  /** Serialises outbox updates so a session's end can never be overtaken by its own start. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: RecordOutboxStorage,
    private readonly db: RecordDatabase,
    options: Partial<RoomRecorderOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.options = { ...defaultRoomRecorderOptions, ...options };
  }

  /** A session started. Also closes a session a restart cut short, if one is still open. */
  sessionStarted(info: { kind: string; roomId: string; startedAt: number }): Promise<void> {
    return this.enqueue(async () => {
      const previous = await this.storage.get<number>(OPEN_KEY);
      if (previous !== undefined) {
        const cut = await this.storage.get<PendingRoomRecord>(rowKey(previous));
        if (cut && cut.endedAt === null) {
          await this.storage.put(rowKey(previous), { ...cut, endedAt: Math.max(cut.startedAt, info.startedAt), endReason: "restart", rev: cut.rev + 1 }, UNCONFIRMED);
        } else if (!cut) {
          // Its start row is already in D1 (flushed) with ended_at NULL; close it there too.
          console.warn(`[records ${info.kind}:${info.roomId}] session ${previous} was cut by a restart; closing it`);
          await this.storage.put(rowKey(previous), restartRow(info, previous), UNCONFIRMED);
        }
      }
      const row: PendingRoomRecord = {
        kind: info.kind,
        roomId: info.roomId,
        startedAt: info.startedAt,
        endedAt: null,
        peakCcu: 0,
        totalJoins: 0,
        refusals: 0,
        closes: {},
        endReason: null,
        rev: 0,
      };
      await this.storage.put(rowKey(info.startedAt), row, UNCONFIRMED);
      await this.storage.put(OPEN_KEY, info.startedAt, UNCONFIRMED);
      await this.armAlarm(this.now() + this.options.startDelayMs);
    });
  }

  /** A session ended (last seat freed). */
  sessionEnded(record: RoomSessionRecord): Promise<void> {
    return this.enqueue(async () => {
      const key = rowKey(record.startedAt);
      const existing = await this.storage.get<PendingRoomRecord>(key);
      const row: PendingRoomRecord = {
        kind: record.kind,
        roomId: record.roomId,
        startedAt: record.startedAt,
        endedAt: Math.max(record.startedAt, record.endedAt),
        peakCcu: record.peakCcu,
        totalJoins: record.totalJoins,
        refusals: record.refusals,
        closes: closesByName(record.closes),
        endReason: "empty",
        rev: (existing?.rev ?? 0) + 1,
      };
      await this.storage.put(key, row, UNCONFIRMED);
      if ((await this.storage.get<number>(OPEN_KEY)) === record.startedAt) await this.storage.delete(OPEN_KEY, UNCONFIRMED);
      await this.armAlarm(this.now() + this.options.endDelayMs);
    });
  }

  /**
   * Writes every pending row to D1 in one batch. Call from the object's `alarm()`. On failure
   * re-arms the alarm with backoff; after `maxAttempts` failures logs the rows and drops them.
   * Returns the number of rows written.
   */
  async flush(): Promise<number> {
    await this.chain;
    const pending = await this.storage.list<PendingRoomRecord>({ prefix: RECORD_PREFIX });
    if (pending.size === 0) return 0;
    const rows = [...pending.entries()];
    try {
      await this.db.batch(rows.map(([, r]) => this.db.prepare(UPSERT_SQL).bind(...upsertValues(r))));
    } catch (e) {
      const attempts = ((await this.storage.get<number>(ATTEMPTS_KEY)) ?? 0) + 1;
      const message = e instanceof Error ? e.message : String(e);
      if (attempts >= this.options.maxAttempts) {
        console.error(`[records] D1 write failed ${attempts} times (${message}); dropping ${rows.length} row(s): ${JSON.stringify(rows.map(([, r]) => r))}`);
        await this.removeIfUnchanged(rows);
        await this.storage.delete(ATTEMPTS_KEY);
        return 0;
      }
      const delay = Math.min(this.options.maxRetryDelayMs, this.options.retryBaseMs * 2 ** (attempts - 1));
      console.warn(`[records] D1 write failed (${message}); attempt ${attempts}/${this.options.maxAttempts}, retrying in ${delay} ms`);
      await this.storage.put(ATTEMPTS_KEY, attempts);
      await this.storage.setAlarm(this.now() + delay);
      return 0;
    }
    await this.storage.delete(ATTEMPTS_KEY);
    const changed = await this.removeIfUnchanged(rows);
    // A row that changed while the batch was in flight still has to go out.
    if (changed > 0) await this.storage.setAlarm(this.now() + this.options.endDelayMs);
    return rows.length;
  }

  /** Rows still waiting in the outbox (tests, diagnostics). */
  async pending(): Promise<PendingRoomRecord[]> {
    return [...(await this.storage.list<PendingRoomRecord>({ prefix: RECORD_PREFIX })).values()];
  }

  private async removeIfUnchanged(rows: [string, PendingRoomRecord][]): Promise<number> {
    let changed = 0;
    for (const [key, flushed] of rows) {
      const current = await this.storage.get<PendingRoomRecord>(key);
      if (current && current.rev !== flushed.rev) changed++;
      else await this.storage.delete(key);
    }
    return changed;
  }

  /** Arms the alarm for `at` unless one is already due sooner (a retry backoff included). */
  private async armAlarm(at: number): Promise<void> {
    const current = await this.storage.getAlarm();
    if (current === null || current > at) await this.storage.setAlarm(at, UNCONFIRMED);
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(work).catch((e) => {
      console.error("[records] could not queue a room record:", e instanceof Error ? e.message : e);
    });
    this.chain = next;
    return next;
  }
}

function rowKey(startedAt: number): string {
  // Zero-padded so storage lists rows in start order.
  return `${RECORD_PREFIX}${String(startedAt).padStart(16, "0")}`;
}

function restartRow(info: { kind: string; roomId: string; startedAt: number }, startedAt: number): PendingRoomRecord {
  // Only the end is known now; the counters were in the row flushed at start (zeros), and an
  // upsert with zeros keeps that honest: the cut session's totals died with the object.
  return {
    kind: info.kind,
    roomId: info.roomId,
    startedAt,
    endedAt: Math.max(startedAt, info.startedAt),
    peakCcu: 0,
    totalJoins: 0,
    refusals: 0,
    closes: {},
    endReason: "restart",
    rev: 1,
  };
}

function upsertValues(r: PendingRoomRecord): unknown[] {
  return [r.kind, r.roomId, r.startedAt, r.endedAt, r.peakCcu, r.totalJoins, r.refusals, JSON.stringify(r.closes), r.endReason];
}
