/**
 * {@link MirrorWorld}: a relay's copy of a simulation's world, kept by its feed, that the
 * unchanged per-client encoder reads as it would read the world itself.
 */
import {
  BinaryReader,
  DecodeError,
  type EntityType,
  FieldCode,
  type Schema,
  type SchemaDecl,
} from "@tikron/protocol";
import { EntityRow } from "./entityRow";
import { FeedKind, FeedOp } from "./feedWire";
import { MapFieldState } from "./mapFieldState";
import { SchemaStateEncoder } from "./schemaStateEncoder";
import { QuantizedStore, type SyncWorldOptions } from "./quantizedStore";
import { type Viewer, ViewerMode } from "./viewer";

/**
 * Slots a mirror grows to at most: a world's ids are dense (never above its most entities at
 * once), and each slot costs its row, so a message naming an id past this (a million entities,
 * tens of MB of rows) is refused rather than allocated for.
 */
export const MAX_MIRRORED_SLOTS = 1 << 20;

/** What {@link MirrorWorld.apply} made of a feed message. */
export type FeedApplied =
  /** The world now holds the flush the message carried: encode it. */
  | "applied"
  /** The update does not follow the last one applied (or no snapshot came yet): ask for a snapshot. */
  | "gap"
  /**
   * A snapshot of another world than the last one (the simulation restarted from its
   * checkpoint): applied, but epochs and serials began again, so every client's baseline must
   * go (release it and create a fresh one, as on a reconnect) before the next encode.
   */
  | "reset";

/**
 * A world rebuilt from a `WorldFeed`: the same quantized rows, strings, maps, last-flush
 * changes, grid (with the same history, so queries list entities in the same order) and
 * viewers as the simulation's `SyncWorld` after each flush. Its {@link encoder} then writes
 * for every client the bytes the world's own encoder would.
 *
 * Start it with a snapshot, then {@link apply} each update and flush the encoder once per
 * update with {@link flushIndex}. An update that does not follow the last one is refused
 * (`"gap"`) and so is every later one until a snapshot: the mirror never drifts silently. A
 * message that does not decode throws (a `DecodeError`, or the grid's error for an entity
 * placed twice) and leaves the mirror waiting for a snapshot likewise.
 */
export class MirrorWorld<D extends SchemaDecl = SchemaDecl> extends QuantizedStore<D> {
  /** The per-client encoder over this mirror (the same class the world itself uses). */
  readonly encoder: SchemaStateEncoder<D>;
  /** The room's flush index of the last update: what the encoder's `beginFlush` takes. */
  flushIndex = 0;

  private seq = 0;
  private synced = false;
  /** The feed incarnation of the last snapshot applied whole, or -1 before the first. */
  private incarnation = -1;
  /** The incarnation the snapshot being applied names. */
  private incoming = -1;

  constructor(
    schema: Schema<D>,
    /** The simulation world's options (the same tiers and cell size). */
    options: SyncWorldOptions,
  ) {
    super(schema, options);
    this.encoder = new SchemaStateEncoder(this);
  }

  /** Number of the last update applied (or the update a snapshot was taken after). */
  get lastSeq(): number {
    return this.seq;
  }

  /** True once a snapshot was applied and no update since went missing. */
  get isSynced(): boolean {
    return this.synced;
  }

  /** Nothing to do: the feed carries the flush already quantized. */
  quantizeAll(): void {}

  /** Applies one feed message, an update or a snapshot (see {@link FeedApplied}). */
  apply(message: Uint8Array): FeedApplied {
    const r = new BinaryReader(message);
    const kind = r.u8();
    if (kind !== FeedKind.Update && kind !== FeedKind.Snapshot) throw new DecodeError("unknown_kind", `feed message kind ${kind}`);
    if (kind === FeedKind.Update) {
      const seq = r.varuint();
      if (!this.synced || seq !== this.seq + 1) {
        this.synced = false;
        return "gap";
      }
    }
    // Whatever throws below leaves a half-applied world: nothing is encoded from it again
    // until a snapshot replaces it.
    this.synced = false;
    this.rowsVersion++;
    if (kind === FeedKind.Update) this.applyUpdate(r);
    else this.applySnapshot(r);
    r.expectEnd();
    this.synced = true;
    if (kind === FeedKind.Update) return "applied";
    // Compared with the last snapshot that went through: one that failed halfway must not
    // swallow the reset its retry owes the relay.
    const reset = this.incarnation !== -1 && this.incoming !== this.incarnation;
    this.incarnation = this.incoming;
    return reset ? "reset" : "applied";
  }

  private applyUpdate(r: BinaryReader): void {
    this.seq++;
    this.flushIndex = r.varuint();
    const epoch = (this.epoch = r.varuint());
    this.changedCount = 0;
    for (let op = r.u8(); op !== FeedOp.End; op = r.u8()) {
      if (op === FeedOp.Spawn) {
        const id = this.readId(r);
        const type = r.varuint();
        const serial = r.varuint();
        const global = r.u8() !== 0;
        this.spawn(id, type, serial);
        if (global) this.grid.insertGlobal(id);
        else this.grid.insert(id, r.f64(), r.f64());
      } else if (op === FeedOp.Despawn) {
        this.despawn(this.readLive(r));
      } else if (op === FeedOp.Move) {
        this.grid.move(this.readLive(r), r.f64(), r.f64());
      } else if (op === FeedOp.ViewerGone) {
        const v = this.viewers.get(r.varuint());
        if (v !== undefined) forget(v);
      } else {
        throw new DecodeError("bad_value", `feed op ${op}`);
      }
    }
    for (let n = r.varuint(); n > 0; n--) this.readStateBody(r, this.readLive(r));
    for (let n = r.varuint(); n > 0; n--) this.readChange(r, this.readLive(r), epoch);
    this.readViewers(r);
  }

  private applySnapshot(r: BinaryReader): void {
    const hash = r.u32();
    if (hash !== this.schema.hash >>> 0) throw new DecodeError("schema_mismatch", `feed of schema ${hash}, not ${this.schema.hash >>> 0}`);
    this.incoming = r.u32();
    const cellSize = r.f64();
    if (cellSize !== this.grid.cellSize) throw new DecodeError("bad_value", `feed grid cell ${cellSize}, not ${this.grid.cellSize}`);
    this.seq = r.varuint();
    this.flushIndex = r.varuint();
    this.epoch = r.varuint();
    // Emptied, the grid keeps no trace of its history that a query could show.
    for (let i = 0; i < this.slots; i++) if (this.isAlive(i)) this.despawn(i);
    for (let n = r.varuint(); n > 0; n--) {
      const id = this.readId(r);
      this.spawn(id, r.varuint(), r.varuint());
      if (r.varuint() !== id) throw new DecodeError("bad_value", `feed entity ${id} state out of place`);
      this.readStateBody(r, id);
    }
    for (let n = r.varuint(); n > 0; n--) this.grid.insertGlobal(this.readLive(r));
    // Placed entities in scan order, then those in no cell (see `WorldFeed.writeGridOrder`).
    for (let n = r.varuint(); n > 0; n--) this.grid.insert(this.readLive(r), r.f64(), r.f64());
    for (let n = r.varuint(); n > 0; n--) this.grid.insert(this.readLive(r), r.f64(), r.f64());
    this.changedCount = 0;
    for (let n = r.varuint(); n > 0; n--) {
      const e = this.readLive(r);
      const fields = this.rows[e * this.rowSize + EntityRow.FieldCount];
      for (let f = 0; f < fields; f++) this.prevValues[e * this.stride + f] = r.varint();
      this.changed[this.changedCount++] = e;
    }
    const keep = new Set<number>();
    for (let n = r.varuint(); n > 0; n--) keep.add(this.readViewer(r));
    this.viewers.forEach((v, pid) => {
      if (!keep.has(pid)) forget(v);
    });
  }

  private spawn(id: number, typeIndex: number, serial: number): void {
    if (this.isAlive(id)) throw new DecodeError("bad_value", `feed spawns entity ${id} twice`);
    const t: EntityType | undefined = this.schema.types[typeIndex];
    if (t === undefined) throw new DecodeError("bad_value", `feed entity type ${typeIndex}`);
    const row = id * this.rowSize;
    this.rows[row + EntityRow.Type] = t.index;
    this.rows[row + EntityRow.Serial] = serial;
    this.rows[row + EntityRow.FieldCount] = t.fields.length;
    this.rows.fill(0, row + EntityRow.Values, row + this.rowSize);
    const base = id * this.stride;
    for (const fi of t.fields) {
      const f = fi.field;
      this.maps[base + fi.index] = f.code === FieldCode.Map ? new MapFieldState(f.value!, f.maxLen) : undefined;
      this.stringBytes[base + fi.index] = undefined;
    }
  }

  private despawn(id: number): void {
    this.grid.remove(id);
    this.rows[id * this.rowSize + EntityRow.Type] = -1;
    const base = id * this.stride;
    for (let i = 0; i < this.stride; i++) {
      this.maps[base + i] = undefined;
      this.stringBytes[base + i] = undefined;
    }
  }

  /** The rest of an entity state after its id (see `writeEntityState`). */
  private readStateBody(r: BinaryReader, id: number): void {
    const er = id * this.rowSize;
    const rows = this.rows;
    rows[er + EntityRow.ChangedAt] = r.varuint();
    const t = this.schema.types[rows[er + EntityRow.Type]];
    const qo = er + EntityRow.Values;
    const so = id * this.stride;
    for (let f = 0; f < t.fields.length; f++) {
      const code = t.fields[f].field.code;
      if (code === FieldCode.String) {
        rows[qo + f] = r.varuint();
        this.stringBytes[so + f] = r.bytes(r.varuint()).slice();
      } else if (code === FieldCode.Map) {
        rows[qo + f] = r.varuint();
        this.maps[so + f]!.readState(r);
      } else {
        rows[qo + f] = r.varint();
      }
    }
  }

  /** One entity change (see `writeEntityChange`): the old values become `prevValues`. */
  private readChange(r: BinaryReader, id: number, epoch: number): void {
    const er = id * this.rowSize;
    const rows = this.rows;
    const t = this.schema.types[rows[er + EntityRow.Type]];
    const qo = er + EntityRow.Values;
    const so = id * this.stride;
    const n = t.fields.length;
    for (let f = 0; f < n; f++) this.prevValues[so + f] = rows[qo + f];
    const mask = r.varuint();
    if (mask >>> n !== 0 && n < 32) throw new DecodeError("bad_value", `feed change mask ${mask} of a ${n}-field type`);
    for (let f = 0; f < n; f++) {
      if ((mask & (1 << f)) === 0) continue;
      const code = t.fields[f].field.code;
      if (code === FieldCode.String) {
        rows[qo + f] = epoch;
        this.stringBytes[so + f] = r.bytes(r.varuint()).slice();
      } else if (code === FieldCode.Map) {
        rows[qo + f] = epoch;
        this.maps[so + f]!.readChange(r, epoch);
      } else {
        rows[qo + f] = r.varint();
      }
    }
    rows[er + EntityRow.ChangedAt] = epoch;
    this.changed[this.changedCount++] = id;
  }

  private readViewers(r: BinaryReader): void {
    for (let n = r.varuint(); n > 0; n--) this.readViewer(r);
  }

  private readViewer(r: BinaryReader): number {
    const pid = r.varuint();
    const mode = r.u8();
    if (mode !== ViewerMode.Blind && mode !== ViewerMode.Fixed && mode !== ViewerMode.Follow) throw new DecodeError("bad_value", `feed viewer mode ${mode}`);
    const v = this.viewer(pid);
    v.mode = mode as Viewer["mode"];
    v.center[0] = r.f64();
    v.center[1] = r.f64();
    v.target = r.varint();
    v.targetSerial = r.varuint();
    return pid;
  }

  /** An entity id, with room made for it. */
  private readId(r: BinaryReader): number {
    const id = r.varuint();
    if (id >= MAX_MIRRORED_SLOTS) throw new DecodeError("too_large", `feed entity id ${id} is past ${MAX_MIRRORED_SLOTS} slots`);
    if (id >= this.slots) this.growTo(id + 1);
    return id;
  }

  /** The id of a live entity. */
  private readLive(r: BinaryReader): number {
    const id = r.varuint();
    if (!this.isAlive(id)) throw new DecodeError("bad_value", `feed names entity ${id}, which is not alive`);
    return id;
  }

}

/**
 * What a viewer the world forgot looks like when it makes it again: blind, at the origin. The
 * mirror keeps one viewer object per player for good: a relay's client may connect (and take
 * its viewer) before the update that says the world forgot and remade that player's viewer, so
 * a forgotten viewer is reset in place, not replaced.
 */
function forget(v: Viewer): void {
  v.blind();
  v.center[0] = 0;
  v.center[1] = 0;
  v.targetSerial = 0;
}
