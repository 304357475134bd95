import { DecodeError } from "./decodeError";

/** varuint read failures, as negative results so a hot path never throws. */
const TRUNCATED = -1;
const OVER_32_BITS = -2;

/**
 * The read position of an allocation-free frame reader and its one varuint rule, the same as
 * `BinaryReader.varuint` (at most 32 bits, so at most 5 bytes) but returning failures as
 * {@link TRUNCATED} or {@link OVER_32_BITS} instead of throwing: the readers of the two messages
 * that arrive tens of times per second per player (INPUT in a room, FRAME in a load generator)
 * build no error unless a frame is malformed.
 */
export class VaruintCursor {
  /** Read position: the next byte to read. */
  at = 0;

  /** Reads a varuint at {@link at} and moves past it; a negative result is an error code. */
  varuint(b: Uint8Array): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      if (this.at >= b.length) return TRUNCATED;
      const x = b[this.at++]!;
      if (i === 4 && x > 0x0f) return OVER_32_BITS;
      result |= (x & 0x7f) << shift;
      if ((x & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
    // Unreachable: the fifth byte either ends the number or is refused above.
    return OVER_32_BITS;
  }
}

/** The {@link DecodeError} for a negative {@link VaruintCursor.varuint} result read up to `at`. */
export function varuintError(code: number, at: number): DecodeError {
  return code === TRUNCATED ? new DecodeError("truncated", `varuint runs past the end at ${at}`) : new DecodeError("bad_value", "varuint exceeds 32 bits");
}
