import { BinaryReader, finite } from "./binaryReader";

/** Turns the u32 bits of an f32 into the float, without a view per read. */
const f32Bits = new DataView(new ArrayBuffer(4));

/**
 * The reader of a game's own input and event payloads: {@link BinaryReader} plus the forms no
 * message of the protocol reads (`i32`, `f32`), kept apart so a browser page does not ship them.
 */
export class PayloadReader extends BinaryReader {
  /** Reads a little-endian signed 32-bit integer. */
  i32(): number {
    // The same four bytes read unsigned, then as int32 bits.
    return this.u32() | 0;
  }
  /** Reads a little-endian 32-bit float. */
  f32(): number {
    f32Bits.setUint32(0, this.u32());
    return f32Bits.getFloat32(0);
  }
  /** A finite f32; NaN and ±Infinity are a `bad_value` error. */
  finiteF32(what: string): number {
    return finite(this.f32(), what);
  }
}
