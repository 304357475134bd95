import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryReader,
  FrameWriter,
  DecodeError,
  type EntityRecord,
  type Field,
  FieldCode,
  bool,
  defineSchema,
  dequantize,
  map,
  normalizeString,
  quant,
  quantAngle,
  quantize,
  readScalarDelta,
  readScalarFull,
  readStringField,
  string,
  u16,
  u8,
  varint,
  varuint,
  writeScalarDelta,
  writeScalarFull,
} from "../src/index";

const anyNumber = fc.oneof(
  fc.double(),
  fc.integer({ min: -0x80000000, max: 0xffffffff }),
  fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, 0.5, -0.5, 255.5, 65535.5),
);

/** A quant field whose range is a whole number of steps (error ≤ step/2) or not (≤ step). */
const quantField = fc
  .tuple(
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.double({ min: 1e-3, max: 1e5, noNaN: true }),
    fc.integer({ min: 1, max: 1 << 20 }),
    fc.boolean(),
  )
  .map(([min, step, n, whole]) => {
    const max = whole ? min + step * n : min + step * (n + 0.37);
    return quant(min, max, step);
  });

const scalarField: fc.Arbitrary<Field> = fc.oneof(
  quantField,
  fc.integer({ min: 1, max: 16 }).map((b) => quantAngle(b)),
  fc.constant(u8()),
  fc.constant(u16()),
  fc.constant(varuint()),
  fc.constant(varint()),
  fc.constant(bool()),
);

function inRange(f: Field, q: number): boolean {
  switch (f.code) {
    case FieldCode.VarUint:
    case FieldCode.VarInt:
      return Number.isInteger(q) && q >= -0x80000000 && q <= 0x7fffffff;
    default:
      return Number.isInteger(q) && q >= 0 && q < f.levels;
  }
}

function roundTripFull(f: Field, q: number): number {
  const w = new FrameWriter(4);
  writeScalarFull(w, f, q);
  const r = new BinaryReader(w.toBytes());
  const back = readScalarFull(r, f);
  r.expectEnd();
  return back;
}

describe("scalar fields", () => {
  it("quantize never yields NaN and always yields a representable integer", () => {
    fc.assert(
      fc.property(scalarField, anyNumber, (f, v) => {
        const q = quantize(f, v);
        expect(inRange(f, q)).toBe(true);
        const d = dequantize(f, q);
        if (typeof d === "number") expect(Number.isNaN(d)).toBe(false);
      }),
    );
  });

  it("decode(encode(x)) == quantize(x), whole and as a difference from any base", () => {
    fc.assert(
      fc.property(scalarField, anyNumber, anyNumber, (f, v, b) => {
        const q = quantize(f, v);
        const base = quantize(f, b);
        expect(roundTripFull(f, q)).toBe(q);
        const w = new FrameWriter(4);
        writeScalarDelta(w, f, q, base);
        const r = new BinaryReader(w.toBytes());
        expect(readScalarDelta(r, f, base)).toBe(q);
        r.expectEnd();
      }),
    );
  });

  it("quant decodes within step/2 (whole range) or step of the clamped value; NaN is min", () => {
    fc.assert(
      fc.property(quantField, fc.double({ noNaN: true }), (f, v) => {
        const clamped = Math.min(Math.max(v, f.min), f.max);
        const d = dequantize(f, roundTripFull(f, quantize(f, v))) as number;
        const whole = Math.abs((f.max - f.min) / f.step - Math.round((f.max - f.min) / f.step)) < 1e-6;
        const tol = (whole ? f.step / 2 : f.step) * (1 + 1e-9) + Math.abs(clamped) * 1e-12;
        expect(Math.abs(d - clamped)).toBeLessThanOrEqual(tol);
        expect(d).toBeGreaterThanOrEqual(f.min);
        expect(d).toBeLessThanOrEqual(f.max);
      }),
    );
    // Whole ranges far from 0 keep their top level although (max-min)/step rounds below n.
    for (const [min, step, n] of [
      [-32768.001000000004, 0.001, 1],
      [524287.9999779485, 0.031549738083718845, 8],
    ] as const) {
      const g = quant(min, min + step * n, step);
      expect(g.levels).toBe(n + 1);
      expect(Math.abs((dequantize(g, quantize(g, g.max)) as number) - g.max)).toBeLessThanOrEqual(step / 2);
    }
    const f = quant(0, 8192, 1 / 16);
    expect(dequantize(f, quantize(f, NaN))).toBe(0);
    expect(dequantize(f, quantize(f, 1e9))).toBe(8192);
    expect(dequantize(f, quantize(f, -5))).toBe(0);
    expect(dequantize(f, quantize(f, 100.03))).toBe(100);
  });

  it("angles decode within half a step, modulo a turn", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.double({ min: -1e4, max: 1e4, noNaN: true }), (bits, a) => {
        const f = quantAngle(bits);
        const d = dequantize(f, roundTripFull(f, quantize(f, a))) as number;
        const TAU = 2 * Math.PI;
        let diff = (((d - a) % TAU) + TAU) % TAU;
        if (diff > Math.PI) diff = TAU - diff;
        expect(diff).toBeLessThanOrEqual(f.step / 2 + 1e-9);
      }),
    );
  });

  it("integers round and clamp; booleans are exact", () => {
    fc.assert(
      fc.property(fc.double({ min: -1e10, max: 1e10, noNaN: true }), (v) => {
        const clamp = (lo: number, hi: number) => Math.min(Math.max(Math.round(v), lo), hi);
        expect(dequantize(u8(), roundTripFull(u8(), quantize(u8(), v)))).toBe(clamp(0, 255));
        expect(dequantize(u16(), roundTripFull(u16(), quantize(u16(), v)))).toBe(clamp(0, 65535));
        expect(dequantize(varuint(), roundTripFull(varuint(), quantize(varuint(), v)))).toBe(clamp(0, 0xffffffff));
        expect(dequantize(varint(), roundTripFull(varint(), quantize(varint(), v)))).toBe(clamp(-0x80000000, 0x7fffffff) + 0);
      }),
    );
    expect(dequantize(bool(), roundTripFull(bool(), quantize(bool(), true)))).toBe(true);
    expect(dequantize(bool(), roundTripFull(bool(), quantize(bool(), false)))).toBe(false);
  });

  it("reads any bytes as a level the field can hold, or a DecodeError (fast-check, whole and as a difference)", () => {
    fc.assert(
      fc.property(scalarField, fc.uint8Array({ maxLength: 6 }), anyNumber, (f, bytes, b) => {
        const base = quantize(f, b);
        for (const read of [() => readScalarFull(new BinaryReader(bytes), f), () => readScalarDelta(new BinaryReader(bytes), f, base)]) {
          let q: number;
          try {
            q = read();
          } catch (e) {
            expect(e).toBeInstanceOf(DecodeError);
            continue;
          }
          expect(inRange(f, q)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("rejects out-of-range levels on decode with DecodeError", () => {
    const f = quant(0, 10, 1); // 11 levels
    const w = new FrameWriter();
    w.varuint(11);
    expect(() => readScalarFull(new BinaryReader(w.toBytes()), f)).toThrow(DecodeError);
    expect(() => readScalarFull(new BinaryReader(new Uint8Array([2])), bool())).toThrow(DecodeError);
    const d = new FrameWriter().varint(-1).toBytes();
    expect(() => readScalarDelta(new BinaryReader(d), f, 0)).toThrow(DecodeError);
  });

  it("rejects malformed declarations", () => {
    expect(() => quant(5, 5, 1)).toThrow();
    expect(() => quant(0, 10, 0)).toThrow();
    expect(() => quant(0, NaN, 1)).toThrow();
    expect(() => quant(0, 1e12, 1e-3)).toThrow(/quant\(0,1000000000000,0.001\): .*2\^31 levels/);
    expect(() => quant(0, 10, Infinity)).toThrow(RangeError);
    expect(() => quant(-Infinity, 10, 1)).toThrow(RangeError);
    expect(quant(0, 10, 20).levels).toBe(1);
    expect(() => quantAngle(17)).toThrow();
    expect(() => string(0)).toThrow();
    expect(() => map(string(4) as unknown as Field<number>)).toThrow();
  });
});

describe("string fields", () => {
  it("normalizes to at most maxLen well-formed units that round-trip exactly", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), fc.string({ unit: "binary", maxLength: 40 }), (maxLen, raw) => {
        const f = string(maxLen);
        const s = normalizeString(f, raw);
        expect(s.length).toBeLessThanOrEqual(maxLen);
        expect(raw.startsWith(s) || s.includes("\ufffd")).toBe(true);
        const w = new FrameWriter(4);
        w.string(s);
        const r = new BinaryReader(w.toBytes());
        expect(readStringField(r, f)).toBe(s);
      }),
    );
  });

  it("never splits a surrogate pair and repairs lone surrogates", () => {
    const f = string(3);
    expect(normalizeString(f, "ab\u{1F600}")).toBe("ab");
    expect(normalizeString(f, "a\ud800b")).toBe("a\ufffdb");
    expect(normalizeString(f, 42)).toBe("42");
    expect(normalizeString(f, undefined)).toBe("");
  });

  it("rejects a string longer than declared", () => {
    const w = new FrameWriter();
    w.string("abcd");
    expect(() => readStringField(new BinaryReader(w.toBytes()), string(3))).toThrow(DecodeError);
  });
});

describe("schema", () => {
  const decl = () => ({
    player: { x: quant(0, 8192, 1 / 16), y: quant(0, 8192, 1 / 16), r: quant(0, 2048, 1 / 8), name: string(16), score: varuint() },
    orb: { x: quant(0, 8192, 1 / 16), y: quant(0, 8192, 1 / 16), color: u8() },
  });

  it("has a stable hash: same declaration, same hash; pinned so accidental changes show", () => {
    const a = defineSchema(decl());
    const b = defineSchema(decl());
    expect(a.hash).toBe(b.hash);
    expect(a.hash).toBe(3869772673);
    // Independent FNV-1a over the canonical declaration text.
    const text =
      "tikron-schema-1|player{x:quant(0,8192,0.0625),y:quant(0,8192,0.0625),r:quant(0,2048,0.125),name:string(16),score:varuint}" +
      "|orb{x:quant(0,8192,0.0625),y:quant(0,8192,0.0625),color:u8}";
    let h = 0x811c9dc5;
    for (const ch of text) h = Number((BigInt(h ^ ch.charCodeAt(0)) * 0x01000193n) & 0xffffffffn);
    expect(a.hash).toBe(h);
  });

  it("changes the hash when any type, field, order or parameter changes", () => {
    const base = defineSchema(decl()).hash;
    const d1 = decl();
    const variants = [
      { ...d1, player: { ...d1.player, score: varint() } },
      { ...d1, orb: { ...d1.orb, color: u16() } },
      { orb: d1.orb, player: d1.player },
      { ...d1, player: { ...d1.player, name: string(17) } },
      { ...d1, orb: { y: d1.orb.y, x: d1.orb.x, color: d1.orb.color } },
      { ...d1, pellet: { x: u8() } },
    ];
    const hashes = variants.map((v) => defineSchema(v).hash);
    for (const h of hashes) expect(h).not.toBe(base);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it("resolves types and masks", () => {
    const s = defineSchema({ ...decl(), board: { scores: map(varuint()) } });
    expect(s.types.map((t) => [t.name, t.index, t.fields.length])).toEqual([["player", 0, 5], ["orb", 1, 3], ["board", 2, 1]]);
    expect(s.types[0]!.allMask).toBe(0b11111);
    // Inferred record types: this must typecheck.
    const rec: EntityRecord<typeof s.decl.player> = { x: 1, y: 2, r: 3, name: "n", score: 4 };
    const board: EntityRecord<typeof s.decl.board> = { scores: new Map([[1, 2]]) };
    expect(rec.name).toBe("n");
    expect(board.scores.get(1)).toBe(2);
  });

  it("rejects too many fields and reserved names", () => {
    const many: Record<string, Field> = {};
    for (let i = 0; i < 32; i++) many[`f${i}`] = u8();
    expect(defineSchema({ t: many, empty: {} }).types[0]!.allMask).toBe(-1);
    many.f32 = u8();
    expect(() => defineSchema({ t: many })).toThrow(/type t field count must be 0..32, got 33/);
    expect(() => defineSchema({})).toThrow(/schema entity type count must be 1..256, got 0/);
    expect(() => defineSchema({ t: JSON.parse('{"__proto__": 1}') })).toThrow();
  });
});
