import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryReader, DecodeError, FrameWriter, Kind, MAX_FRAMES_PER_BUNDLE, beginBundle, decodeServerMessage, frameTime, isBundle, readBundle, writeBundledFrame } from "../src/index";
import { frameBytes } from "./support/frames";
import { mutate, mutation } from "./support/mutations";

/** The naive twin's writer: plain arrays and a textbook LEB128. */
function naiveEncode(frames: readonly Uint8Array[]): Uint8Array {
  const out: number[] = [Kind.Bundle];
  for (const f of frames) {
    let n = f.length;
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n, ...f);
  }
  return Uint8Array.from(out);
}

/** The naive twin's reader: the general BinaryReader, throwing, with the same rules spelled out. */
function naiveRead(bytes: Uint8Array): number[][] | string {
  try {
    const r = new BinaryReader(bytes);
    if (r.u8() !== Kind.Bundle) return "bad_value";
    if (r.remaining === 0) return "truncated";
    const frames: number[][] = [];
    while (r.remaining > 0) {
      if (frames.length === MAX_FRAMES_PER_BUNDLE) return "too_large";
      const len = r.varuint();
      const f = r.bytes(len);
      if (len === 0 || f[0] !== Kind.Frame) return "bad_value";
      frames.push([...f]);
    }
    return frames;
  } catch (e) {
    return e instanceof DecodeError ? e.code : "threw";
  }
}

/** What {@link readBundle} answers, in the twin's terms. */
function read(bytes: Uint8Array): number[][] | string {
  const r = readBundle(bytes);
  return r instanceof DecodeError ? r.code : r.map((f) => [...f]);
}

const frame = fc
  .tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }), fc.option(fc.nat({ max: 1000 }), { nil: undefined }), fc.option(fc.uint8Array({ maxLength: 200 }), { nil: undefined }))
  .map(([tick, time, ack, delta]) => frameBytes(tick, time, ack, undefined, delta));
const frames = fc.array(frame, { minLength: 1, maxLength: 8 });

function encode(list: readonly Uint8Array[], w = new FrameWriter(16)): Uint8Array {
  beginBundle(w.reset());
  for (const f of list) writeBundledFrame(w, f);
  return w.toBytes();
}

describe("BUNDLE", () => {
  it("writes what the naive twin writes, and reads back every frame in order, each decoding as it would alone", () => {
    fc.assert(
      fc.property(frames, (list) => {
        const bytes = encode(list);
        expect([...bytes]).toEqual([...naiveEncode(list)]);
        expect(isBundle(bytes)).toBe(true);
        const back = readBundle(bytes);
        if (back instanceof DecodeError) throw back;
        expect(back.map((f) => [...f])).toEqual(list.map((f) => [...f]));
        for (let i = 0; i < list.length; i++) {
          const alone = decodeServerMessage(list[i]!);
          expect(decodeServerMessage(back[i]!)).toEqual(alone);
          expect(frameTime(back[i]!)).toBe((alone as { time: number }).time);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("agrees with the naive twin on damaged bundles: the same frames, or the same refusal", () => {
    const hostile = fc.tuple(frames, fc.array(mutation, { maxLength: 3 })).map(([list, muts]) => muts.reduce((b, m) => (b.length ? mutate(b, m) : b), encode(list)));
    fc.assert(
      fc.property(hostile, (bytes) => {
        expect(read(bytes)).toEqual(naiveRead(bytes));
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses an empty bundle, a non-frame entry, too many frames, and is not a message decodeServerMessage reads", () => {
    expect(read(Uint8Array.of(Kind.Bundle))).toBe("truncated");
    expect(read(Uint8Array.of(Kind.Bundle, 0))).toBe("bad_value");
    expect(read(Uint8Array.of(Kind.Bundle, 2, Kind.Pong, 0))).toBe("bad_value");
    expect(read(Uint8Array.of(Kind.Frame, 0, 0, 0))).toBe("bad_value");
    const one = frameBytes(1, 2);
    expect(read(encode(Array.from({ length: MAX_FRAMES_PER_BUNDLE }, () => one)))).toHaveLength(MAX_FRAMES_PER_BUNDLE);
    expect(read(encode(Array.from({ length: MAX_FRAMES_PER_BUNDLE + 1 }, () => one)))).toBe("too_large");
    expect(frameTime(Uint8Array.of(Kind.Frame, 0, 0x80))).toBe(-1);
    expect(frameTime(Uint8Array.of(Kind.Pong, 0, 1, 2))).toBe(-1);
    const m = decodeServerMessage(encode([one]));
    expect(m instanceof DecodeError && m.code).toBe("unknown_kind");
  });
});
