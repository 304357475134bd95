import type { BinaryReader } from "../binaryReader";
import type { BinaryWriter } from "../binaryWriter";
import type { FrameWriter } from "../frameWriter";
import { DecodeError } from "../decodeError";
import type { Field } from "./field";
import { FIELD_ANGLE, FIELD_BOOL, FIELD_QUANT, FIELD_U16, FIELD_U8, FIELD_VARINT, FIELD_VARUINT } from "../wireCodes";

/**
 * Writes a scalar's quantized value on its own (entity enter, map values). Fixed-width kinds
 * keep fixed width; the rest are LEB128.
 */
export function writeScalarFull(w: FrameWriter, f: Field, q: number): void {
  switch (f.code) {
    case FIELD_U8:
    case FIELD_BOOL:
      w.u8(q);
      return;
    case FIELD_U16:
      w.u16(q);
      return;
    case FIELD_ANGLE:
      if (f.levels <= 256) w.u8(q);
      else w.u16(q);
      return;
    case FIELD_VARINT:
      w.varint(q);
      return;
    default:
      // Quant (non-negative level) and VarUint (int32 bits of a u32).
      w.varuint(q);
  }
}

/**
 * Reads what {@link writeScalarFull} wrote, rejecting values the field cannot hold. The
 * fixed-width kinds (u8, bool, u16, angle) take one byte up to 256 levels, else two.
 */
export function readScalarFull(r: BinaryReader, f: Field): number {
  switch (f.code) {
    case FIELD_VARINT:
      return r.varint();
    case FIELD_VARUINT:
      return r.varuint() | 0;
    case FIELD_QUANT:
      return level(r.varuint(), f);
    default:
      return level(f.levels <= 256 ? r.u8() : r.u16(), f);
  }
}

/** `q` if it is one of the field's levels, else a `bad_value` error. */
function level(q: number, f: Field): number {
  if (q < 0 || q >= f.levels) throw new DecodeError("bad_value", `level ${q}/${f.levels}`);
  return q;
}

/**
 * Writes a scalar relative to the value the client already holds (`base`). Quantized
 * positions move a few steps per flush, so the zigzag difference is usually 1-2 bytes where
 * the absolute value would take 3. One-byte kinds are written whole.
 */
export function writeScalarDelta(w: FrameWriter, f: Field, q: number, base: number): void {
  switch (f.code) {
    case FIELD_U8:
    case FIELD_BOOL:
      w.u8(q);
      return;
    case FIELD_ANGLE: {
      // Shortest way round the circle.
      let d = (q - base) & (f.levels - 1);
      if (d >= f.levels >> 1) d -= f.levels;
      w.varint(d);
      return;
    }
    default:
      // int32 wrap-around keeps varuint/varint differences within 32 bits both ways.
      w.varint((q - base) | 0);
  }
}

/**
 * Reads what {@link writeScalarDelta} wrote against the same `base`. Any angle step lands on a
 * level (the circle wraps); integers wrap in 32 bits.
 */
export function readScalarDelta(r: BinaryReader, f: Field, base: number): number {
  switch (f.code) {
    case FIELD_U8:
    case FIELD_BOOL:
      return readScalarFull(r, f);
    case FIELD_ANGLE:
      return (base + r.varint()) & (f.levels - 1);
    case FIELD_VARINT:
    case FIELD_VARUINT:
      return (base + r.varint()) | 0;
    default:
      return level(base + r.varint(), f);
  }
}

/** Reads a string field, enforcing its declared length. */
export function readStringField(r: BinaryReader, f: Field): string {
  const s = r.string(f.maxLen * 3);
  if (s.length > f.maxLen) throw new DecodeError("bad_value", `long_string ${s.length}>${f.maxLen}`);
  return s;
}

/**
 * Map field layout. Full (enter): `varuint n`, then n × (`varuint key`, value). Change
 * (update): `varuint (removedCount << 1 | reset)`, removed keys, `varuint setCount`, set
 * entries. `reset` clears the client's map first (sent when the server no longer remembers
 * which keys the client is missing); removals are then 0.
 */
export function writeMapChangeHeader(w: BinaryWriter, removedCount: number, reset: boolean): void {
  w.varuint(removedCount * 2 + (reset ? 1 : 0));
}

/**
 * Reads a map key (0..2^31-1). Keys are int32-safe so they stay small integers in the
 * client's Map.
 */
export function readMapKey(r: BinaryReader): number {
  const k = r.varuint();
  if (k > 0x7fffffff) throw new DecodeError("bad_value", `map_key ${k}`);
  return k;
}
