import { BinaryWriter, textEncoder } from "./binaryWriter";

/** Lengths below this get a cached `peek()` view (frames of a room are mostly far shorter). */
const PEEK_CACHE_LIMIT = 4096;

/**
 * The writer of senders that build many frames from one buffer (the room, its bots, the load
 * generator): {@link BinaryWriter} plus views without copies, copies between writers, patched
 * bytes and the wire forms only the room writes. Kept apart so a browser page does not ship
 * them; a sender should use it for all its writers, so its call sites see one class.
 */
export class FrameWriter extends BinaryWriter {
  /**
   * `peek()` views of `#peeksOf` by length, made once each: a room sends one frame per client
   * per flush from one writer, and a fresh `subarray` per send was ~1 MB/s of garbage at 300
   * players. Only short lengths are kept, so the cache stays small; growth replaces the buffer
   * and so empties the cache.
   */
  #peeks: (Uint8Array | undefined)[] = [];
  #peeksOf: Uint8Array | null = null;

  /** Writes a little-endian signed 32-bit integer. */
  i32(v: number): this {
    // The same four bytes as the unsigned value with these bits.
    return this.u32(v >>> 0);
  }
  /** Zigzag + LEB128 signed integer, -2^31..2^31-1. */
  varint(v: number): this {
    return this.varuint((v << 1) ^ (v >> 31));
  }

  /**
   * What {@link BinaryWriter.string} writes, without the encoded copy: worst case 3 bytes per
   * UTF-16 unit, so `encodeInto` writes in place past room for the longest length prefix and the
   * text then moves down behind the actual prefix.
   */
  override string(s: string): this {
    const at = this.claim(5 + s.length * 3);
    const n = textEncoder.encodeInto(s, this.buf.subarray(at + 5)).written;
    this.offset = at;
    this.varuint(n);
    const body = this.offset;
    if (body !== at + 5) this.buf.copyWithin(body, at + 5, at + 5 + n);
    this.offset = body + n;
    return this;
  }

  /**
   * Appends bytes `[start, end)` already written to another writer. A plain loop on purpose:
   * `subarray` + `set` would allocate a view per call on the per-client flush path.
   */
  copyFrom(src: FrameWriter, start: number, end: number): this {
    let o = this.claim(end - start);
    const d = this.buf;
    const s = src.buf;
    for (let i = start; i < end; i++) d[o++] = s[i]!;
    return this;
  }

  /** Overwrite a byte already written (e.g. a flags byte known only after the body). */
  patchU8(pos: number, v: number): void {
    this.buf[pos] = v;
  }

  /** A view of the bytes written so far. Valid only until the next write or reset. */
  peek(): Uint8Array {
    const n = this.offset;
    const buf = this.buf;
    if (n >= PEEK_CACHE_LIMIT) return buf.subarray(0, n);
    if (buf !== this.#peeksOf) {
      this.#peeks = [];
      this.#peeksOf = buf;
    }
    return (this.#peeks[n] ??= buf.subarray(0, n));
  }
}
