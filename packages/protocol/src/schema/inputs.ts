import type { BinaryWriter } from "../binaryWriter";
import { type EntityRecord, type FieldInfo, MAX_TYPES, resolveFields, typeText } from "./decl";
import type { DeclaredEvent, EventDecl, EventKind } from "./events";
import { type Field, checkCount, dequantize, quantize } from "./field";
import { FIELD_ANGLE, FIELD_BOOL, FIELD_F32, FIELD_F64, FIELD_QUANT, FIELD_STRING, FIELD_U16, FIELD_U8, FIELD_VARINT } from "../wireCodes";

/*
 * Declared inputs: what a binary room's players send, declared with the same fields as its state
 * and events, so the codec, the typed `sendInput` and the room's range checks all come from one
 * declaration. Client side here (the declaration, the writer, the values the room will see);
 * the room's reader, with its refusals, is `inputRead.ts`, which no page bundles.
 *
 * Wire format of one input payload (the INPUT frame's per-input bytes): with kinds
 * (`defineInputs`), `u8 kind` (the kind's position in the declaration) first; then every field
 * in declaration order, whole, little-endian:
 *   u8, bool (0 or 1)                        1 byte
 *   u16                                      2 bytes
 *   quant: ≤ 256 levels 1 byte, 16 385..65 536 levels 2 bytes, else a varuint (LEB128) of the level
 *   angle: ≤ 256 levels 1 byte, else 2 bytes (the level)
 *   varuint                                  LEB128, 1-5 bytes
 *   varint                                   zigzag, then LEB128, 1-5 bytes
 *   f32 / f64                                IEEE 754, 4 / 8 bytes
 * A quantized field carries its level q (0..levels-1); its value is `min + q × step` (at most
 * `max`; angles `q × 2π / levels`). Nothing else: no length, no field tags, no trailing bytes.
 */

/** Fields of one input (or one input kind), by name, in wire order: numbers and booleans. */
export type InputDecl = Record<string, Field<number> | Field<boolean>>;

/**
 * A room's declared inputs ({@link defineInput}, {@link defineInputs}): the kinds and their
 * fields. `I` is the input a client sends and the room's `decodeInput` returns. Hand it to
 * `defineSchema(types, { inputs })`, so the schema's hash covers it (a client built against other
 * inputs refuses the room) and both ends find it on the schema.
 */
export class InputSchema<I = unknown> {
  /** Phantom: the input type. Never set at run time. */
  declare readonly __input?: I;
  // Declared, not defined: the constructor sets each (see Field for why).
  /** The kinds, in declaration order (wire tags 0, 1, …); one kind named "" for {@link defineInput}. */
  declare readonly kinds: readonly EventKind[];
  /** True when a payload starts with its kind's tag ({@link defineInputs}). */
  declare readonly tagged: boolean;
  /** Canonical text of the declaration, part of the schema hash. */
  declare readonly descriptor: string;
  // Typed as a method (parameters bivariant), so a schema declaring no inputs (`never`) still
  // passes where a schema of any inputs is taken.
  /**
   * Encodes one input on `w` (reset first) and returns a copy of the bytes: a declaring game's
   * `GameTypes.encodeInput`. A property (bound to this declaration), so the declaration can be
   * handed on as the codec.
   */
  declare readonly encode: { encode(input: I, w: BinaryWriter): Uint8Array }["encode"];

  /**
   * Resolves `decl` (kinds by name; untagged: one kind named ""). See {@link defineInput}. What
   * only a room must refuse (strings, maps, a field called `kind`) is checked where a room is
   * made (`checkInputSchema`), so a page does not ship the checks.
   */
  constructor(decl: EventDecl, tagged: boolean) {
    const names = Object.keys(decl);
    checkCount("input kind count", names.length, MAX_TYPES);
    this.kinds = names.map((name, index): EventKind => ({ name, index, fields: resolveFields(name ? `input ${name}` : "input", decl[name]!) }));
    this.tagged = tagged;
    this.descriptor = this.kinds.map((k) => typeText(k.name, k.fields)).join("|");
    this.encode = (input, w) => this.write(w.reset(), input).toBytes();
  }

  /**
   * Appends one input's payload to `w` (no reset, no copy): the kind's tag when the declaration
   * has kinds, then each field's wire value (`inputWireValue`). For senders that reuse one writer per
   * input; a declaring game's `GameTypes.encodeInput` does this on a reset writer.
   *
   * @throws RangeError naming the field for a number that is not finite (nothing a room could
   * read), leaving `w` as it was; TypeError for a kind not declared. Finite values out of range
   * are clamped.
   */
  write(w: BinaryWriter, input: I): BinaryWriter {
    const rec = input as Record<string, unknown>;
    const kind = kindOf(this, rec);
    const start = w.offset;
    if (this.tagged) w.u8(kind.index);
    try {
      for (const f of kind.fields) {
        const q = inputWireValue(kind.name, f, rec[f.name]);
        const bytes = fieldBytes(f.field);
        if (bytes === 1) w.u8(q);
        else if (bytes === 2) w.u16(q);
        else if (bytes === 4) w.f32(q);
        else if (bytes === 8) w.f64(q);
        // A varuint; a varint zigzagged first (the readers' rule).
        else w.varuint(f.field.code === FIELD_VARINT ? (q << 1) ^ (q >> 31) : q);
      }
    } catch (e) {
      w.offset = start;
      throw e;
    }
    return w;
  }
}

/**
 * The longest payload an input of `inputs` takes (bytes): every field at its widest (a varuint
 * 5 bytes), plus the tag with kinds. A sender may send at most 256 (`MAX_INPUT_PAYLOAD_BYTES`):
 * the SDK refuses a longer payload before sending it.
 */
export function inputMaxBytes(inputs: InputSchema<unknown>): number {
  return Math.max(...inputs.kinds.map((k) => k.fields.reduce((n, f) => n + (fieldBytes(f.field) || 5), +inputs.tagged)));
}

/**
 * Declares a room's input as one set of fields, e.g.
 * `defineInput({ dx: quant(-1, 1, 1 / 127), dy: quant(-1, 1, 1 / 127), boost: bool() })`: three
 * bytes, read back by the room as `{ dx, dy, boost }` with every field checked against its range.
 * Order matters: fields go on the wire in declaration order. Fields may be any quantized scalar
 * (`quant`, `quantAngle`, `u8`, `u16`, `varuint`, `varint`, `bool`) or a float sent whole
 * (`f32`, `f64`); not strings or maps (those are room messages' business).
 *
 * @throws TypeError for a field called `__proto__`; RangeError for more than 32 fields. A
 * string or map field is a type error, and refused at run time where a room is made.
 */
export function defineInput<T extends InputDecl>(fields: T): InputSchema<EntityRecord<T>> {
  return new InputSchema({ "": fields }, false);
}

/**
 * Declares a room's inputs as kinds, like events: `defineInputs({ move: { … }, shot: { … } })`.
 * A payload starts with a `u8` tag (the kind's position), and an input is `{ kind: "move", … }`,
 * a union over the kinds that `switch (input.kind)` narrows.
 *
 * @throws as {@link defineInput}; RangeError for more than 256 kinds. A field called `kind` or a
 * kind called "" is refused where a room is made.
 */
export function defineInputs<V extends Record<string, InputDecl>>(kinds: V): InputSchema<DeclaredEvent<V>> {
  return new InputSchema(kinds, true);
}

/**
 * Bytes a field takes whole in an input: fixed widths, or 0 for a varuint. Quantized numbers take
 * the width that is never longer, as in events: one byte up to 256 levels, two from 16 385 to
 * 65 536, else a varuint (shorter for small levels, no longer at the top).
 */
export function fieldBytes(f: Field): number {
  switch (f.code) {
    case FIELD_U8:
    case FIELD_BOOL:
      return 1;
    case FIELD_U16:
      return 2;
    case FIELD_ANGLE:
      return f.levels <= 256 ? 1 : 2;
    case FIELD_QUANT:
      return f.levels <= 256 ? 1 : f.levels > 16384 && f.levels <= 65536 ? 2 : 0;
    case FIELD_F32:
      return 4;
    case FIELD_F64:
      return 8;
    default:
      return 0;
  }
}

/**
 * What field `f` of input kind `kind` carries for value `v`, the one rule of both ends: a
 * quantized field's level (the value clamped into the range, rounded to the step; an angle
 * wrapped), a float clamped into `[min, max]` (an f32 rounded to 32 bits). Booleans are truthiness.
 *
 * @throws RangeError naming the field when a number field is given something that is not a finite number.
 */
export function inputWireValue(kind: string, f: FieldInfo, v: unknown): number {
  const field = f.field;
  // A boolean is its truthiness (quantize's rule); every number must be finite.
  if (field.code !== FIELD_BOOL && !Number.isFinite(v)) throw new RangeError(`input ${fieldName(kind, f)}: ${String(v)} is not a finite number`);
  if (field.code < FIELD_STRING) return quantize(field, v);
  const x = (v as number) < field.min ? field.min : (v as number) > field.max ? field.max : (v as number);
  return field.code === FIELD_F32 ? Math.fround(x) : x;
}

/** The value a room reads for what `inputWireValue` gave (a level, or the float itself). */
export function inputValue(f: Field, w: number): number | boolean {
  return f.code >= FIELD_F32 ? w : dequantize(f, w);
}

/** `dx`, or `move.dx` with kinds: how a refusal or an error names a field. */
export function fieldName(kind: string, f: FieldInfo): string {
  return kind ? `${kind}.${f.name}` : f.name;
}

/** The declared kind an input names (`input.kind` with kinds, the only one without). */
function kindOf(inputs: InputSchema<any>, input: Record<string, unknown>): EventKind {
  const kinds = inputs.kinds;
  if (!inputs.tagged) return kinds[0]!;
  for (const k of kinds) if (k.name === input.kind) return k;
  throw new TypeError(`input kind ${String(input.kind)} is not declared`);
}

/**
 * The input as the room will read it: each field's value after the wire (quantized to its step,
 * clamped, an f32 rounded), in a new object. The one rule a client predicts with: feed a
 * prediction this, not the input it sent, and it steps exactly what the room steps (a declaring
 * room's `decodeInput` returns the same values, `readInput` being built on the same two rules,
 * `inputWireValue` and `inputValue`).
 *
 * @throws as {@link InputSchema.write}.
 */
export function quantizeInput<I>(inputs: InputSchema<I>, input: I): I {
  const rec = input as Record<string, unknown>;
  const kind = kindOf(inputs, rec);
  const out: Record<string, unknown> = inputs.tagged ? { kind: kind.name } : {};
  for (const f of kind.fields) out[f.name] = inputValue(f.field, inputWireValue(kind.name, f, rec[f.name]));
  return out as I;
}
