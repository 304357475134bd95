import { BinaryReader, finite } from "./binaryReader";

/**
 * {@link BinaryReader} plus the forms no message of the protocol reads (a game's own payloads
 * may): kept apart so a browser page does not ship them.
 */
export class FrameReader extends BinaryReader {
  /** Reads a little-endian signed 32-bit integer. */
  i32(): number {
    // The same four bytes read unsigned, then as int32 bits.
    return this.u32() | 0;
  }
  /** A finite f32; NaN and ±Infinity are a `bad_value` error. */
  finiteF32(what: string): number {
    return finite(this.f32(), what);
  }
}
