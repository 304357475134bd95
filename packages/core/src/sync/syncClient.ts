import type { Viewer } from "./viewer";

/** Offsets within a client row header. */
export const ClientRow = {
  Entity: 0,
  Serial: 1,
  /** Epoch at which the row was last brought fully up to date. */
  SyncedAt: 2,
  /** Ints per header. */
  Size: 3,
} as const;

/**
 * One client's baseline: for each entity it currently holds, a row header
 * `[entity id, spawn serial, synced-at epoch]` and the values it was sent, at codec level
 * (quantized scalars; change epochs of strings and maps). Headers and values live in two typed
 * arrays: every flush scans all headers, but reads values only for entities that changed, so
 * keeping them apart keeps the scan's memory traffic small. Rows are packed (swap-remove on
 * leave) and the arrays grow only when this client's view passes its largest size so far.
 *
 * The transport is reliable and ordered, so what was sent is what the client holds; a new or
 * reconnecting client starts from an empty baseline.
 */
export class SyncClient {
  /** Rows in use. */
  count = 0;
  /** `ClientRow.Size` ints per row. */
  heads: Int32Array<ArrayBuffer>;
  /** `maxFields` ints per row. */
  values: Int32Array<ArrayBuffer>;
  /** Spreads far-tier refreshes of different clients over different flushes. */
  readonly phase: number;
  /** True once released to the encoder's pool; a released client is never encoded again. */
  released = false;
  /**
   * What the world and the viewer were when this client was last left holding all it can see
   * (nothing left for a later flush by its tiers): the world's `rowsVersion` and grid `version`
   * (-1: not known to be so), the viewer's mode and centre. While all four stay, its next delta
   * is empty without looking (see `SchemaStateEncoder.encodeClient`).
   */
  quietRows = -1;
  /** The grid's `version` then (see {@link quietRows}). */
  quietGrid = -1;
  /** The viewer's mode then (see {@link quietRows}). */
  quietMode = -1;
  /** The viewer's centre then (a typed array: storing doubles in it allocates nothing). */
  readonly quietAt = new Float64Array(2);

  constructor(
    /** The player this baseline belongs to. */
    readonly playerId: number,
    /** Where the player looks from. */
    readonly viewer: Viewer,
    /** Values per row: the schema's largest field count. */
    readonly maxFields: number,
    phase: number,
    capacity = 32,
  ) {
    this.phase = phase;
    this.heads = new Int32Array(capacity * ClientRow.Size);
    this.values = new Int32Array(capacity * maxFields);
  }

  /** Rows that fit without growing. */
  get capacity(): number {
    return this.heads.length / ClientRow.Size;
  }

  /** Makes room for `n` rows. */
  reserve(n: number): void {
    if (n <= this.capacity) return;
    let cap = this.capacity * 2;
    while (cap < n) cap *= 2;
    const heads = new Int32Array(cap * ClientRow.Size);
    heads.set(this.heads);
    this.heads = heads;
    const values = new Int32Array(cap * this.maxFields);
    values.set(this.values);
    this.values = values;
  }

  /** Removes row `j` by moving the last row into it. */
  removeRow(j: number): void {
    const last = --this.count;
    if (j === last) return;
    // Rows are a handful of ints: a plain loop beats copyWithin's builtin call overhead here.
    const h = ClientRow.Size;
    const heads = this.heads;
    for (let k = 0, to = j * h, from = last * h; k < h; k++) heads[to + k] = heads[from + k]!;
    const f = this.maxFields;
    const values = this.values;
    for (let k = 0, to = j * f, from = last * f; k < f; k++) values[to + k] = values[from + k]!;
  }
}
