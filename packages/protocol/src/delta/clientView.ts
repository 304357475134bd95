import { BinaryReader } from "../binaryReader";
import { DecodeError } from "../decodeError";
import { type Field, FieldCode, dequantize } from "../schema/field";
import { readMapKey, readScalarDelta, readScalarFull, readStringField } from "../schema/fieldWire";
import type { EntityRecord, EntityType, Schema, SchemaDecl } from "../schema/schema";
import { DeltaSection, MAX_ENTITY_ID } from "./deltaFormat";

/** One entity as a client sees it: its wire id, its type and its decoded record. */
export interface ViewEntity<Name extends string = string, R = Record<string, unknown>> {
  /** The entity's wire id (reused after a leave). */
  readonly id: number;
  /** Its entity type name. */
  readonly type: Name;
  /** Its entity type's wire tag. */
  readonly typeIndex: number;
  /** Decoded field values, updated in place as deltas arrive. */
  readonly record: R;
}

/** A {@link ViewEntity} of any type of schema declaration `D`, discriminated by `type`. */
export type AnyViewEntity<D extends SchemaDecl> = {
  [K in keyof D & string]: ViewEntity<K, EntityRecord<D[K]>>;
}[keyof D & string];

/**
 * Optional callbacks, called after a whole body decoded successfully (never for a rejected
 * body): first leaves, then enters, then updates, each in wire order.
 */
export interface ClientViewListener<D extends SchemaDecl> {
  /** An entity left the view (despawned or out of range). */
  leave?(e: AnyViewEntity<D>): void;
  /** An entity entered the view. */
  enter?(e: AnyViewEntity<D>): void;
  /** `changedMask` has bit i set when field i (declaration order) changed. */
  update?(e: AnyViewEntity<D>, changedMask: number): void;
}

class Entity implements ViewEntity {
  constructor(
    readonly id: number,
    readonly type: string,
    readonly typeIndex: number,
    readonly record: Record<string, unknown>,
    /** Quantized scalars, the base the next update's differences apply to. */
    readonly q: Int32Array,
  ) {}
}

/**
 * The client half of state sync: applies the stream of delta bodies one client receives to
 * reproduce the entities it can see. Used by the client SDK and the load tool. A new or
 * reconnecting client starts from a fresh (or {@link clear}ed) view, as the server starts it
 * from an empty baseline.
 *
 * A body that fails to decode is returned as a {@link DecodeError} (nothing else is thrown).
 * The view may then be half-applied, so it refuses further bodies until {@link clear}: the
 * stream is reliable and ordered, so a bad body means the connection must start over.
 */
export class ClientView<D extends SchemaDecl = SchemaDecl> {
  private readonly entities = new Map<number, Entity>();
  private failure: DecodeError | null = null;
  // Touched entities of the body being applied, for listeners (reused across bodies).
  private readonly left: Entity[] = [];
  private readonly entered: Entity[] = [];
  private readonly updated: Entity[] = [];
  private readonly updatedMasks: number[] = [];

  constructor(
    /** The schema the bodies are decoded with. */
    readonly schema: Schema<D>,
    private readonly listener: ClientViewListener<D> | null = null,
  ) {}

  /** Number of entities in view. */
  get size(): number {
    return this.entities.size;
  }

  /** The entity with wire id `id`, if in view. */
  get(id: number): AnyViewEntity<D> | undefined {
    return this.entities.get(id) as AnyViewEntity<D> | undefined;
  }

  /** Every entity in view. */
  values(): IterableIterator<AnyViewEntity<D>> {
    return this.entities.values() as IterableIterator<AnyViewEntity<D>>;
  }

  /** Forgets everything (start of a new connection) and accepts bodies again after a failure. */
  clear(): void {
    this.entities.clear();
    this.failure = null;
  }

  /** Applies one delta body. Returns null on success, or the reason it was rejected. */
  apply(body: Uint8Array): DecodeError | null {
    if (this.failure) return this.failure;
    this.left.length = 0;
    this.entered.length = 0;
    this.updated.length = 0;
    this.updatedMasks.length = 0;
    try {
      this.decode(new BinaryReader(body));
    } catch (e) {
      // Anything but a DecodeError is a decoder bug; still a value, but recognisable as such.
      this.failure = e instanceof DecodeError ? e : new DecodeError("bad_value", `unexpected ${String(e)}`);
      return this.failure;
    }
    const l = this.listener;
    if (l) {
      if (l.leave) for (const e of this.left) l.leave(e as AnyViewEntity<D>);
      if (l.enter) for (const e of this.entered) l.enter(e as AnyViewEntity<D>);
      if (l.update) for (let i = 0; i < this.updated.length; i++) l.update(this.updated[i] as AnyViewEntity<D>, this.updatedMasks[i]);
    }
    return null;
  }

  private decode(r: BinaryReader): void {
    const sections = r.u8();
    if (sections === 0 || sections > 7) throw new DecodeError("bad_value", `delta sections ${sections}`);
    if (sections & DeltaSection.Leaves) {
      const n = readCount(r);
      for (let i = 0; i < n; i++) {
        const id = readId(r);
        const e = this.entities.get(id);
        if (!e) throw new DecodeError("bad_value", `leave of unknown entity ${id}`);
        this.entities.delete(id);
        this.left.push(e);
      }
    }
    if (sections & DeltaSection.Enters) {
      const n = readCount(r);
      for (let i = 0; i < n; i++) this.decodeEnter(r);
    }
    if (sections & DeltaSection.Updates) {
      const n = readCount(r);
      for (let i = 0; i < n; i++) this.decodeUpdate(r);
    }
    r.expectEnd();
  }

  private decodeEnter(r: BinaryReader): void {
    const id = readId(r);
    const typeIndex = r.varuint();
    const type = this.schema.types[typeIndex];
    if (!type) throw new DecodeError("bad_value", `unknown entity type ${typeIndex}`);
    const q = new Int32Array(type.fields.length);
    const record: Record<string, unknown> = {};
    for (const fi of type.fields) {
      const f = fi.field;
      if (f.code === FieldCode.String) {
        record[fi.name] = readStringField(r, f);
      } else if (f.code === FieldCode.Map) {
        const m = new Map<number, unknown>();
        const n = r.varuint();
        if (n > f.maxLen) throw new DecodeError("too_large", `map of ${n} keys exceeds ${f.maxLen}`);
        for (let k = 0; k < n; k++) {
          const key = readMapKey(r);
          m.set(key, dequantize(f.value!, readScalarFull(r, f.value!)));
        }
        if (m.size !== n) throw new DecodeError("bad_value", "map repeats a key");
        record[fi.name] = m;
      } else {
        const v = readScalarFull(r, f);
        q[fi.index] = v;
        record[fi.name] = dequantize(f, v);
      }
    }
    const prev = this.entities.get(id);
    if (prev) this.left.push(prev);
    const e = new Entity(id, type.name, typeIndex, record, q);
    this.entities.set(id, e);
    this.entered.push(e);
  }

  private decodeUpdate(r: BinaryReader): void {
    const id = readId(r);
    const e = this.entities.get(id);
    if (!e) throw new DecodeError("bad_value", `update of unknown entity ${id}`);
    const type: EntityType = this.schema.types[e.typeIndex];
    const mask = r.varuint() | 0;
    if (mask === 0 || (mask & ~type.allMask) !== 0) throw new DecodeError("bad_value", `update mask ${mask >>> 0} for ${type.name}`);
    const record = e.record;
    for (const fi of type.fields) {
      if ((mask & (1 << fi.index)) === 0) continue;
      const f = fi.field;
      if (f.code === FieldCode.String) {
        record[fi.name] = readStringField(r, f);
      } else if (f.code === FieldCode.Map) {
        applyMapChange(r, f.maxLen, f.value!, record[fi.name] as Map<number, unknown>);
      } else {
        const v = readScalarDelta(r, f, e.q[fi.index]);
        e.q[fi.index] = v;
        record[fi.name] = dequantize(f, v);
      }
    }
    this.updated.push(e);
    this.updatedMasks.push(mask);
  }
}

function applyMapChange(r: BinaryReader, maxKeys: number, valueField: Field, m: Map<number, unknown>): void {
  const header = r.varuint();
  const reset = (header & 1) !== 0;
  const removed = header >>> 1;
  if (reset) {
    if (removed !== 0) throw new DecodeError("bad_value", "map reset with removals");
    m.clear();
  }
  if (removed > maxKeys) throw new DecodeError("too_large", `${removed} map removals exceed ${maxKeys}`);
  // Removing a key the client never had is allowed: the server may not know it was never sent.
  for (let i = 0; i < removed; i++) m.delete(readMapKey(r));
  const set = r.varuint();
  if (set > maxKeys) throw new DecodeError("too_large", `${set} map entries exceed ${maxKeys}`);
  for (let i = 0; i < set; i++) {
    const key = readMapKey(r);
    m.set(key, dequantize(valueField, readScalarFull(r, valueField)));
  }
  if (m.size > maxKeys) throw new DecodeError("too_large", `map grew past ${maxKeys} keys`);
}

/** A section count: at least 1, and no more items than bytes left (each item takes ≥ 1 byte). */
function readCount(r: BinaryReader): number {
  const n = r.varuint();
  if (n === 0) throw new DecodeError("bad_value", "empty delta section");
  if (n > r.remaining) throw new DecodeError("truncated", `section of ${n} items in ${r.remaining} bytes`);
  return n;
}

function readId(r: BinaryReader): number {
  const id = r.varuint();
  if (id > MAX_ENTITY_ID) throw new DecodeError("bad_value", `entity id ${id} out of range`);
  return id;
}
