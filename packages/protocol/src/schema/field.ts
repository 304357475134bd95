import { FIELD_ANGLE, FIELD_BOOL, FIELD_F32, FIELD_F64, FIELD_MAP, FIELD_QUANT, FIELD_STRING, FIELD_U16, FIELD_U8, FIELD_VARINT, FIELD_VARUINT } from "../wireCodes";
/**
 * Numeric tags of the field kinds. Hot loops switch on these instead of calling methods on
 * different classes, so every call site stays monomorphic.
 */
export const FieldCode = {
  // The numeric scalars come first: a position (core sync, schemaLayout.ts) is a code below Bool.
  /** A number quantized to a step within [min, max]. */
  Quant: FIELD_QUANT,
  /** An angle quantized to 2^bits steps per turn. */
  Angle: FIELD_ANGLE,
  /** An unsigned byte. */
  U8: FIELD_U8,
  /** An unsigned 16-bit integer. */
  U16: FIELD_U16,
  /** An unsigned integer, variable length. */
  VarUint: FIELD_VARUINT,
  /** A signed integer, variable length. */
  VarInt: FIELD_VARINT,
  /** A boolean. */
  Bool: FIELD_BOOL,
  /** A UTF-8 string of bounded length. */
  String: FIELD_STRING,
  /** A map from integer keys to numbers or booleans. */
  Map: FIELD_MAP,
  /** A 32-bit float within [min, max], sent whole: declared inputs only. */
  F32: FIELD_F32,
  /** A 64-bit float within [min, max], sent whole: declared inputs only. */
  F64: FIELD_F64,
} as const;

/** One of the {@link FieldCode} tags. */
export type FieldCodeValue = (typeof FieldCode)[keyof typeof FieldCode];

/**
 * One declared field: its kind, its parameters and the canonical text the schema hash is built
 * from. Every instance has the same shape whatever the kind (unused parameters are 0/null), so
 * V8 keeps one hidden class for all of them. `V` is the value type a game writes and a client
 * reads; it exists only for type inference.
 */
export class Field<V = unknown> {
  /** Phantom: the JS value type of this field. Never set at run time. */
  declare readonly __value?: V;
  // Declared, not defined: as ES2022 class fields each name would be emitted twice, once as a
  // field and once as the constructor's assignment. The constructor sets all of them, in order.
  /** The field kind's tag. */
  declare readonly code: FieldCodeValue;
  /** Canonical declaration text, e.g. `quant(0,8192,0.0625)`; part of the schema hash. */
  declare readonly descriptor: string;
  /** quant, f32, f64: lower bound. */
  declare readonly min: number;
  /** quant, f32, f64: upper bound (inclusive). */
  declare readonly max: number;
  /** quant: step; angle: radians per level; integers: 1. Decoded values are within `step/2`
   *  of the clamped input when the range is a whole number of steps, within `step` otherwise. */
  declare readonly step: number;
  /** Number of representable levels for quant/angle/u8/u16/bool (0 = unbounded 32-bit). */
  declare readonly levels: number;
  /** string: max length in UTF-16 code units; map: max number of keys. */
  declare readonly maxLen: number;
  /** map: the value field (a scalar). */
  declare readonly value: Field | null;

  /** A field of kind `code` with these parameters (unused ones 0 / null); see the properties. */
  constructor(code: FieldCodeValue, descriptor: string, min: number, max: number, step: number, levels: number, maxLen = 0, value: Field | null = null) {
    this.code = code;
    this.descriptor = descriptor;
    this.min = min;
    this.max = max;
    this.step = step;
    this.levels = levels;
    this.maxLen = maxLen;
    this.value = value;
  }

  /** True for fields stored as one quantized integer (everything but string, map and the input-only floats). */
  get scalar(): boolean {
    return this.code < FIELD_STRING;
  }
}

/** A field holding one number or boolean, quantized to an integer on the wire. */
export type ScalarField<V extends number | boolean = number | boolean> = Field<V>;

/** Checks an integer declaration parameter is within min..max. */
export function checkCount(what: string, v: number, max: number, min = 1): void {
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`${what} must be ${min}..${max}, got ${v}`);
}

/**
 * A number in `[min, max]` sent as an integer count of `step`s from `min`. Out-of-range values
 * clamp; NaN becomes `min`.
 */
export function quant(min: number, max: number, step: number): Field<number> {
  const descriptor = `quant(${min},${max},${step})`;
  // The epsilon absorbs (max-min)/step landing a hair under an integer, e.g. 10/0.1, or far
  // from 0 where the subtraction itself rounds (|min| ~ 1e5 costs ~1e-9 of a step). A top
  // level that then overshoots max by a sliver is clamped by dequantize.
  const levels = Math.floor((max - min) / step + 1e-6) + 1;
  // One test, written so that NaN (in any parameter, or as the level count) fails it.
  if (!(min > -Infinity && max > min && max < Infinity && step > 0 && step < Infinity && levels <= 0x7fffffff)) {
    throw new RangeError(`${descriptor}: needs finite min < max, finite step > 0, at most 2^31 levels`);
  }
  return new Field(FIELD_QUANT, descriptor, min, max, step, levels);
}

/** An angle in radians, wrapped to [0, 2π) and sent in `bits` bits (1..16). */
export function quantAngle(bits: number): Field<number> {
  checkCount("quantAngle bits", bits, 16);
  const levels = 1 << bits;
  return new Field(FIELD_ANGLE, `angle(${bits})`, 0, 2 * Math.PI, (2 * Math.PI) / levels, levels);
}

/** An integer 0..255 (rounded, clamped). */
export function u8(): Field<number> {
  return new Field(FIELD_U8, "u8", 0, 255, 1, 256);
}

/** An integer 0..65535 (rounded, clamped). */
export function u16(): Field<number> {
  return new Field(FIELD_U16, "u16", 0, 65535, 1, 65536);
}

/** An integer 0..2^32-1 in 1-5 bytes (rounded, clamped); cheap when small or slowly changing. */
export function varuint(): Field<number> {
  return new Field(FIELD_VARUINT, "varuint", 0, 0xffffffff, 1, 0);
}

/** An integer -2^31..2^31-1 in 1-5 bytes (rounded, clamped). */
export function varint(): Field<number> {
  return new Field(FIELD_VARINT, "varint", -0x80000000, 0x7fffffff, 1, 0);
}

/**
 * A number sent whole as a 32-bit float, for declared inputs only (`defineInput`): a sender
 * clamps it into `[min, max]`, a room refuses NaN, ±Infinity and anything outside. `min` and
 * `max` must be exact 32-bit floats (so the bound a sender clamps to is the one the room checks).
 * Entity types and events take quantized fields instead.
 */
export function f32(min: number, max: number): Field<number> {
  return float(FIELD_F32, "f32", min, max, Math.fround(min) === min && Math.fround(max) === max);
}

/** {@link f32} as a 64-bit float (8 bytes): for values a 32-bit float cannot hold exactly, such as room times in ms. Declared inputs only. */
export function f64(min: number, max: number): Field<number> {
  return float(FIELD_F64, "f64", min, max, true);
}

function float(code: FieldCodeValue, name: string, min: number, max: number, exact: boolean): Field<number> {
  const descriptor = `${name}(${min},${max})`;
  // One test, written so that NaN in either bound fails it.
  if (!(min > -Infinity && max > min && max < Infinity && exact)) throw new RangeError(`${descriptor}: needs finite min < max${exact ? "" : ", both exact 32-bit floats"}`);
  return new Field(code, descriptor, min, max, 0, 0);
}

/** A boolean (one byte). */
export function bool(): Field<boolean> {
  return new Field(FIELD_BOOL, "bool", 0, 1, 1, 2);
}

/**
 * A string of at most `maxLen` UTF-16 code units. Longer values are cut (never inside a
 * surrogate pair); lone surrogates become U+FFFD so the server keeps exactly what clients decode.
 */
export function string(maxLen: number): Field<string> {
  checkCount("string maxLen", maxLen, 65535);
  return new Field(FIELD_STRING, `string(${maxLen})`, 0, 0, 0, 0, maxLen);
}

/**
 * A map from small non-negative integer keys (0..2^31-1) to a scalar value, e.g. a scoreboard
 * of playerId → score. Updates carry only changed and removed keys. Keys that are not such
 * integers are not synced; a map holding more than `maxKeys` keys syncs `maxKeys` of them (keys
 * already synced stay, others wait in insertion order for room).
 */
export function map<V extends number | boolean>(value: Field<V>, maxKeys = 1024): Field<Map<number, V>> {
  if (!value.scalar) throw new TypeError("map values must be a scalar field");
  checkCount("map maxKeys", maxKeys, 65535);
  return new Field(FIELD_MAP, `map(${value.descriptor},${maxKeys})`, 0, 0, 0, 0, maxKeys, value);
}

/**
 * Quantizes a scalar value to the integer the wire carries (int32 representation; varuint
 * values above 2^31-1 wrap to negative and are read back with `>>> 0`). Never returns NaN:
 * NaN and non-numbers map to the field's minimum.
 */
export function quantize(f: Field, v: unknown): number {
  switch (f.code) {
    case FIELD_QUANT: {
      const x = +(v as number);
      if (!(x > f.min)) return 0;
      if (x >= f.max) return f.levels - 1;
      const q = Math.round((x - f.min) / f.step);
      return q >= f.levels ? f.levels - 1 : q;
    }
    case FIELD_ANGLE: {
      const x = +(v as number);
      if (!Number.isFinite(x)) return 0;
      let t = x / (2 * Math.PI);
      t -= Math.floor(t);
      const q = Math.round(t * f.levels);
      return q >= f.levels ? 0 : q;
    }
    case FIELD_BOOL:
      return v ? 1 : 0;
    case FIELD_U8:
    case FIELD_U16:
    case FIELD_VARUINT:
    case FIELD_VARINT: {
      const x = Math.round(+(v as number));
      if (!(x > f.min)) return f.min | 0;
      if (x >= f.max) return f.max | 0;
      return x | 0;
    }
    default:
      throw new TypeError(`field ${f.descriptor} is not a scalar`);
  }
}

/** The value a client sees for quantized integer `q`. */
export function dequantize(f: Field, q: number): number | boolean {
  switch (f.code) {
    case FIELD_QUANT: {
      const x = f.min + q * f.step;
      return x > f.max ? f.max : x;
    }
    case FIELD_ANGLE:
      return q * f.step;
    case FIELD_BOOL:
      return q !== 0;
    case FIELD_VARUINT:
      return q >>> 0;
    default:
      return q;
  }
}

/**
 * Cuts and repairs a string field value so that what the server compares is exactly what the
 * client will decode. Non-strings become their `String()` form (null/undefined become "").
 */
export function normalizeString(f: Field, v: unknown): string {
  let s = typeof v === "string" ? v : v == null ? "" : String(v);
  if (s.length > f.maxLen) {
    let end = f.maxLen;
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--; // do not split a surrogate pair
    s = s.slice(0, end);
  }
  return hasLoneSurrogate(s) ? repairSurrogates(s) : s;
}

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return true;
  }
  return false;
}

function repairSurrogates(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
        continue;
      }
    }
    out += c >= 0xd800 && c <= 0xdfff ? "\ufffd" : s[i];
  }
  return out;
}
