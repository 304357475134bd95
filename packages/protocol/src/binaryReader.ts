import { DecodeError } from "./decodeError";

// ignoreBOM: true keeps a leading U+FEFF in the decoded string (false would strip it), so a
// string reads back exactly as the writer's TextEncoder wrote it: a field value or a player name
// starting with U+FEFF must not differ between the server and its clients.
const textDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Bounds-checked little-endian reader. Every read past the end throws {@link DecodeError}
 * (`truncated`); message decoders catch it at their boundary and return it as a value. This is
 * the reader a browser page ships; {@link PayloadReader} adds forms no message of the protocol uses.
 */
export class BinaryReader {
  // Declared, not defined: the constructor sets both (see Field for why).
  /** Read position: the next byte to read. */
  declare offset: number;
  /** End of the readable range (exclusive). */
  declare readonly end: number;
  readonly #buf: Uint8Array;
  readonly #view: DataView;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.#buf = buf;
    this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.offset = start;
    this.end = end;
  }

  /** Bytes left to read. */
  get remaining(): number {
    return this.end - this.offset;
  }

  /** The one bounds check: claims the next `n` bytes and returns where they start. */
  #take(n: number): number {
    const at = this.offset;
    if (at + n > this.end) throw new DecodeError("truncated", `past_end ${n}@${at}`);
    this.offset = at + n;
    return at;
  }

  /** Reads an unsigned byte. */
  u8(): number {
    return this.#buf[this.#take(1)]!;
  }
  /** Reads a little-endian unsigned 16-bit integer. */
  u16(): number {
    return this.#view.getUint16(this.#take(2), true);
  }
  /** Reads a little-endian unsigned 32-bit integer. */
  u32(): number {
    return this.#view.getUint32(this.#take(4), true);
  }
  /** Reads a little-endian 64-bit float. */
  f64(): number {
    return this.#view.getFloat64(this.#take(8), true);
  }
  /** A finite f64; NaN and ±Infinity are a `bad_value` error. */
  finiteF64(what: string): number {
    return finite(this.f64(), what);
  }
  /** Reads an unsigned LEB128 integer (at most 32 bits, so at most 5 bytes). */
  varuint(): number {
    let result = 0;
    // Ends within 5 bytes: the fifth byte (bits 28..31) either fits in 4 bits, ending the
    // number, or is rejected.
    for (let shift = 0; ; shift += 7) {
      const b = this.u8();
      if (shift === 28 && b > 0x0f) throw new DecodeError("bad_value", "varuint_32");
      result |= (b & 0x7f) << shift;
      if (b < 0x80) return result >>> 0;
    }
  }
  /** Reads a zigzag-encoded signed LEB128 integer. */
  varint(): number {
    const z = this.varuint();
    return (z >>> 1) ^ -(z & 1);
  }
  /** A view (no copy) of the next n bytes. */
  bytes(n: number): Uint8Array {
    const at = this.#take(n);
    return this.#buf.subarray(at, at + n);
  }
  /** varuint length + UTF-8; `maxBytes` bounds hostile lengths before any allocation. */
  string(maxBytes = 1024): string {
    const n = this.varuint();
    if (n > maxBytes) throw new DecodeError("too_large", `long_string ${n}>${maxBytes}`);
    const utf8 = this.bytes(n);
    try {
      return textDecoder.decode(utf8);
    } catch {
      throw new DecodeError("bad_value", "utf8");
    }
  }
  /** Throws `trailing_bytes` unless the whole frame was consumed. */
  expectEnd(): void {
    if (this.offset !== this.end) throw new DecodeError("trailing_bytes", `unread ${this.end - this.offset}`);
  }
}

/** `v` if finite, else a `bad_value` error naming `what`. */
export function finite(v: number, what: string): number {
  if (!Number.isFinite(v)) throw new DecodeError("bad_value", `not_finite ${what}`);
  return v;
}

/** Pure: a page that never reads an f32 this way bundles no scratch view. */
const f32Scratch = /* @__PURE__ */ new DataView(/* @__PURE__ */ new ArrayBuffer(4));

/**
 * The little-endian f32 at `offset` of `bytes` (caller checks the bounds), without a reader or
 * a `DataView` per call: for fixed-layout payloads read once per input on a room's hot path.
 */
export function f32At(bytes: Uint8Array, offset: number): number {
  for (let i = 0; i < 4; i++) f32Scratch.setUint8(i, bytes[offset + i]!);
  return f32Scratch.getFloat32(0, true);
}
