/** The one UTF-8 encoder of the SDK: both writers' and the client's byte counters (stateless, so shared). */
export const textEncoder = new TextEncoder();

/**
 * Growable little-endian writer over one reused buffer. `reset()` rewinds without freeing, so a
 * writer kept per sender makes encoding allocation-free in steady state. This is the lean writer
 * a browser page ships (client messages, game inputs); {@link FrameWriter} adds what only a room
 * or a load generator needs.
 */
export class BinaryWriter {
  // Declared, not defined: as an ES2022 class field the name would be emitted twice (see Field).
  /**
   * The backing store, replaced when it grows (read it only after the write that may grow it).
   * Protected, not `#private`, so {@link FrameWriter} can view and copy it.
   */
  protected declare buf: Uint8Array;
  #view: DataView;
  /** Current write position (bytes written since the last reset). */
  offset = 0;

  constructor(initialCapacity = 1024) {
    this.buf = new Uint8Array(initialCapacity);
    this.#view = new DataView(this.buf.buffer);
  }

  /** Empties the writer for reuse (keeps its buffer). */
  reset(): this {
    this.offset = 0;
    return this;
  }

  /**
   * The one capacity check: claims the next `n` bytes and returns where they start. It may
   * replace the buffer, so callers read `buf` / `#view` only after it returns.
   */
  protected claim(n: number): number {
    const at = this.offset;
    const need = at + n;
    if (need > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < need) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, at));
      this.buf = next;
      this.#view = new DataView(next.buffer);
    }
    this.offset = need;
    return at;
  }

  /** Writes an unsigned byte. */
  u8(v: number): this {
    const at = this.claim(1);
    this.buf[at] = v;
    return this;
  }
  /** Writes a little-endian unsigned 16-bit integer. */
  u16(v: number): this {
    const at = this.claim(2);
    this.#view.setUint16(at, v, true);
    return this;
  }
  /** Writes a little-endian unsigned 32-bit integer. */
  u32(v: number): this {
    const at = this.claim(4);
    this.#view.setUint32(at, v, true);
    return this;
  }
  /** Writes a little-endian 32-bit float. */
  f32(v: number): this {
    const at = this.claim(4);
    this.#view.setFloat32(at, v, true);
    return this;
  }
  /** Writes a little-endian 64-bit float. */
  f64(v: number): this {
    const at = this.claim(8);
    this.#view.setFloat64(at, v, true);
    return this;
  }
  /** LEB128 unsigned integer, 0..2^32-1 (1-5 bytes). */
  varuint(v: number): this {
    // Claims the longest form, then gives back what the number did not need.
    let at = this.claim(5);
    const buf = this.buf;
    for (v >>>= 0; v >= 0x80; v >>>= 7) buf[at++] = (v & 0x7f) | 0x80;
    buf[at] = v;
    this.offset = at + 1;
    return this;
  }
  /** Writes raw bytes. */
  bytes(b: Uint8Array): this {
    const at = this.claim(b.length);
    this.buf.set(b, at);
    return this;
  }
  /** varuint byte length + UTF-8 bytes (lone surrogates as U+FFFD). */
  string(s: string): this {
    const utf8 = textEncoder.encode(s);
    return this.varuint(utf8.length).bytes(utf8);
  }

  /** An exactly-sized copy of the bytes written so far, safe to hand to a socket. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.offset);
  }
}
