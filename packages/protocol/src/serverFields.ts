import { BinaryReader } from "./binaryReader";
import { DecodeError } from "./decodeError";

/*
 * One reader per server message serves both dialects: it asks a field source for each field by
 * its JSON key and binary type. A binary frame answers in wire order (a `BinaryReader`: the key
 * only names the field in errors); a JSON message by key, type-checked ({@link JsonFields}). So
 * the binary and the JSON dialect cannot decode a message differently.
 */

/**
 * Where a server message's fields come from: a {@link BinaryReader} (fields in wire order) or a
 * JSON message (fields by their JSON key, type-checked). Every read throws a {@link DecodeError}.
 */
export interface ServerFields {
  /** An unsigned integer of at most 8 bits (binary); a u32 (JSON). */
  u8(key: string): number;
  /** An unsigned integer of at most 16 bits (binary); a u32 (JSON). */
  u16(key: string): number;
  /** An unsigned 32-bit integer. */
  u32(key: string): number;
  /** An unsigned integer of at most 32 bits, as LEB128 in binary. */
  varuint(key: string): number;
  /** A finite number. */
  finiteF64(key: string): number;
  /** A string of at most `maxBytes` (bytes of UTF-8 in binary, UTF-16 units in JSON). */
  string(maxBytes: number, key: string): string;
}

/**
 * A JSON-dialect server message as a field source: each read takes the field under its key and
 * throws a `bad_value` {@link DecodeError} when it is missing or not of the type asked for.
 */
export class JsonFields implements ServerFields {
  /** @param message the parsed message, with any defaults for absent optional fields filled in */
  constructor(readonly message: Readonly<Record<string, unknown>>) {}

  u32(key: string): number {
    const v = this.message[key] as number;
    // Only a u32 (an integer in [0, 2^32)) comes back from `>>> 0` as itself; a number first,
    // since `>>> 0` on an object whose toString is not a function throws a TypeError.
    if (typeof v !== "number" || v >>> 0 !== v) throw new DecodeError("bad_value", `not_u32 ${key}`);
    return v;
  }

  // JSON carries every integer the same way: one check (a u32) for each binary width.
  u8 = this.u32;
  u16 = this.u32;
  varuint = this.u32;

  finiteF64(key: string): number {
    const v = this.message[key];
    if (!Number.isFinite(v)) throw new DecodeError("bad_value", `not_finite ${key}`);
    return v as number;
  }

  string(maxBytes: number, key: string): string {
    const v = this.message[key];
    if (typeof v !== "string" || v.length > maxBytes) throw new DecodeError("bad_value", `not_string ${key}`);
    return v;
  }
}

/** A JSON value field: JSON text (at most `maxBytes`) in a binary frame, the value itself in a JSON message. */
export function jsonField(f: ServerFields, maxBytes: number, key: string): unknown {
  return f instanceof BinaryReader ? JSON.parse(f.string(maxBytes)) : (f as JsonFields).message[key];
}

/** Longest refusal reason a client reads: bytes of UTF-8 in a binary frame, UTF-16 units in JSON. */
export const MAX_REASON_BYTES = 1024;

/**
 * `reason` cut to what every client reads in both dialects ({@link MAX_REASON_BYTES}): a third
 * of it in UTF-16 units, as a unit takes at most 3 bytes of UTF-8. Rooms send every reason
 * through it, so a game's long refusal cannot make its ERROR or REPLY undecodable.
 */
export function clipReason(reason: string): string {
  return reason.length > MAX_REASON_BYTES / 3 ? reason.slice(0, MAX_REASON_BYTES / 3) : reason;
}

/**
 * A refusal's fields after its code (an ERROR's, or a refusing REPLY's): the back-off and the
 * reason. Not the code's name: `errorName(code)` gives it to those who print it, so a page that
 * never does bundles no table of names.
 */
export function readRefusal(f: ServerFields, code: number): { code: number; retryAfterMs: number; reason: string } {
  return { code, retryAfterMs: f.varuint("retryAfterMs"), reason: f.string(MAX_REASON_BYTES, "reason") };
}
