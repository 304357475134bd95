import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryReader, BinaryWriter, DecodeError, PayloadReader, FrameWriter, f32At } from "../src";

describe("f32At", () => {
  it("reads what PayloadReader.f32 reads, at any offset (fast-check against the reader)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 4, maxLength: 64 }), fc.nat(), (bytes, at) => {
        const offset = at % (bytes.length - 3);
        const r = new PayloadReader(bytes.subarray(offset));
        expect(Object.is(f32At(bytes, offset), r.f32())).toBe(true);
      }),
    );
  });
});

describe("FrameWriter.peek", () => {
  it("always shows exactly the bytes written, across resets and growth (fast-check against toBytes)", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 40 }), (chunks) => {
        // A small initial buffer so growth (which drops the cached views) happens mid-sequence.
        const w = new FrameWriter(8);
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
    const w = new FrameWriter(64);
    w.u8(1).u8(2);
    const a = w.peek();
    w.reset().u8(3).u8(4);
    const b = w.peek();
    expect(b).toBe(a);
    expect([...b]).toEqual([3, 4]);
  });
});

/** One write and the value the reader must give back for it. */
type Op =
  | { kind: "u8" | "u16" | "u32" | "i32" | "varuint" | "varint" | "f64"; v: number }
  | { kind: "f32"; v: number }
  | { kind: "string"; v: string }
  | { kind: "bytes"; v: Uint8Array };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("u8" as const), v: fc.integer({ min: 0, max: 0xff }) }),
  fc.record({ kind: fc.constant("u16" as const), v: fc.integer({ min: 0, max: 0xffff }) }),
  fc.record({ kind: fc.constant("u32" as const), v: fc.integer({ min: 0, max: 0xffffffff }) }),
  fc.record({ kind: fc.constant("i32" as const), v: fc.integer({ min: -0x80000000, max: 0x7fffffff }) }),
  fc.record({ kind: fc.constant("varuint" as const), v: fc.integer({ min: 0, max: 0xffffffff }) }),
  fc.record({ kind: fc.constant("varint" as const), v: fc.integer({ min: -0x80000000, max: 0x7fffffff }) }),
  fc.record({ kind: fc.constant("f64" as const), v: fc.double() }),
  fc.record({ kind: fc.constant("f32" as const), v: fc.float() }),
  fc.record({ kind: fc.constant("string" as const), v: fc.string({ unit: "grapheme", maxLength: 200 }) }),
  fc.record({ kind: fc.constant("bytes" as const), v: fc.uint8Array({ maxLength: 40 }) }),
);

describe("FrameWriter and PayloadReader (the lean classes plus their server forms)", () => {
  it("read back every value written, in order, while the writer grows from 1 byte (fast-check)", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const w = new FrameWriter(1);
        for (const o of ops) {
          if (o.kind === "string") w.string(o.v);
          else if (o.kind === "bytes") w.bytes(o.v);
          else w[o.kind](o.v);
        }
        const r = new PayloadReader(w.toBytes());
        for (const o of ops) {
          if (o.kind === "string") expect(r.string(1 << 20)).toBe(o.v);
          else if (o.kind === "bytes") expect(r.bytes(o.v.length)).toEqual(o.v);
          else expect(Object.is(r[o.kind](), o.v)).toBe(true);
        }
        r.expectEnd();
      }),
      { numRuns: 300 },
    );
  });

  it("rejects a varuint over 32 bits and any read past the end", () => {
    expect(() => new BinaryReader(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x10])).varuint()).toThrow(DecodeError);
    expect(new BinaryReader(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f])).varuint()).toBe(0xffffffff);
    expect(() => new BinaryReader(new Uint8Array([0x80, 0x80])).varuint()).toThrow(/past_end 1@2/);
    expect(() => new BinaryReader(new Uint8Array([1, 2, 3]), 1).u32()).toThrow(DecodeError);
    expect(() => new BinaryReader(new Uint8Array([3, 0xff, 0xfe, 0xfd])).string()).toThrow(/utf8/);
    expect(() => new PayloadReader(new Uint8Array([1, 2, 3])).i32()).toThrow(DecodeError);
  });

  it("FrameWriter.string writes exactly what BinaryWriter.string writes, after any prefix (fast-check)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20 }), fc.string({ unit: "binary", maxLength: 300 }), (prefix, text) => {
        const frame = new FrameWriter(1).bytes(prefix).string(text).toBytes();
        const lean = new BinaryWriter(1).bytes(prefix).string(text).toBytes();
        expect(frame).toEqual(lean);
      }),
    );
  });

  it("finiteF32 / finiteF64 give finite values back and refuse NaN and ±Infinity by name", () => {
    for (const v of [0, -1.5, 1e30, NaN, Infinity, -Infinity]) {
      const r = new PayloadReader(new FrameWriter(4).f32(v).f64(v).toBytes());
      if (Number.isFinite(v)) {
        expect(r.finiteF32("dx")).toBe(Math.fround(v));
        expect(r.finiteF64("t")).toBe(v);
      } else {
        expect(() => r.finiteF32("dx")).toThrow(/not_finite dx/);
        expect(() => r.finiteF64("t")).toThrow(/not_finite t/);
      }
    }
  });
});
