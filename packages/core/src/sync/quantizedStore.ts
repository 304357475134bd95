/**
 * {@link QuantizedStore}: what a world and a relay's mirror of it both hold for the encoder (the
 * quantized rows, strings, maps, last-flush changes, grid, tiers and viewers), laid out once.
 */
import { GridAoi, type PriorityTier, PriorityTiers } from "@tikron/aoi";
import type { Schema, SchemaDecl } from "@tikron/protocol";
import { EntityRow } from "./entityRow";
import { checkRoomSchema, maxFields, positionFields } from "./schemaLayout";
import type { MapFieldState } from "./mapFieldState";
import type { QuantizedWorld } from "./quantizedWorld";
import { Viewer } from "./viewer";

/** How a {@link SyncWorld} partitions space and how far and how often viewers see. */
export interface SyncWorldOptions {
  /**
   * Refresh tiers by distance, e.g. `[{ radius: 300, every: 1 }, { radius: 600, every: 4 }]`.
   * The outermost radius is the AOI radius.
   */
  tiers: readonly PriorityTier[];
  /** Grid cell side; defaults to half the AOI radius. */
  cellSize?: number;
}

/**
 * The store the per-client encoder reads (see {@link QuantizedWorld}): `SyncWorld` fills it from
 * the game's records, `MirrorWorld` from the world's feed. Entity ids are dense slot numbers.
 */
export abstract class QuantizedStore<D extends SchemaDecl = SchemaDecl> implements QuantizedWorld<D> {
  /** The spatial index of positioned, non-global entities. */
  readonly grid: GridAoi;
  /** The refresh tiers viewers see through. */
  readonly tiers: PriorityTiers;
  /** The schema's largest field count: values per row, and stride of the string/map stores. */
  readonly stride: number;
  /** Ints per entity row of `rows`. */
  readonly rowSize: number;
  /** @internal By type index: the field indices of the type's position, `[x, y]`, or `[-1, -1]` (always global). */
  readonly positions: readonly (readonly [x: number, y: number])[];

  /** @internal Flushes quantized so far; every change is stamped with the epoch it was seen at. */
  epoch = 1;
  /**
   * @internal One interleaved row per slot (see {@link EntityRow}): everything the per-client
   * loop reads about an entity sits in one or two cache lines.
   */
  rows: Int32Array<ArrayBuffer>;
  /** @internal Per slot × field: UTF-8 of string values, encoded once per change. */
  stringBytes: (Uint8Array | undefined)[] = [];
  /** @internal Per slot × field: map states. */
  maps: (MapFieldState | undefined)[] = [];
  /**
   * @internal Per slot × field: the values before this epoch's change, for entities that
   * changed in the last flush (listed in `changed[0..changedCount)`).
   */
  prevValues: Int32Array<ArrayBuffer>;
  /** @internal Entities whose values changed in the last flush. */
  changed = new Int32Array(64);
  /** @internal Entries of `changed` in use. */
  changedCount = 0;
  /**
   * @internal Counts writes of rows that a client's delta could show: a spawn, a despawn, a
   * flush whose quantize changed values, a feed message applied. With the grid's `version` it
   * tells the encoder that nothing a client could see changed (see `SchemaStateEncoder`).
   */
  rowsVersion = 0;
  /** @internal Every viewer by player id. */
  readonly viewers = new Map<number, Viewer>();
  /** Slots allocated: an upper bound on entity ids + 1. */
  protected slots = 64;

  constructor(
    /** The entity schema records are written and encoded with. */
    readonly schema: Schema<D>,
    /** The options it was made with: a relay's mirror is made with the same. */
    readonly options: SyncWorldOptions,
  ) {
    checkRoomSchema(schema);
    this.tiers = new PriorityTiers(options.tiers);
    // About half the radius: a query box then spans ~4×4 small cells, scanning fewer
    // candidates than 3×3 radius-sized ones (measured; see the benchmark).
    this.grid = new GridAoi(options.cellSize ?? Math.max(this.tiers.radius / 2, 1));
    this.stride = Math.max(1, maxFields(schema));
    this.positions = schema.types.map(positionFields);
    this.rowSize = EntityRow.Values + this.stride;
    this.rows = new Int32Array(this.slots * this.rowSize);
    for (let i = 0; i < this.slots; i++) this.rows[i * this.rowSize + EntityRow.Type] = -1;
    this.prevValues = new Int32Array(this.slots * this.stride);
  }

  /** Slots allocated so far (an upper bound on entity ids + 1). */
  get capacity(): number {
    return this.slots;
  }

  /** Brings the store up to date for a flush (a world quantizes its records; a mirror has its update already). */
  abstract quantizeAll(): void;

  /** True when `id` is a live entity. */
  isAlive(id: number): boolean {
    return id >= 0 && id < this.slots && this.rows[id * this.rowSize + EntityRow.Type] >= 0;
  }

  /** The spawn serial of a live entity, 0 if `id` is not alive. */
  serialOf(id: number): number {
    return this.isAlive(id) ? this.rows[id * this.rowSize + EntityRow.Serial] : 0;
  }

  /** The viewer of `playerId` (created blind on first use). It survives reconnects. */
  viewer(playerId: number): Viewer {
    let v = this.viewers.get(playerId);
    if (!v) {
      v = new Viewer(playerId, this);
      this.viewers.set(playerId, v);
    }
    return v;
  }

  /** Grows the slots to hold id `n - 1` (doubling); new slots are free. */
  protected growTo(n: number): void {
    let cap = this.slots;
    while (cap < n) cap *= 2;
    const rows = new Int32Array(cap * this.rowSize);
    rows.set(this.rows);
    for (let i = this.slots; i < cap; i++) rows[i * this.rowSize + EntityRow.Type] = -1;
    this.rows = rows;
    this.prevValues = growInt32(this.prevValues, cap * this.stride);
    this.changed = growInt32(this.changed, cap);
    this.slots = cap;
  }
}

/** `a` copied into a larger array of `cap` ints. */
export function growInt32(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}
