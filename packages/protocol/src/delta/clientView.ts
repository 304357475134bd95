import { BinaryReader } from "../binaryReader";
import { DecodeError } from "../decodeError";
import { type Field, dequantize } from "../schema/field";
import { readMapKey, readScalarDelta, readScalarFull, readStringField } from "../schema/fieldWire";
import type { EntityType, FieldInfo, Schema, SchemaDecl } from "../schema/schema";
import { MAX_ENTITY_ID } from "./deltaFormat";
import type { AnyViewEntity, ViewEntity } from "./viewEntity";
import { without, type AnyChange, type FieldChangeCallback, type FieldName, type FieldValueCallback, type WatchOptions } from "./viewWatchers";
import { FIELD_MAP, FIELD_STRING, SECTION_ENTERS, SECTION_LEAVES, SECTION_UPDATES } from "../wireCodes";

/** An entity callback with the schema's types erased. */
type EntityFn = (e: ViewEntity) => void;

/** An entity in view: what {@link ViewEntity} shows, plus the quantized base of its scalars. */
interface Entity extends ViewEntity {
  /** Quantized scalars, the base the next update's differences apply to. */
  readonly q: Int32Array;
  /** The body it entered in (see `ClientView.#body`). */
  readonly b: number;
}

/**
 * The client half of state sync: applies the stream of delta bodies one client receives to
 * reproduce the entities it can see. Used by the client SDK and the load tool. A new or
 * reconnecting client starts from a fresh (or {@link clear}ed) view, as the server starts it
 * from an empty baseline.
 *
 * A body that fails to decode is returned as a {@link DecodeError} (nothing else is thrown).
 * The view then holds the entities it held before that body, but their fields may be
 * half-updated, so it refuses further bodies until {@link clear} (which reports the removal of
 * exactly the entities {@link onAdd} reported): the
 * stream is reliable and ordered, so a bad body means the connection must start over.
 *
 * Callbacks: {@link onAdd}, {@link onRemove} and {@link onChange} (per field, with the previous
 * value), called once a body applied whole: removes, then adds (with the first values that
 * `immediate` field watchers hear, in the order they subscribed), then changes, each in wire order.
 */
export class ClientView<D extends SchemaDecl = SchemaDecl> {
  // Typed with D, unlike the callback lists below: this lets TypeScript compare views by shape,
  // so a ClientView<D> still passes where a ClientView of any schema is taken.
  readonly #entities = new Map<number, Entity & AnyViewEntity<D>>();
  // Stored without D so a ClientView<D> still passes as a ClientView of any schema.
  // Replaced, never mutated, on (un)subscribe: a callback may unsubscribe while the list runs.
  #addFns: readonly EntityFn[] = [];
  #removeFns: readonly EntityFn[] = [];
  /** Field change callbacks by field name (lists replaced like the two above). */
  readonly #changeFns = new Map<string, readonly AnyChange[]>();
  /**
   * Field changes of the body being applied, four slots each: entity, callbacks, value,
   * previous; called back only once the body applied whole. Reused across bodies.
   */
  readonly #changes: unknown[] = [];
  #failure: DecodeError | null = null;
  // Counts bodies, so an entity knows the body it entered in: the server never enters an id
  // twice, or enters and updates it, in one body, and allowing it would report a remove
  // before its add, or a change in the body the entity entered.
  #body = 0;
  // Entities the body being applied removed and added, called back once it applied whole (reused across bodies).
  readonly #left: Entity[] = [];
  readonly #entered: Entity[] = [];

  // Declared, not a parameter property: that would emit the field twice (see Field).
  /** The schema the bodies are decoded with. */
  declare readonly schema: Schema<D>;

  constructor(schema: Schema<D>) {
    this.schema = schema;
  }

  /** Number of entities in view. */
  get size(): number {
    return this.#entities.size;
  }

  /** The entity with wire id `id`, if in view. */
  get(id: number): AnyViewEntity<D> | undefined {
    return this.#entities.get(id);
  }

  /** Every entity in view. */
  values(): IterableIterator<AnyViewEntity<D>> {
    return this.#entities.values();
  }

  /**
   * Calls `fn` for each entity that enters the view (spawned, came into range, or came back after
   * a reconnect), and with `{ immediate: true }` at once for each entity already in view;
   * returns the unsubscribe function.
   */
  onAdd(fn: (e: AnyViewEntity<D>) => void, options?: WatchOptions): () => void {
    this.#addFns = [...this.#addFns, fn as EntityFn];
    if (options?.immediate) for (const e of [...this.#entities.values()]) fn(e);
    return () => void (this.#addFns = without(this.#addFns, fn as EntityFn));
  }

  /**
   * Calls `fn` for each entity that leaves the view, and for every entity when the view is
   * {@link clear}ed (a reconnect), so adds and removes always pair up. Returns the unsubscribe function.
   */
  onRemove(fn: (e: AnyViewEntity<D>) => void): () => void {
    this.#removeFns = [...this.#removeFns, fn as EntityFn];
    return () => void (this.#removeFns = without(this.#removeFns, fn as EntityFn));
  }

  /**
   * Calls `fn(entity, value, previous)` whenever field `field` of an entity in view changes
   * (not when it enters: see {@link onAdd}). Only entity types declaring the field report it, and
   * `entity` is narrowed to them. Returns the unsubscribe function.
   */
  onChange<F extends FieldName<D>>(field: F, fn: FieldChangeCallback<D, F>): () => void;
  /**
   * As above; with `{ immediate: true }` `fn` also hears the value the field has now, at once for
   * every entity in view that has it, and the first value of every entity that enters later, with
   * `previous` undefined: one callback sees every value the field takes.
   */
  onChange<F extends FieldName<D>>(field: F, fn: FieldValueCallback<D, F>, options: WatchOptions): () => void;
  onChange(field: string, callback: (...args: never[]) => void, options?: WatchOptions): () => void {
    const fn = callback as AnyChange;
    const byName = this.#changeFns;
    byName.set(field, [...(byName.get(field) ?? []), fn]);
    // First values ride on the adds: at once for the entities in view, then as each enters.
    const first = options?.immediate ? this.onAdd((e) => void (Object.hasOwn(e.record, field) && fn(e as never, e.record[field], undefined)), options) : null;
    return () => {
      byName.set(field, without(byName.get(field)!, fn));
      first?.();
    };
  }

  /** Forgets everything (start of a new connection) and accepts bodies again after a failure. */
  clear(): void {
    for (const e of this.#entities.values()) for (const fn of this.#removeFns) fn(e);
    this.#entities.clear();
    this.#failure = null;
  }

  /** Applies one delta body. Returns null on success, or the reason it was rejected. */
  apply(body: Uint8Array): DecodeError | null {
    if (this.#failure) return this.#failure;
    const left = this.#left;
    const entered = this.#entered;
    const changes = this.#changes;
    left.length = entered.length = changes.length = 0;
    this.#body++;
    try {
      this.#decode(new BinaryReader(body));
    } catch (e) {
      changes.length = 0;
      // Puts back the entities the body took out or added, so a clear() removes exactly those
      // onAdd reported. Updates stay half-applied: the stream starts over anyway.
      for (const x of entered) this.#entities.delete(x.id);
      for (const x of left) this.#entities.set(x.id, x as Entity & AnyViewEntity<D>);
      // Anything but a DecodeError is a decoder bug; still a value, but recognisable as such.
      return (this.#failure = e instanceof DecodeError ? e : new DecodeError("bad_value", `unexpected ${String(e)}`));
    }
    for (const e of left) for (const fn of this.#removeFns) fn(e);
    for (const e of entered) for (const fn of this.#addFns) fn(e);
    for (let i = 0; i < changes.length; i += 4) for (const fn of changes[i + 1] as AnyChange[]) fn(changes[i] as never, changes[i + 2], changes[i + 3]);
    changes.length = 0;
    return null;
  }

  #decode(r: BinaryReader): void {
    const sections = r.u8();
    if (sections === 0 || sections > 7) throw new DecodeError("bad_value", `sections ${sections}`);
    // The sections in wire order (leaves, enters, updates): each a count, then items that
    // start with an entity id.
    for (let section: number = SECTION_LEAVES; section <= SECTION_UPDATES; section <<= 1) {
      if ((sections & section) === 0) continue;
      const n = r.varuint();
      // A hostile count needs no check of its own: every item takes a byte, so the loop ends
      // (truncated) at the body's end.
      if (n === 0) throw new DecodeError("bad_value", "empty_section");
      for (let i = 0; i < n; i++) {
        const id = r.varuint();
        if (id > MAX_ENTITY_ID) throw new DecodeError("bad_value", `entity_id ${id}`);
        if (section === SECTION_ENTERS) {
          this.#enter(r, id);
          continue;
        }
        const e = this.#entities.get(id);
        // An entity that entered in this body is not known to its updates (see #body).
        if (!e || e.b === this.#body) throw new DecodeError("bad_value", `no_entity ${id}`);
        if (section === SECTION_UPDATES) {
          this.#update(r, e);
        } else {
          this.#entities.delete(id);
          this.#left.push(e);
        }
      }
    }
    r.expectEnd();
  }

  #enter(r: BinaryReader, id: number): void {
    const typeIndex = r.varuint();
    const type = this.schema.types[typeIndex];
    if (!type) throw new DecodeError("bad_value", `entity_type ${typeIndex}`);
    const e: Entity = { id, type: type.name, typeIndex, record: {}, q: new Int32Array(type.fields.length), b: this.#body };
    for (const fi of type.fields) readField(r, e, fi, true);
    const prev = this.#entities.get(id);
    if (prev?.b === e.b) throw new DecodeError("bad_value", `entered_twice ${id}`);
    if (prev) this.#left.push(prev);
    this.#entities.set(id, e as Entity & AnyViewEntity<D>);
    this.#entered.push(e);
  }

  #update(r: BinaryReader, e: Entity): void {
    const type: EntityType = this.schema.types[e.typeIndex];
    const mask = r.varuint() | 0;
    if (mask === 0 || (mask & ~type.allMask) !== 0) throw new DecodeError("bad_value", `mask ${mask >>> 0}`);
    const record = e.record;
    for (const fi of type.fields) {
      if ((mask & (1 << fi.index)) === 0) continue;
      const fns = this.#changeFns.get(fi.name);
      const previous = record[fi.name];
      readField(r, e, fi, false);
      if (fns?.length) this.#changes.push(e, fns, record[fi.name], previous);
    }
  }
}

/**
 * Reads field `fi` of `e` into its record: on an enter (`whole`) as the full value, on an
 * update as a change to what the entity holds (scalars a difference, strings whole, maps
 * removals and sets).
 */
function readField(r: BinaryReader, e: Entity, fi: FieldInfo, whole: boolean): void {
  const f = fi.field;
  const record = e.record;
  if (f.code === FIELD_STRING) {
    record[fi.name] = readStringField(r, f);
  } else if (f.code === FIELD_MAP) {
    if (whole) record[fi.name] = new Map<number, unknown>();
    readMap(r, f, record[fi.name] as Map<number, unknown>, whole);
  } else {
    const v = (e.q[fi.index] = whole ? readScalarFull(r, f) : readScalarDelta(r, f, e.q[fi.index]));
    record[fi.name] = dequantize(f, v);
  }
}

/**
 * Reads a map field into `m` (empty on an enter): on an enter the whole map, on an update its
 * change (see `writeMapChangeHeader`). Hostile counts need no check of their own: every key
 * takes a byte, so a loop ends at the body's end; the result must fit the field.
 */
function readMap(r: BinaryReader, f: Field, m: Map<number, unknown>, whole: boolean): void {
  if (!whole) {
    const header = r.varuint();
    const removed = header >>> 1;
    if (header & 1) {
      if (removed !== 0) throw new DecodeError("bad_value", "map_reset");
      m.clear();
    }
    // Removing a key the client never had is allowed: the server may not know it was never sent.
    for (let i = 0; i < removed; i++) m.delete(readMapKey(r));
  }
  const n = r.varuint();
  for (let i = 0; i < n; i++) m.set(readMapKey(r), dequantize(f.value!, readScalarFull(r, f.value!)));
  if (whole && n !== m.size) throw new DecodeError("bad_value", "map_key_twice");
  if (m.size > f.maxLen) throw new DecodeError("too_large", `long_map ${m.size}>${f.maxLen}`);
}
