/**
 * `StorageMeter`: the writes an object makes to its key-value storage (a Durable Object's), counted by what they
 * keep (a seat, a checkpoint, the directory, …): calls, rows (keys written or removed: what the
 * SQLite storage bills), JSON characters written, and how many calls were confirmed (held the
 * object's outgoing messages until durable: the output gate) — what DEV_MODE stats show and the
 * load tool reads per seated player. Every write goes through it, so none is uncounted.
 */

/** The writes of one kind. */
export interface WriteCounts {
  /** Storage calls (a put or delete of one or many keys). */
  calls: number;
  /** Calls that held the object's outgoing messages until they were durable. */
  confirmed: number;
  /** Keys written or removed: rows written, as the SQLite storage bills them. */
  rows: number;
  /** Characters of the values written (JSON text). */
  bytes: number;
  /** Writes not made because they would have held nothing new (a checkpoint piece the same as the last). */
  unchanged: number;
}

/** The writes of an object, by kind. */
export type StorageCounts = Record<string, WriteCounts>;

/** How a write is made: `allowUnconfirmed`, the host's next messages do not wait for it. */
export interface WriteOptions {
  /** The write does not hold the host's outgoing messages until durable (a Durable Object's output gate). */
  allowUnconfirmed?: boolean;
}

/**
 * The writes of a host's key-value storage the meter makes (a Durable Object's storage has this
 * shape; a Node host's map-backed store can too): one key or many, put or removed.
 */
export interface KeyValueWrites {
  /** Writes one key. */
  put(key: string, value: unknown, options?: WriteOptions): Promise<void>;
  /** Writes many keys at once. */
  put(entries: Record<string, unknown>, options?: WriteOptions): Promise<void>;
  /** Removes one key. */
  delete(key: string, options?: WriteOptions): Promise<boolean>;
  /** Removes many keys at once. */
  delete(keys: string[], options?: WriteOptions): Promise<number>;
}

/** What of the host the meter uses: its storage, and `waitUntil` for the writes it does not await. */
export interface MeteredState {
  /** The storage written to. */
  readonly storage: KeyValueWrites;
  /** Keeps the host alive until `work` settles (a Durable Object's `ctx.waitUntil`). */
  waitUntil(work: Promise<unknown>): void;
}

/** Counts and makes an object's storage writes (see the module comment). */
export class StorageMeter {
  readonly #counts: StorageCounts = {};

  constructor(
    private readonly state: MeteredState,
    private readonly describe: string,
  ) {}

  /**
   * Writes `entries` (key → value, JSON text or a structured-cloneable value counted as its
   * JSON; null removes the key) as `kind`, in one put and one delete
   * at most: `confirmed`, the object's next messages wait for them. Not awaited; a failure is
   * logged and handed to `failed`.
   */
  write(kind: string, entries: readonly { key: string; value: unknown }[], confirmed: boolean, failed?: (e: unknown) => void): void {
    if (entries.length === 0) return;
    const opts = { allowUnconfirmed: !confirmed };
    const puts: Record<string, unknown> = {};
    const removes: string[] = [];
    let bytes = 0;
    for (const e of entries) {
      if (e.value === null) removes.push(e.key);
      else {
        puts[e.key] = e.value;
        bytes += typeof e.value === "string" ? e.value.length : (JSON.stringify(e.value)?.length ?? 0);
      }
    }
    const storage = this.state.storage;
    const calls: Promise<unknown>[] = [];
    const putKeys = entries.length - removes.length;
    if (putKeys === 1) {
      const [key, value] = Object.entries(puts)[0]!;
      calls.push(storage.put(key, value, opts));
    } else if (putKeys > 1) calls.push(storage.put(puts, opts));
    if (removes.length === 1) calls.push(storage.delete(removes[0]!, opts));
    else if (removes.length > 1) calls.push(storage.delete(removes, opts));
    const c = this.countsOf(kind);
    c.calls += calls.length;
    if (confirmed) c.confirmed += calls.length;
    c.rows += entries.length;
    c.bytes += bytes;
    this.state.waitUntil(
      Promise.all(calls).catch((e: unknown) => {
        console.error(`[${this.describe}] ${kind} write failed`, e);
        failed?.(e);
      }),
    );
  }

  /** A write of `kind` was not made: it would have held nothing new. */
  unchanged(kind: string): void {
    this.countsOf(kind).unchanged++;
  }

  private countsOf(kind: string): WriteCounts {
    return (this.#counts[kind] ??= { calls: 0, confirmed: 0, rows: 0, bytes: 0, unchanged: 0 });
  }

  /** The writes so far, by kind (a copy). */
  counts(): StorageCounts {
    const out: StorageCounts = {};
    for (const [k, v] of Object.entries(this.#counts)) out[k] = { ...v };
    return out;
  }
}
