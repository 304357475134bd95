import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryReader,
  BinaryWriter,
  DecodeError,
  InputFrameReader,
  Kind,
  MAX_CLIENT_FRAME_BYTES,
  MAX_INPUTS_PER_FRAME,
  MAX_INPUT_PAYLOAD_BYTES,
  encodeInputs,
  type InputEntry,
} from "../src/index";

/** The straightforward twin: the general reader, one bounds-checked read at a time. */
function naiveInputFrame(bytes: Uint8Array): InputEntry[] | DecodeError {
  if (bytes.length > MAX_CLIENT_FRAME_BYTES) return new DecodeError("too_large", "frame");
  try {
    const r = new BinaryReader(bytes);
    if (r.u8() !== Kind.Input) return new DecodeError("bad_value", "kind");
    const n = r.u8();
    if (n === 0 || n > MAX_INPUTS_PER_FRAME) return new DecodeError("bad_value", "count");
    const out: InputEntry[] = [];
    for (let i = 0; i < n; i++) {
      const seq = r.varuint();
      const len = r.varuint();
      if (len > MAX_INPUT_PAYLOAD_BYTES) return new DecodeError("too_large", "payload");
      out.push({ seq, payload: r.bytes(len) });
    }
    r.expectEnd();
    return out;
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
}

function readAll(reader: InputFrameReader, bytes: Uint8Array): InputEntry[] | DecodeError {
  const err = reader.read(bytes);
  if (err) return err;
  return reader.entries.slice(0, reader.count).map((e) => ({ seq: e.seq, payload: Uint8Array.from(e.payload) }));
}

const entry = fc.record({ seq: fc.nat({ max: 0xffffffff }), payload: fc.uint8Array({ maxLength: 40 }) });

/** Valid frames, then mutated: truncated, extended, a byte flipped, the count changed. */
const hostileFrame = fc
  .tuple(fc.array(entry, { minLength: 1, maxLength: MAX_INPUTS_PER_FRAME }), fc.nat(), fc.integer({ min: 0, max: 4 }), fc.uint8Array({ maxLength: 8 }), fc.nat({ max: 255 }))
  .map(([inputs, where, how, extra, byte]) => {
    const bytes = Uint8Array.from(encodeInputs(new BinaryWriter(64), inputs).toBytes());
    const at = where % bytes.length;
    switch (how) {
      case 0:
        return bytes;
      case 1:
        return bytes.subarray(0, at);
      case 2:
        return Uint8Array.from([...bytes, ...extra]);
      case 3:
        bytes[Math.max(1, at)] = byte;
        return bytes;
      default:
        bytes[1] = byte;
        return bytes;
    }
  });

describe("InputFrameReader", () => {
  it("reads back what encodeInputs wrote, reusing its entries", () => {
    const reader = new InputFrameReader();
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: MAX_INPUTS_PER_FRAME }), (inputs) => {
        const got = readAll(reader, encodeInputs(new BinaryWriter(64), inputs).toBytes());
        expect(got).toEqual(inputs);
      }),
    );
  });

  it("agrees with the naive twin on any frame, hostile or not: same entries or the same error code", () => {
    const reader = new InputFrameReader();
    fc.assert(
      fc.property(fc.oneof(hostileFrame, fc.uint8Array({ maxLength: 64 }).map((b) => Uint8Array.from([Kind.Input, ...b]))), (bytes) => {
        const fast = readAll(reader, bytes);
        const naive = naiveInputFrame(bytes);
        if (naive instanceof DecodeError) {
          expect(fast).toBeInstanceOf(DecodeError);
          expect((fast as DecodeError).code).toBe(naive.code);
          expect(reader.count).toBe(0);
        } else {
          expect(fast).toEqual(naive.map((e) => ({ seq: e.seq, payload: Uint8Array.from(e.payload) })));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses a frame over the size limit before reading it", () => {
    const big = new Uint8Array(MAX_CLIENT_FRAME_BYTES + 1);
    big[0] = Kind.Input;
    big[1] = 1;
    const err = new InputFrameReader().read(big);
    expect(err?.code).toBe("too_large");
  });
});
