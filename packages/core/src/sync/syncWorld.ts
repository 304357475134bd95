/**
 * {@link SyncWorld}, the entity store a binary game writes to and the room's flush reads from,
 * with its options and those of one spawned entity.
 */
import type { IdBuffer } from "@tikron/aoi";
import {
  type EntityRecord,
  type EntityType,
  FieldCode,
  type FrameWriter,
  MAX_ENTITY_ID,
  type Schema,
  type SchemaDecl,
  normalizeString,
  quantize,
  writeDeltaSections,
} from "@tikron/protocol";
import { EntityRow } from "./entityRow";
import { writeEnter } from "./entityWire";
import { MapFieldState } from "./mapFieldState";
import { typeNamed } from "./schemaLayout";
import { SchemaStateEncoder } from "./schemaStateEncoder";
import { QuantizedStore, type SyncWorldOptions, growInt32 } from "./quantizedStore";
import type { WorldLog } from "./worldLog";

export type { SyncWorldOptions } from "./quantizedStore";

/** @internal What takes a world's next checkpoint piece (`WorldChain`; typed here so the world need not import it). */
export interface WorldPieceTaker {
  /** The world's next piece (a `WorldCheckpoint`). */
  take(world: SyncWorld): unknown;
}

/** Options of one spawned entity. */
export interface SpawnOptions {
  /**
   * Visible to every viewer regardless of position (e.g. a scoreboard). Entities of a type
   * without numeric `x` and `y` fields are always global.
   */
  global?: boolean;
  /**
   * The id to take, for a world rebuilt from a checkpoint (see `readWorldCheckpoint`): its
   * entities keep their ids, so a client reconnecting after the restart sees the same entity
   * under the same id. Throws when that id is taken or above {@link MAX_RESTORED_ENTITY_ID}.
   */
  id?: number;
  /**
   * The game tells the world of every change of this record: it calls {@link SyncWorld.moved}
   * (or {@link SyncWorld.touched}) after changing it. A flush then reads the record only after
   * such a call, instead of at every flush (most entities of a world, e.g. agar's orbs, change
   * rarely, and reading every record of a large world each flush is most of an idle room's
   * cost). A change made without the call is not sent until the next call.
   */
  static?: boolean;
}

/**
 * Highest id {@link SpawnOptions.id} takes: a world's ids are dense slots (never above its most
 * entities at once), and each slot costs memory, so a checkpoint naming a larger one is refused.
 */
export const MAX_RESTORED_ENTITY_ID = 0xffff;

/**
 * The server's entity store for state sync. A game spawns entities with plain records it
 * keeps mutating; once per flush the world quantizes every record into a shared store
 * (scalars as integers, strings and maps as change epochs) and keeps the spatial grid in step,
 * so per-client work is integer compares. Entity ids are dense slot numbers, reused after
 * despawn (a spawn serial tells a reused id apart).
 *
 * Positions for AOI are the records' raw `x`/`y`. The grid is brought up to date at every
 * flush; call {@link moved} after changing `x`/`y` when the game also queries the world
 * mid-tick (e.g. for collisions).
 */
export class SyncWorld<D extends SchemaDecl = SchemaDecl> extends QuantizedStore<D> {
  /** The `StateEncoder` to hand to the room (`sync: { mode: "binary", encoder }`). */
  readonly encoder: SchemaStateEncoder<D>;

  /** @internal Per slot × field: normalized string values. */
  strings: (string | undefined)[] = [];
  /**
   * @internal The feed that tells relays what changed (see `WorldFeed`), or null. Told of every
   * grid change in order, so a mirror's grid answers queries in the same order as this one's.
   */
  log: WorldLog | null = null;
  /**
   * @internal The chain a room keeps this world's checkpoints as (`WorldChain`), set only while
   * the game's `checkpoint()` runs: `checkpointWorld` then takes the chain's next piece. Null:
   * whole checkpoints.
   */
  chain: WorldPieceTaker | null = null;
  /** @internal Per slot: 1 when the entity is global (in no grid cell). */
  isGlobal = new Uint8Array(64);
  /** @internal Per slot: 1 for a {@link SpawnOptions.static} entity; 2 for one whose record changed since the last flush. */
  staticState = new Uint8Array(64);
  /** @internal Live entity ids in `live[0..size)`. */
  live = new Int32Array(64);

  private records: (Record<string, unknown> | undefined)[] = [];
  private rawStrings: unknown[] = [];
  private livePos = new Int32Array(64);
  private liveCount = 0;
  private readonly free: number[] = [];
  private highWater = 0;

  constructor(schema: Schema<D>, options: SyncWorldOptions) {
    super(schema, options);
    this.encoder = new SchemaStateEncoder(this);
  }

  /** Number of live entities. */
  get size(): number {
    return this.liveCount;
  }

  /**
   * Adds an entity of `type` whose state is `record`. The world keeps a reference to the
   * record: mutate its fields in place and they are synced at the next flush. Returns the id.
   */
  spawn<K extends keyof D & string>(type: K, record: EntityRecord<D[K]>, options?: SpawnOptions): number {
    const t = typeNamed(this.schema, type);
    const id = options?.id !== undefined ? this.claim(options.id) : this.free.length > 0 ? this.free.pop()! : this.highWater++;
    if (id > MAX_ENTITY_ID) throw new RangeError("too many entities");
    if (id >= this.slots) this.growTo(id + 1);
    const rec = record as Record<string, unknown>;
    const row = id * this.rowSize;
    const rows = this.rows;
    rows[row + EntityRow.Type] = t.index;
    rows[row + EntityRow.Serial] = (rows[row + EntityRow.Serial] + 1) & 0x7fffffff || 1;
    rows[row + EntityRow.FieldCount] = t.fields.length;
    rows[row + EntityRow.ChangedAt] = this.epoch;
    rows.fill(0, row + EntityRow.Values, row + this.rowSize);
    this.records[id] = rec;
    this.livePos[id] = this.liveCount;
    this.live[this.liveCount++] = id;
    const base = id * this.stride;
    for (const fi of t.fields) {
      const f = fi.field;
      if (f.code === FieldCode.Map) this.maps[base + fi.index] = new MapFieldState(f.value!, f.maxLen);
      else this.maps[base + fi.index] = undefined;
      this.rawStrings[base + fi.index] = undefined;
      this.strings[base + fi.index] = undefined;
    }
    this.quantizeEntity(id, t, false);
    this.staticState[id] = options?.static === true ? STATIC : 0;
    this.rowsVersion++;
    const pos = this.positions[t.index];
    const global = options?.global === true || pos[0] < 0;
    this.isGlobal[id] = global ? 1 : 0;
    if (global) {
      this.grid.insertGlobal(id);
      if (this.log !== null) this.log.spawned(id, true, 0, 0);
    } else {
      const x = +(rec[t.fields[pos[0]].name] as number);
      const y = +(rec[t.fields[pos[1]].name] as number);
      this.grid.insert(id, x, y);
      if (this.log !== null) this.log.spawned(id, false, x, y);
    }
    return id;
  }

  /**
   * Every live entity, written as one delta body of enters (`[Enters][count][enter…]`: what a
   * client that saw everything would get on joining) from the values quantized at the last flush
   * or spawn; nothing at all for an empty world. The world part of a game's checkpoint (see
   * `checkpointWorld`); read back with the protocol's `ClientView`.
   */
  writeAll(w: FrameWriter): void {
    if (this.liveCount === 0) return;
    writeDeltaSections(w, 0, this.liveCount, 0);
    w.varuint(this.liveCount);
    for (let i = 0; i < this.liveCount; i++) writeEnter(this, w, this.live[i]);
  }

  /** Removes an entity; clients holding it get a leave at their next frame. No-op if gone. */
  despawn(id: number): void {
    if (!this.isAlive(id)) return;
    this.grid.remove(id);
    if (this.log !== null) this.log.despawned(id);
    this.rows[id * this.rowSize + EntityRow.Type] = -1;
    this.rowsVersion++;
    this.staticState[id] = 0;
    this.records[id] = undefined;
    const base = id * this.stride;
    for (let i = 0; i < this.stride; i++) {
      this.maps[base + i] = undefined;
      this.strings[base + i] = undefined;
      this.stringBytes[base + i] = undefined;
      this.rawStrings[base + i] = undefined;
    }
    const p = this.livePos[id];
    const last = this.live[--this.liveCount];
    this.live[p] = last;
    this.livePos[last] = p;
    this.free.push(id);
  }

  /**
   * Re-reads the entity's `x`/`y` into the grid now (cheap unless it changed cell); a
   * {@link SpawnOptions.static} entity's record is also read again at the next flush.
   */
  moved(id: number): void {
    if (!this.isAlive(id)) return;
    if (this.staticState[id] !== 0) this.staticState[id] = STATIC_CHANGED;
    if (this.isGlobal[id]) return;
    const t = this.schema.types[this.typeIndexOf(id)];
    const pos = this.positions[t.index];
    const rec = this.records[id]!;
    const x = +(rec[t.fields[pos[0]].name] as number);
    const y = +(rec[t.fields[pos[1]].name] as number);
    this.grid.move(id, x, y);
    if (this.log !== null) this.log.moved(id, x, y);
  }

  /**
   * The record of {@link SpawnOptions.static} entity `id` changed: the next flush reads it.
   * (Every other entity is read at every flush; for them this does nothing.)
   */
  touched(id: number): void {
    if (this.isAlive(id) && this.staticState[id] !== 0) this.staticState[id] = STATIC_CHANGED;
  }

  /** @internal Type index of a live entity. */
  typeIndexOf(id: number): number {
    return this.rows[id * this.rowSize + EntityRow.Type];
  }

  /** The type name of a live entity. */
  typeOfEntity(id: number): (keyof D & string) | undefined {
    return this.isAlive(id) ? (this.schema.types[this.typeIndexOf(id)].name as keyof D & string) : undefined;
  }

  /** The record of a live entity of type `type` (undefined if gone or of another type). */
  record<K extends keyof D & string>(id: number, type: K): EntityRecord<D[K]> | undefined {
    if (!this.isAlive(id) || this.schema.types[this.typeIndexOf(id)].name !== type) return undefined;
    return this.records[id] as EntityRecord<D[K]>;
  }

  /** Entities within `radius` of (x, y) as of the last flush or {@link moved}, plus globals. */
  queryCircle(x: number, y: number, radius: number, out: IdBuffer): number {
    return this.grid.queryCircle(x, y, radius, out);
  }

  /** Forgets a player's viewer (when the seat is freed for good). */
  removeViewer(playerId: number): void {
    if (this.viewers.delete(playerId) && this.log !== null) this.log.viewerRemoved(playerId);
  }

  /**
   * @internal Quantizes every live entity once and syncs positions into the grid. Called by
   * the encoder's `beginFlush`.
   */
  quantizeAll(): void {
    this.epoch++;
    this.changedCount = 0;
    const types = this.schema.types;
    const statics = this.staticState;
    for (let i = 0; i < this.liveCount; i++) {
      const id = this.live[i];
      // A static entity nobody said changed is as it was: no record read, no grid move.
      const st = statics[id];
      if (st === STATIC) continue;
      if (st === STATIC_CHANGED) statics[id] = STATIC;
      const t = types[this.rows[id * this.rowSize]];
      if (this.quantizeEntity(id, t, true)) this.changed[this.changedCount++] = id;
      if (this.isGlobal[id] === 0) {
        const rec = this.records[id]!;
        const pos = this.positions[t.index];
        const x = +(rec[t.fields[pos[0]].name] as number);
        const y = +(rec[t.fields[pos[1]].name] as number);
        this.grid.move(id, x, y);
        if (this.log !== null) this.log.moved(id, x, y);
      }
    }
    if (this.changedCount > 0) this.rowsVersion++;
  }

  /**
   * Quantizes one record into its row. With `keepPrev`, the row's old values are saved to
   * `prevValues` just before the first change (for the shared per-flush update). Returns
   * whether anything changed.
   */
  private quantizeEntity(id: number, t: EntityType, keepPrev: boolean): boolean {
    const rec = this.records[id]!;
    const base = id * this.stride;
    const q = this.rows;
    const qo = id * this.rowSize + EntityRow.Values;
    const epoch = this.epoch;
    const fields = t.fields;
    const n = fields.length;
    let changed = false;
    for (let i = 0; i < n; i++) {
      const fi = fields[i];
      const f = fi.field;
      const k = base + i;
      let next: number;
      if (f.code === FieldCode.String) {
        const raw = rec[fi.name];
        if (raw === this.rawStrings[k] && this.strings[k] !== undefined) continue;
        this.rawStrings[k] = raw;
        const s = normalizeString(f, raw);
        if (s === this.strings[k]) continue;
        this.strings[k] = s;
        this.stringBytes[k] = utf8.encode(s);
        next = epoch;
      } else if (f.code === FieldCode.Map) {
        // The map keeps its own previous state; its row value is the version epoch.
        if (!this.maps[k]!.sync(rec[fi.name], epoch)) continue;
        next = epoch;
      } else {
        next = quantize(f, rec[fi.name]);
        if (q[qo + i] === next) continue;
      }
      if (!changed) {
        changed = true;
        if (keepPrev) {
          const prev = this.prevValues;
          for (let p = 0; p < n; p++) prev[base + p] = q[qo + p];
        }
      }
      q[qo + i] = next;
    }
    if (changed) q[id * this.rowSize + EntityRow.ChangedAt] = epoch;
    return changed;
  }

  /** Takes slot `id` for a spawn (see {@link SpawnOptions.id}): out of the free list, or past the high-water mark. */
  private claim(id: number): number {
    if (!Number.isInteger(id) || id < 0 || id > MAX_RESTORED_ENTITY_ID) throw new RangeError(`entity id ${id} cannot be restored`);
    if (this.isAlive(id)) throw new RangeError(`entity id ${id} is taken`);
    if (id >= this.highWater) {
      // The slots skipped on the way are free for later spawns.
      for (let skipped = id - 1; skipped >= this.highWater; skipped--) this.free.push(skipped);
      this.highWater = id + 1;
    } else {
      const at = this.free.indexOf(id);
      if (at >= 0) this.free.splice(at, 1);
    }
    return id;
  }

  protected override growTo(n: number): void {
    super.growTo(n);
    const cap = this.slots;
    this.live = growInt32(this.live, cap);
    this.livePos = growInt32(this.livePos, cap);
    const g = new Uint8Array(cap);
    g.set(this.isGlobal);
    this.isGlobal = g;
    const st = new Uint8Array(cap);
    st.set(this.staticState);
    this.staticState = st;
  }
}

const utf8 = new TextEncoder();
/** `staticState`: a static entity as the last flush read it. */
const STATIC = 1;
/** `staticState`: a static entity the game said changed since. */
const STATIC_CHANGED = 2;
