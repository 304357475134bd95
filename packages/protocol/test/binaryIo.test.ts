import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryReader, BinaryWriter, f32At } from "../src";

describe("f32At", () => {
  it("reads what BinaryReader.f32 reads, at any offset (fast-check against the reader)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 4, maxLength: 64 }), fc.nat(), (bytes, at) => {
        const offset = at % (bytes.length - 3);
        const r = new BinaryReader(bytes.subarray(offset));
        expect(Object.is(f32At(bytes, offset), r.f32())).toBe(true);
      }),
    );
  });
});

describe("BinaryWriter.peek", () => {
  it("always shows exactly the bytes written, across resets and growth (fast-check against toBytes)", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 40 }), (chunks) => {
        // A small initial buffer so growth (which drops the cached views) happens mid-sequence.
        const w = new BinaryWriter(8);
        for (const c of chunks) {
          w.reset();
          for (const b of c) w.u8(b);
          expect(w.peek()).toEqual(c);
          expect(w.peek()).toEqual(w.toBytes());
        }
      }),
    );
  });
  it("hands out one view per length while the buffer stays the same", () => {
    const w = new BinaryWriter(64);
    w.u8(1).u8(2);
    const a = w.peek();
    w.reset().u8(3).u8(4);
    const b = w.peek();
    expect(b).toBe(a);
    expect([...b]).toEqual([3, 4]);
  });
});
