import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryWriter,
  FieldCode,
  bool,
  checkInputSchema,
  defineInput,
  defineInputs,
  defineSchema,
  dequantize,
  f32,
  f64,
  inputMaxBytes,
  isRejection,
  map,
  quant,
  quantAngle,
  quantize,
  quantizeInput,
  readInput,
  string,
  u16,
  u8,
  varint,
  varuint,
  type Field,
  type InputDecl,
  type InputSchema,
} from "../src";
import { mutate, mutation } from "./support/mutations";

/*
 * Declared inputs against a naive twin: a byte-by-byte writer and reader built from the wire
 * format as docs/protocol.md states it (tag, then each field whole, little-endian, quantized
 * numbers in the width their level count gives). The SDK's writer must produce the twin's bytes,
 * the room's reader must give back what the twin reads (and what the client's `quantizeInput`
 * predicts), and anything a writer could not have produced must be refused with the field named.
 */

/** A bound an f32 holds exactly (a declaration refuses any other). */
const f32Bound = fc.integer({ min: -1e6, max: 1e6 }).map((n) => Math.fround(n / 8));

const field: fc.Arbitrary<Field> = fc.oneof(
  fc
    .tuple(fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: 1, max: 70000 }), fc.constantFrom(1, 0.5, 1 / 16, 0.1, 3, 1 / 127))
    .map(([min, span, step]) => quant(min, min + span * step, step)),
  fc.integer({ min: 1, max: 16 }).map((b) => quantAngle(b)),
  fc.constantFrom(u8(), u16(), varuint(), varint(), bool()),
  fc.tuple(f32Bound, f32Bound).filter(([a, b]) => a !== b).map(([a, b]) => f32(Math.min(a, b), Math.max(a, b))),
  fc.tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 1, max: 1e9 }), fc.constantFrom(1, 1 / 1024, 1e3)).map(([min, span, unit]) => f64(min * unit, (min + span) * unit)),
);

const FIELD_NAMES = ["a", "b", "c", "d", "e", "f"];
const fieldsArb: fc.Arbitrary<InputDecl> = fc
  .array(field, { maxLength: FIELD_NAMES.length })
  .map((fields) => Object.fromEntries(fields.map((f, i) => [FIELD_NAMES[i], f])) as InputDecl);

/** A declaration: one set of fields (untagged) or up to 5 kinds (tagged). */
const declaration: fc.Arbitrary<InputSchema<Record<string, unknown>>> = fc.oneof(
  fieldsArb.map((d) => defineInput(d) as InputSchema<Record<string, unknown>>),
  fc.array(fieldsArb, { minLength: 1, maxLength: 5 }).map((kinds) => defineInputs(Object.fromEntries(kinds.map((d, k) => [`k${k}`, d]))) as InputSchema<Record<string, unknown>>),
);

/** A finite value for a field, in its range or far out of it (the writer clamps). */
function valueFor(f: Field): fc.Arbitrary<unknown> {
  if (f.code === FieldCode.Bool) return fc.oneof(fc.boolean(), fc.constantFrom(0, 1, "", "x", null));
  const lo = f.code === FieldCode.Angle ? -20 : f.min - (f.max - f.min) / 4 - 1;
  const hi = f.code === FieldCode.Angle ? 20 : f.max + (f.max - f.min) / 4 + 1;
  return fc.oneof(fc.double({ min: lo, max: hi, noNaN: true }), fc.constantFrom(f.min, f.max, 0, -0), fc.integer({ min: -0x80000000, max: 0xffffffff }));
}

/** A declaration and inputs of it. */
const declAndInputs = declaration.chain((inputs) => {
  const input = fc.constantFrom(...inputs.kinds).chain((k) =>
    fc.tuple(...k.fields.map((f) => valueFor(f.field))).map((values): Record<string, unknown> => ({
      ...(inputs.tagged ? { kind: k.name } : {}),
      ...Object.fromEntries(k.fields.map((f, i) => [f.name, values[i]])),
    })),
  );
  return fc.tuple(fc.constant(inputs), fc.array(input, { minLength: 1, maxLength: 8 }));
});

// ---- the naive twin ------------------------------------------------------------------------

const isFloat = (f: Field): boolean => f.code === FieldCode.F32 || f.code === FieldCode.F64;

/** What the wire carries for `v`: a float clamped (an f32 rounded), else the quantized level. */
function naiveWire(f: Field, v: unknown): number {
  if (!isFloat(f)) return quantize(f, v);
  // Within range a float goes as it is (−0 included); outside, the nearer bound.
  const x = (v as number) < f.min ? f.min : (v as number) > f.max ? f.max : (v as number);
  return f.code === FieldCode.F32 ? Math.fround(x) : x;
}

/** Bytes a field takes whole: fixed, or 0 for a varuint. */
function naiveFixed(f: Field): number {
  switch (f.code) {
    case FieldCode.Quant:
      return f.levels <= 256 ? 1 : f.levels > 16384 && f.levels <= 65536 ? 2 : 0;
    case FieldCode.Angle:
      return f.levels <= 256 ? 1 : 2;
    case FieldCode.U8:
    case FieldCode.Bool:
      return 1;
    case FieldCode.U16:
      return 2;
    case FieldCode.F32:
      return 4;
    case FieldCode.F64:
      return 8;
    default:
      return 0;
  }
}

function naiveEncode(inputs: InputSchema<unknown>, input: Record<string, unknown>): number[] {
  const kind = inputs.tagged ? inputs.kinds.find((k) => k.name === input.kind)! : inputs.kinds[0]!;
  const out: number[] = inputs.tagged ? [kind.index] : [];
  for (const { name, field: f } of kind.fields) {
    const q = naiveWire(f, input[name]);
    const n = naiveFixed(f);
    if (f.code === FieldCode.F32 || f.code === FieldCode.F64) {
      const view = new DataView(new ArrayBuffer(n));
      if (n === 4) view.setFloat32(0, q, true);
      else view.setFloat64(0, q, true);
      out.push(...new Uint8Array(view.buffer));
    } else if (n > 0) {
      for (let i = 0; i < n; i++) out.push(Math.floor(q / 256 ** i) % 256);
    } else {
      // LEB128 of the level (varint: zigzag first), as an unsigned 32-bit number.
      let u = f.code === FieldCode.VarInt ? (q >= 0 ? 2 * q : -2 * q - 1) : q >>> 0;
      do {
        const b = u % 128;
        u = Math.floor(u / 128);
        out.push(u > 0 ? b + 128 : b);
      } while (u > 0);
    }
  }
  return out;
}

/** The values the twin reads from bytes it wrote. */
function naiveDecode(inputs: InputSchema<unknown>, bytes: number[]): Record<string, unknown> {
  let at = 0;
  const kind = inputs.tagged ? inputs.kinds[bytes[at++]!]! : inputs.kinds[0]!;
  const out: Record<string, unknown> = inputs.tagged ? { kind: kind.name } : {};
  for (const { name, field: f } of kind.fields) {
    const n = naiveFixed(f);
    if (isFloat(f)) {
      const view = new DataView(Uint8Array.from(bytes.slice(at, at + n)).buffer);
      out[name] = n === 4 ? view.getFloat32(0, true) : view.getFloat64(0, true);
      at += n;
      continue;
    }
    let q = 0;
    if (n > 0) {
      for (let i = 0; i < n; i++) q += bytes[at++]! * 256 ** i;
    } else {
      let scale = 1;
      for (;;) {
        const b = bytes[at++]!;
        q += (b % 128) * scale;
        scale *= 128;
        if (b < 128) break;
      }
      if (f.code === FieldCode.VarInt) q = q % 2 === 0 ? q / 2 : -(q + 1) / 2;
    }
    out[name] = dequantize(f, q);
  }
  return out;
}

describe("declared inputs against their naive twin", () => {
  it("the SDK writes the twin's bytes; the room reads back the twin's values, which quantizeInput predicts", () =>
    fc.assert(
      fc.property(declAndInputs, ([inputs, list]) => {
        const w = new BinaryWriter(4); // small on purpose: exercises growth
        for (const input of list) {
          const bytes = inputs.encode(input, w);
          const twin = naiveEncode(inputs, input);
          expect([...bytes]).toEqual(twin);
          expect(bytes.length).toBeLessThanOrEqual(inputMaxBytes(inputs));
          const read = readInput(inputs, bytes);
          expect(read).toEqual(naiveDecode(inputs, twin));
          expect(read).toEqual(quantizeInput(inputs, input));
        }
      }),
      { numRuns: 600 },
    ));

  it("round trip within the quantization: each value within half a step of the clamped input, floats exact", () =>
    fc.assert(
      fc.property(declAndInputs, ([inputs, list]) => {
        for (const input of list) {
          const read = readInput(inputs, inputs.encode(input, new BinaryWriter()));
          if (isRejection(read)) throw new Error(read.reason);
          const kind = inputs.tagged ? inputs.kinds.find((k) => k.name === input.kind)! : inputs.kinds[0]!;
          for (const { name, field: f } of kind.fields) {
            const sent = input[name];
            const got = read[name];
            if (f.code === FieldCode.Bool) {
              expect(got).toBe(Boolean(sent));
              continue;
            }
            const v = got as number;
            if (f.code === FieldCode.Angle) {
              // Wrapped: within half a step of the angle, the short way round (a huge angle loses
              // what a double cannot hold of its fraction of a turn).
              const d = Math.abs((((sent as number) - v) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
              expect(Math.min(d, 2 * Math.PI - d)).toBeLessThanOrEqual(f.step / 2 + 1e-9 + Math.abs(sent as number) * 1e-15);
              continue;
            }
            const clamped = (sent as number) < f.min ? f.min : (sent as number) > f.max ? f.max : (sent as number);
            expect(v >= f.min && v <= f.max).toBe(true);
            if (f.code === FieldCode.F64) expect(v).toBe(clamped);
            else if (f.code === FieldCode.F32) expect(v).toBe(Math.fround(clamped));
            // A range that is not a whole number of steps ends short of max: within a step there.
            else expect(Math.abs(v - clamped)).toBeLessThanOrEqual(f.step + Math.abs(clamped) * 1e-12);
          }
        }
      }),
      { numRuns: 500 },
    ));

  it("a value the room read is a fixed point: quantized again, it stays what it is", () =>
    fc.assert(
      fc.property(declAndInputs, ([inputs, list]) => {
        for (const input of list) {
          const once = quantizeInput(inputs, input);
          expect(quantizeInput(inputs, once)).toEqual(once);
        }
      }),
      { numRuns: 300 },
    ));
});

describe("declared inputs refuse what no writer sends", () => {
  /** A declaration with one field of every kind, and a valid input of it. */
  const every = defineInput({ q: quant(-1, 1, 1 / 127), a: quantAngle(10), n: u8(), m: u16(), v: varuint(), z: varint(), b: bool(), x: f32(-2, 2), t: f64(0, 2 ** 32) });
  const good = { q: 0.5, a: 1, n: 7, m: 300, v: 1e6, z: -5, b: true, x: 1.5, t: 12.25 };

  it("the SDK's side: NaN, ±Infinity and non-numbers throw a RangeError naming the field, the writer left as it was", () => {
    for (const name of ["q", "a", "n", "m", "v", "z", "x", "t"]) {
      for (const bad of [NaN, Infinity, -Infinity, undefined, "1"]) {
        const w = new BinaryWriter().u8(9);
        expect(() => every.write(w, { ...good, [name]: bad })).toThrow(new RangeError(`input ${name}: ${String(bad)} is not a finite number`));
        expect(w.offset).toBe(1);
        expect(() => quantizeInput(every, { ...good, [name]: bad })).toThrow(RangeError);
      }
    }
    const kinds = defineInputs({ go: { x: f32(0, 1) } });
    expect(() => kinds.encode({ kind: "go", x: NaN }, new BinaryWriter())).toThrow("input go.x: NaN is not a finite number");
    expect(() => kinds.encode({ kind: "stop" } as never, new BinaryWriter())).toThrow(new TypeError("input kind stop is not declared"));
  });

  it("the room's side: NaN, ±Infinity and out-of-range floats, and levels past a field's range, refused bad_input naming the field", () => {
    const bytes = [...every.encode(good, new BinaryWriter())];
    // Offsets: q 0, a 1-2 (1024 levels: two bytes), n 3, m 4-5, v 6-8 (1e6: three), z 9, b 10, x 11-14, t 15-22.
    const at = (name: string): number => ({ q: 0, a: 1, n: 3, m: 4, v: 6, z: 9, b: 10, x: 11, t: 15 })[name]!;
    const withFloat = (name: "x" | "t", v: number): Uint8Array => {
      const out = Uint8Array.from(bytes);
      const view = new DataView(out.buffer);
      if (name === "x") view.setFloat32(at("x"), v, true);
      else view.setFloat64(at("t"), v, true);
      return out;
    };
    const cases: [Uint8Array, string][] = [
      [withFloat("x", NaN), "input x: NaN is not a finite number"],
      [withFloat("x", Infinity), "input x: Infinity is not a finite number"],
      [withFloat("x", -Infinity), "input x: -Infinity is not a finite number"],
      [withFloat("x", 2.5), "input x: 2.5 is outside -2..2"],
      [withFloat("t", NaN), "input t: NaN is not a finite number"],
      [withFloat("t", -1), "input t: -1 is outside 0..4294967296"],
      [withFloat("t", 2 ** 40), "input t: 1099511627776 is outside 0..4294967296"],
    ];
    const level = (name: string, b: number[]): Uint8Array => Uint8Array.from([...bytes.slice(0, at(name)), ...b, ...bytes.slice(at(name) + b.length)]);
    cases.push([level("q", [255]), "input q: level 255 is past the last of 255 (quant(-1,1,0.007874015748031496))"]);
    cases.push([level("a", [0x00, 0x04]), "input a: level 1024 is past the last of 1024 (angle(10))"]);
    cases.push([level("b", [2]), "input b: level 2 is past the last of 2 (bool)"]);
    for (const [payload, reason] of cases) expect(readInput(every, payload)).toEqual({ rejected: true, code: "bad_input", reason });
    // A varuint longer than 32 bits.
    expect(readInput(defineInput({ v: varuint() }), Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x1f))).toEqual({ rejected: true, code: "bad_input", reason: "input v: varuint over 32 bits" });
    expect(readInput(every, Uint8Array.from(bytes))).toEqual(quantizeInput(every, good));
  });

  it("truncated payloads are refused naming the field they end in; over-long ones say how long", () =>
    fc.assert(
      fc.property(declAndInputs, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 }), ([inputs, list], cut, extra) => {
        const bytes = inputs.encode(list[0]!, new BinaryWriter());
        if (bytes.length > 0) {
          const short = bytes.subarray(0, cut % bytes.length);
          const r = readInput(inputs, short);
          expect(isRejection(r)).toBe(true);
          if (isRejection(r)) expect(r.reason).toMatch(short.length === 0 && inputs.tagged ? /^input: empty \(no kind\)$/ : /^input \S+: truncated$/);
        }
        const long = Uint8Array.from([...bytes, ...extra]);
        expect(readInput(inputs, long)).toEqual({ rejected: true, code: "bad_input", reason: `input: ${long.length} bytes where the declaration reads ${bytes.length}` });
      }),
      { numRuns: 1000 },
    ));

  it("mutated payloads are refused with a reason, or read as values in range that read the same once rewritten", () =>
    fc.assert(
      fc.property(declAndInputs, fc.array(mutation, { minLength: 1, maxLength: 3 }), ([inputs, list], muts) => {
        let bytes = inputs.encode(list[0]!, new BinaryWriter());
        for (const m of muts) bytes = bytes.length ? mutate(bytes, m) : bytes;
        const r = readInput(inputs, bytes);
        if (isRejection(r)) {
          expect(r.code).toBe("bad_input");
          expect(r.reason).toMatch(/^input[ :]/);
          return;
        }
        expect(readInput(inputs, inputs.encode(r, new BinaryWriter()))).toEqual(r);
      }),
      { numRuns: 2000 },
    ));

  it("random bytes and non-bytes never throw", () =>
    fc.assert(
      fc.property(declaration, fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.anything()), (inputs, payload) => {
        const r = readInput(inputs, payload);
        if (!(payload instanceof Uint8Array)) expect(r).toEqual({ rejected: true, code: "bad_input", reason: "input must be bytes" });
      }),
      { numRuns: 2000 },
    ));
});

describe("declaring inputs", () => {
  it("the room refuses strings, maps, a field called kind, an unnamed kind and payloads that could pass 256 bytes", () => {
    expect(() => checkInputSchema(defineInput({ s: string(8) } as never))).toThrow("input s: string(8) is not an input field");
    expect(() => checkInputSchema(defineInput({ m: map(u8()) } as never))).toThrow(TypeError);
    expect(() => checkInputSchema(defineInputs({ go: { kind: u8() } }))).toThrow("input go: a field may not be called kind");
    expect(() => checkInputSchema(defineInputs({ "": { x: u8() } }))).toThrow("input kinds need names");
    const wide = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`f${i}`, f64(0, 1)]));
    expect(() => checkInputSchema(defineInput(wide))).not.toThrow();
    expect(() => checkInputSchema(defineInputs({ k: wide }))).toThrow(new RangeError("inputs of up to 257 bytes: at most 256"));
    // Untagged, a field may be called kind (nothing else names the kind).
    expect(() => checkInputSchema(defineInput({ kind: u8() }))).not.toThrow();
  });

  it("refuses float bounds it could not check the way a sender clamps", () => {
    expect(() => f32(0, 0.1)).toThrow(RangeError);
    expect(() => f32(1, 1)).toThrow(RangeError);
    expect(() => f64(0, NaN)).toThrow(RangeError);
    expect(() => f64(-Infinity, 0)).toThrow(RangeError);
    expect(f32(-0.5, 0.25).descriptor).toBe("f32(-0.5,0.25)");
  });

  it("take the schema's hash with them: unchanged without inputs, another for other inputs", () => {
    const types = { dot: { x: quant(0, 100, 1), y: quant(0, 100, 1) } };
    const plain = defineSchema(types);
    expect(plain.inputs).toBeNull();
    // Pinned: a schema without inputs keeps the hash clients already agree on.
    expect(plain.hash).toBe(0xaefe80e8);
    const a = defineSchema(types, { inputs: defineInput({ dx: quant(-1, 1, 1 / 127) }) });
    const b = defineSchema(types, { inputs: defineInput({ dx: quant(-1, 1, 1 / 63) }) });
    const c = defineSchema(types, { inputs: defineInputs({ dx: {} }) });
    expect(new Set([plain.hash, a.hash, b.hash, c.hash]).size).toBe(4);
    expect(a.inputs?.descriptor).toBe("{dx:quant(-1,1,0.007874015748031496)}");
    expect(c.inputs?.descriptor).toBe("dx{}");
  });
});
