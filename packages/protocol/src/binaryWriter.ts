const textEncoder = new TextEncoder();

/** Lengths below this get a cached `peek()` view (frames of a room are mostly far shorter). */
const PEEK_CACHE_LIMIT = 4096;

/**
 * Growable little-endian writer over one reused buffer. `reset()` rewinds without freeing, so a
 * writer kept per room (not per client) makes encoding allocation-free in steady state.
 */
export class BinaryWriter {
  private buf: Uint8Array;
  private view: DataView;
  /**
   * `peek()` views of `buf` by length, made once each: a room sends one frame per client per
   * flush from one writer, and a fresh `subarray` per send was ~1 MB/s of garbage at 300
   * players. Only short lengths are kept, so the cache stays small.
   */
  private peeks: (Uint8Array | undefined)[] = [];
  /** Current write position (bytes written since the last reset). */
  offset = 0;

  constructor(initialCapacity = 1024) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  /** Empties the writer for reuse (keeps its buffer). */
  reset(): this {
    this.offset = 0;
    return this;
  }

  private ensure(extra: number): void {
    const need = this.offset + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.offset));
    this.buf = next;
    this.view = new DataView(next.buffer);
    this.peeks = [];
  }

  /** Writes an unsigned byte. */
  u8(v: number): this {
    this.ensure(1);
    this.buf[this.offset++] = v;
    return this;
  }
  /** Writes a little-endian unsigned 16-bit integer. */
  u16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.offset, v, true);
    this.offset += 2;
    return this;
  }
  /** Writes a little-endian unsigned 32-bit integer. */
  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.offset, v, true);
    this.offset += 4;
    return this;
  }
  /** Writes a little-endian signed 32-bit integer. */
  i32(v: number): this {
    this.ensure(4);
    this.view.setInt32(this.offset, v, true);
    this.offset += 4;
    return this;
  }
  /** Writes a little-endian 32-bit float. */
  f32(v: number): this {
    this.ensure(4);
    this.view.setFloat32(this.offset, v, true);
    this.offset += 4;
    return this;
  }
  /** Writes a little-endian 64-bit float. */
  f64(v: number): this {
    this.ensure(8);
    this.view.setFloat64(this.offset, v, true);
    this.offset += 8;
    return this;
  }
  /** LEB128 unsigned integer, 0..2^32-1 (1-5 bytes). */
  varuint(v: number): this {
    this.ensure(5);
    v = v >>> 0;
    while (v >= 0x80) {
      this.buf[this.offset++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.offset++] = v;
    return this;
  }
  /** Zigzag + LEB128 signed integer, -2^31..2^31-1. */
  varint(v: number): this {
    return this.varuint(((v << 1) ^ (v >> 31)) >>> 0);
  }
  /** Writes raw bytes. */
  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.offset);
    this.offset += b.length;
    return this;
  }
  /** varuint byte length + UTF-8 bytes. */
  string(s: string): this {
    // Worst case 3 bytes per UTF-16 unit; encodeInto writes in place, no temporary array.
    this.ensure(5 + s.length * 3);
    const lenPos = this.offset;
    // Reserve 5 bytes for the length, then compact if the length is shorter.
    const res = textEncoder.encodeInto(s, this.buf.subarray(lenPos + 5));
    const n = res.written;
    const lenBytes = n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
    if (lenBytes !== 5) this.buf.copyWithin(lenPos + lenBytes, lenPos + 5, lenPos + 5 + n);
    this.varuint(n);
    this.offset = lenPos + lenBytes + n;
    return this;
  }

  /**
   * Appends bytes `[start, end)` already written to another writer. A plain loop on purpose:
   * `subarray` + `set` would allocate a view per call on the per-client flush path.
   */
  copyFrom(src: BinaryWriter, start: number, end: number): this {
    const n = end - start;
    this.ensure(n);
    const d = this.buf;
    const s = src.buf;
    let o = this.offset;
    for (let i = start; i < end; i++) d[o++] = s[i]!;
    this.offset = o;
    return this;
  }

  /** Overwrite a byte already written (e.g. a flags byte known only after the body). */
  patchU8(pos: number, v: number): void {
    this.buf[pos] = v;
  }

  /** A view of the bytes written so far. Valid only until the next write or reset. */
  peek(): Uint8Array {
    const n = this.offset;
    if (n >= PEEK_CACHE_LIMIT) return this.buf.subarray(0, n);
    let v = this.peeks[n];
    if (v === undefined) v = this.peeks[n] = this.buf.subarray(0, n);
    return v;
  }

  /** An exactly-sized copy of the bytes written so far, safe to hand to a socket. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.offset);
  }
}
