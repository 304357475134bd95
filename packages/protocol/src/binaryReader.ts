import { DecodeError } from "./decodeError";

const textDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Bounds-checked little-endian reader. Every read past the end throws {@link DecodeError}
 * (`truncated`); message decoders catch it at their boundary and return it as a value.
 */
export class BinaryReader {
  private readonly view: DataView;
  /** Read position: the next byte to read. */
  offset: number;
  /** End of the readable range (exclusive). */
  readonly end: number;

  private readonly buf: Uint8Array;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.offset = start;
    this.end = end;
  }

  /** Bytes left to read. */
  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number): void {
    if (this.offset + n > this.end) {
      throw new DecodeError("truncated", `need ${n} bytes at ${this.offset}, have ${this.end - this.offset}`);
    }
  }

  /** Reads an unsigned byte. */
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.offset++);
  }
  /** Reads a little-endian unsigned 16-bit integer. */
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }
  /** Reads a little-endian unsigned 32-bit integer. */
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }
  /** Reads a little-endian signed 32-bit integer. */
  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return v;
  }
  /** Reads a little-endian 32-bit float. */
  f32(): number {
    this.need(4);
    const v = this.view.getFloat32(this.offset, true);
    this.offset += 4;
    return v;
  }
  /** Reads a little-endian 64-bit float. */
  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return v;
  }
  /** A finite f64; NaN and ±Infinity are a `bad_value` error. */
  finiteF64(what: string): number {
    const v = this.f64();
    if (!Number.isFinite(v)) throw new DecodeError("bad_value", `${what} is not finite`);
    return v;
  }
  /** A finite f32; NaN and ±Infinity are a `bad_value` error. */
  finiteF32(what: string): number {
    const v = this.f32();
    if (!Number.isFinite(v)) throw new DecodeError("bad_value", `${what} is not finite`);
    return v;
  }
  /** Reads an unsigned LEB128 integer (at most 32 bits). */
  varuint(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.u8();
      if (i === 4 && b > 0x0f) throw new DecodeError("bad_value", "varuint exceeds 32 bits");
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
    throw new DecodeError("bad_value", "varuint longer than 5 bytes");
  }
  /** Reads a zigzag-encoded signed LEB128 integer. */
  varint(): number {
    const z = this.varuint();
    return (z >>> 1) ^ -(z & 1);
  }
  /** A view (no copy) of the next n bytes. */
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  /** varuint length + UTF-8; `maxBytes` bounds hostile lengths before any allocation. */
  string(maxBytes = 1024): string {
    const n = this.varuint();
    if (n > maxBytes) throw new DecodeError("too_large", `string of ${n} bytes exceeds ${maxBytes}`);
    this.need(n);
    try {
      const s = textDecoder.decode(this.buf.subarray(this.offset, this.offset + n));
      this.offset += n;
      return s;
    } catch {
      throw new DecodeError("bad_value", "string is not valid UTF-8");
    }
  }
  /** Throws `trailing_bytes` unless the whole frame was consumed. */
  expectEnd(): void {
    if (this.offset !== this.end) {
      throw new DecodeError("trailing_bytes", `${this.end - this.offset} unread bytes`);
    }
  }
}

const f32Scratch = new DataView(new ArrayBuffer(4));

/**
 * The little-endian f32 at `offset` of `bytes` (caller checks the bounds), without a reader or
 * a `DataView` per call: for fixed-layout payloads read once per input on a room's hot path.
 */
export function f32At(bytes: Uint8Array, offset: number): number {
  const s = f32Scratch;
  s.setUint8(0, bytes[offset]!);
  s.setUint8(1, bytes[offset + 1]!);
  s.setUint8(2, bytes[offset + 2]!);
  s.setUint8(3, bytes[offset + 3]!);
  return s.getFloat32(0, true);
}
