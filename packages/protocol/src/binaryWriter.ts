const textEncoder = new TextEncoder();

/** Lengths below this get a cached `peek()` view (frames of a room are mostly far shorter). */
const PEEK_CACHE_LIMIT = 4096;

/**
 * Growable little-endian writer over one reused buffer. `reset()` rewinds without freeing, so a
 * writer kept per room (not per client) makes encoding allocation-free in steady state.
 */
export class BinaryWriter {
  #buf: Uint8Array;
  #view: DataView;
  /**
   * `peek()` views of the buffer by length, made once each: a room sends one frame per client
   * per flush from one writer, and a fresh `subarray` per send was ~1 MB/s of garbage at 300
   * players. Only short lengths are kept, so the cache stays small.
   */
  #peeks: (Uint8Array | undefined)[] = [];
  /** Current write position (bytes written since the last reset). */
  offset = 0;

  constructor(initialCapacity = 1024) {
    this.#buf = new Uint8Array(initialCapacity);
    this.#view = new DataView(this.#buf.buffer);
  }

  /** Empties the writer for reuse (keeps its buffer). */
  reset(): this {
    this.offset = 0;
    return this;
  }

  /**
   * The one capacity check: claims the next `n` bytes and returns where they start. It may
   * replace the buffer, so callers read `#buf` / `#view` only after it returns.
   */
  #claim(n: number): number {
    const at = this.offset;
    const need = at + n;
    if (need > this.#buf.length) {
      let cap = this.#buf.length * 2;
      while (cap < need) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.#buf.subarray(0, at));
      this.#buf = next;
      this.#view = new DataView(next.buffer);
      this.#peeks = [];
    }
    this.offset = need;
    return at;
  }

  /** Writes an unsigned byte. */
  u8(v: number): this {
    const at = this.#claim(1);
    this.#buf[at] = v;
    return this;
  }
  /** Writes a little-endian unsigned 16-bit integer. */
  u16(v: number): this {
    const at = this.#claim(2);
    this.#view.setUint16(at, v, true);
    return this;
  }
  /** Writes a little-endian unsigned 32-bit integer. */
  u32(v: number): this {
    const at = this.#claim(4);
    this.#view.setUint32(at, v, true);
    return this;
  }
  /** Writes a little-endian signed 32-bit integer. */
  i32(v: number): this {
    const at = this.#claim(4);
    this.#view.setInt32(at, v, true);
    return this;
  }
  /** Writes a little-endian 32-bit float. */
  f32(v: number): this {
    const at = this.#claim(4);
    this.#view.setFloat32(at, v, true);
    return this;
  }
  /** Writes a little-endian 64-bit float. */
  f64(v: number): this {
    const at = this.#claim(8);
    this.#view.setFloat64(at, v, true);
    return this;
  }
  /** LEB128 unsigned integer, 0..2^32-1 (1-5 bytes). */
  varuint(v: number): this {
    // Claims the longest form, then gives back what the number did not need.
    let at = this.#claim(5);
    const buf = this.#buf;
    for (v >>>= 0; v >= 0x80; v >>>= 7) buf[at++] = (v & 0x7f) | 0x80;
    buf[at] = v;
    this.offset = at + 1;
    return this;
  }
  /** Zigzag + LEB128 signed integer, -2^31..2^31-1. */
  varint(v: number): this {
    return this.varuint((v << 1) ^ (v >> 31));
  }
  /** Writes raw bytes. */
  bytes(b: Uint8Array): this {
    const at = this.#claim(b.length);
    this.#buf.set(b, at);
    return this;
  }
  /** varuint byte length + UTF-8 bytes. */
  string(s: string): this {
    // Worst case 3 bytes per UTF-16 unit. encodeInto writes in place (no temporary array) past
    // room for the longest length prefix; the text then moves down behind the actual prefix.
    const at = this.#claim(5 + s.length * 3);
    const n = textEncoder.encodeInto(s, this.#buf.subarray(at + 5)).written;
    this.offset = at;
    this.varuint(n);
    const body = this.offset;
    if (body !== at + 5) this.#buf.copyWithin(body, at + 5, at + 5 + n);
    this.offset = body + n;
    return this;
  }

  /**
   * Appends bytes `[start, end)` already written to another writer. A plain loop on purpose:
   * `subarray` + `set` would allocate a view per call on the per-client flush path.
   */
  copyFrom(src: BinaryWriter, start: number, end: number): this {
    let o = this.#claim(end - start);
    const d = this.#buf;
    const s = src.#buf;
    for (let i = start; i < end; i++) d[o++] = s[i]!;
    return this;
  }

  /** Overwrite a byte already written (e.g. a flags byte known only after the body). */
  patchU8(pos: number, v: number): void {
    this.#buf[pos] = v;
  }

  /** A view of the bytes written so far. Valid only until the next write or reset. */
  peek(): Uint8Array {
    const n = this.offset;
    if (n >= PEEK_CACHE_LIMIT) return this.#buf.subarray(0, n);
    return (this.#peeks[n] ??= this.#buf.subarray(0, n));
  }

  /** An exactly-sized copy of the bytes written so far, safe to hand to a socket. */
  toBytes(): Uint8Array {
    return this.#buf.slice(0, this.offset);
  }
}
