import { BinaryReader } from "../binaryReader";
import { DecodeError } from "../decodeError";
import type { FrameWriter } from "../frameWriter";
import { MAX_TYPES, resolveFields, typeText, type EntityRecord, type FieldInfo, type TypeDecl } from "./decl";
import { type Field, checkCount, dequantize, normalizeString, quantize } from "./field";
import { readScalarFull, readStringField, writeScalarFull } from "./fieldWire";
import { FIELD_MAP, FIELD_QUANT, FIELD_STRING } from "../wireCodes";

/*
 * Declared events: what a binary room tells players besides the state (a shot's tracer, a kill,
 * "this entity is yours"), declared like entity types, each kind a set of the same fields the
 * state uses, so a game writes `ctx.emit({ kind: "kill", killer, victim })` and a client reads
 * the same object back with no codec of its own. An event body is `u8 kind` (the kind's
 * position in the declaration) then its fields in declaration order.
 *
 * Fields are written whole (an event has no baseline to be a delta of), as an entity's enter
 * writes them, except quantized numbers, which take the width that is never longer: one byte up
 * to 256 levels, two from 16 385 to 65 536 (a position in 1/16 units of a 4096 arena), else a
 * varuint (shorter for small values, and no longer in the worst case). Maps are state, not
 * events: declaring one is refused.
 */

/** Event kinds of a room, by name, in wire order (declaration order): each a set of fields. */
export type EventDecl = Record<string, TypeDecl>;

/**
 * One event of declaration `V` as a game emits it and a client reads it: `kind` names the
 * declared kind, the other properties are its fields' values. A union over the kinds, so
 * `switch (e.kind)` narrows it.
 */
export type DeclaredEvent<V extends EventDecl> = {
  [K in keyof V & string]: {
    /** The declared kind's name. */
    kind: K;
  } & EntityRecord<V[K]>;
}[keyof V & string];

/** One declared event kind, resolved. */
export interface EventKind {
  /** The kind's name (the events' `kind` value). */
  readonly name: string;
  /** Wire tag: its position in the declaration. */
  readonly index: number;
  /** Its fields, in declaration order. */
  readonly fields: readonly FieldInfo[];
}

/**
 * A room's declared events ({@link defineEvents}): the kinds, their fields, and the decoder a
 * client runs. Hand it to `defineSchema(types, { events })`, so the schema's hash covers it (a
 * client built against other events refuses the room) and both ends find it on the schema.
 */
export class EventSchema<V extends EventDecl = EventDecl> {
  // Declared, not defined: the constructor sets each (see Field for why).
  /** The declaration as given (for type inference). */
  declare readonly decl: V;
  /** The declared kinds, in declaration order (wire tags 0, 1, …). */
  declare readonly kinds: readonly EventKind[];
  /** Canonical text of the declaration, part of the schema hash. */
  declare readonly descriptor: string;

  constructor(decl: V) {
    const names = Object.keys(decl);
    checkCount("event kind count", names.length, MAX_TYPES);
    this.kinds = names.map((name, index): EventKind => {
      const fields = resolveFields(`event ${name}`, decl[name]!);
      for (const f of fields) {
        // `kind` carries the kind's name.
        if (f.name === "kind") throw new TypeError(`event ${name}: a field may not be called kind`);
        // Maps and the input-only floats (codes past FIELD_MAP) are not event fields.
        if (f.field.code >= FIELD_MAP) throw new TypeError(`event ${name}.${f.name}: events carry scalars and strings, not maps or floats`);
      }
      return { name, index, fields };
    });
    this.descriptor = this.kinds.map((k) => typeText(k.name, k.fields)).join("|");
    this.decl = decl;
  }

  /**
   * Decodes one event body (a view valid only during the call is fine: nothing is kept). Never
   * throws: a body that is truncated, names no declared kind, holds a value its field cannot,
   * or has bytes left over comes back as a {@link DecodeError}.
   */
  decode(body: Uint8Array): DeclaredEvent<V> | DecodeError {
    try {
      const r = new BinaryReader(body);
      const kind = this.kinds[r.u8()];
      if (!kind) throw new DecodeError("unknown_kind", `event_kind ${body[0]}`);
      const event: Record<string, unknown> = { kind: kind.name };
      for (const { name, field } of kind.fields) {
        event[name] = field.code === FIELD_STRING ? readStringField(r, field) : dequantize(field, readEventScalar(r, field));
      }
      r.expectEnd();
      return event as DeclaredEvent<V>;
    } catch (e) {
      return e instanceof DecodeError ? e : new DecodeError("bad_value", String(e));
    }
  }
}

/**
 * The event decoder a client runs for `events`: a body they refuse is thrown as its
 * {@link DecodeError}, so the connection drops a stream it can no longer follow (the schema
 * hash promised both ends the same declaration).
 */
export function declaredEventDecoder<V extends EventDecl>(events: EventSchema<V>): (body: Uint8Array) => DeclaredEvent<V> {
  return (body) => {
    const e = events.decode(body);
    if (e instanceof DecodeError) throw e;
    return e;
  };
}

/**
 * Declares a room's events, e.g. `defineEvents({ kill: { killer: varuint(), victim: varuint() } })`.
 * Order matters: kinds and fields are tagged on the wire by position.
 *
 * @throws TypeError for a map or float field, or a field called `kind` or `__proto__`; RangeError for more than 256 kinds or 32 fields in one.
 */
export function defineEvents<V extends EventDecl>(decl: V): EventSchema<V> {
  return new EventSchema(decl);
}

/** Quantized numbers of this many levels or fewer take one byte in an event. */
const U8_LEVELS = 256;

/** Whether a quantized number of `levels` takes two fixed bytes (a varuint would take three at the top). */
function twoBytes(levels: number): boolean {
  return levels > 16384 && levels <= 65536;
}

/**
 * Writes one event body into `w` (the room's side; `w` is not reset): the kind's tag, then every
 * field quantized as the state quantizes it (out-of-range numbers clamp, strings are cut to
 * their length). Returns `w`.
 *
 * @throws TypeError when `event.kind` is not a declared kind (a bug in the game, like spawning an
 * undeclared entity type).
 */
export function writeEvent<V extends EventDecl>(w: FrameWriter, events: EventSchema<V>, event: DeclaredEvent<V>): FrameWriter {
  const e = event as Record<string, unknown>;
  const kind = events.kinds.find((k) => k.name === e.kind);
  if (!kind) throw new TypeError(`event kind ${String(e.kind)} is not declared`);
  w.u8(kind.index);
  for (const { name, field } of kind.fields) {
    const v = e[name];
    if (field.code === FIELD_STRING) w.string(normalizeString(field, v));
    else writeEventScalar(w, field, quantize(field, v));
  }
  return w;
}

function writeEventScalar(w: FrameWriter, f: Field, q: number): void {
  if (f.code !== FIELD_QUANT) return writeScalarFull(w, f, q);
  if (f.levels <= U8_LEVELS) w.u8(q);
  else if (twoBytes(f.levels)) w.u16(q);
  else w.varuint(q);
}

function readEventScalar(r: BinaryReader, f: Field): number {
  if (f.code !== FIELD_QUANT || !(f.levels <= U8_LEVELS || twoBytes(f.levels))) return readScalarFull(r, f);
  const q = f.levels <= U8_LEVELS ? r.u8() : r.u16();
  if (q >= f.levels) throw new DecodeError("bad_value", `level ${q}/${f.levels}`);
  return q;
}
