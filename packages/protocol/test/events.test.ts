import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryWriter,
  DecodeError,
  FieldCode,
  FrameWriter,
  bool,
  defineEvents,
  defineSchema,
  dequantize,
  map,
  normalizeString,
  quant,
  quantAngle,
  quantize,
  string,
  u16,
  u8,
  varint,
  varuint,
  writeEvent,
  type EventDecl,
  type EventSchema,
  type Field,
  type TypeDecl,
} from "../src";
import { mutate, mutation } from "./support/mutations";

/*
 * Declared events against a naive twin: a codec that writes every field as text (the quantized
 * level, or the cut string) and reads it back the plain way. Whatever a game emits, the binary
 * decoder must hand a client exactly what the twin does, in the bytes the width rule promises;
 * and hostile bytes must come back as a DecodeError, never as an exception.
 */

const field: fc.Arbitrary<Field> = fc.oneof(
  fc
    .tuple(fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: 1, max: 70000 }), fc.constantFrom(1, 0.5, 1 / 16, 0.1, 3))
    .map(([min, span, step]) => quant(min, min + span * step, step)),
  fc.integer({ min: 1, max: 16 }).map((b) => quantAngle(b)),
  fc.constantFrom(u8(), u16(), varuint(), varint(), bool()),
  fc.integer({ min: 1, max: 40 }).map((n) => string(n)),
);

const FIELD_NAMES = ["a", "b", "c", "d", "e", "f"];
const decl: fc.Arbitrary<EventDecl> = fc
  .array(fc.array(field, { maxLength: FIELD_NAMES.length }), { minLength: 1, maxLength: 5 })
  .map((kinds) => Object.fromEntries(kinds.map((fields, k) => [`k${k}`, Object.fromEntries(fields.map((f, i) => [FIELD_NAMES[i], f])) as TypeDecl])));

/** Any value a game might put in a field, sensible or not. */
const anyValue = fc.oneof(
  fc.double(),
  fc.integer({ min: -0x80000000, max: 0xffffffff }),
  fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, 0.5, 65535.5, true, false, null, undefined),
  fc.string({ maxLength: 50, unit: "binary" }),
);

/** A declaration and events of it, with random values. */
const declAndEvents = decl.chain((d) => {
  const events = defineEvents(d);
  const event = fc.constantFrom(...events.kinds).chain((k) =>
    fc.array(anyValue, { minLength: k.fields.length, maxLength: k.fields.length }).map((values) => ({
      kind: k.name,
      ...Object.fromEntries(k.fields.map((f, i) => [f.name, values[i]])),
    })),
  );
  return fc.tuple(fc.constant(events), fc.array(event, { minLength: 1, maxLength: 8 }));
});

// ---- the naive twin ------------------------------------------------------------------------

function naiveEncode(events: EventSchema, e: Record<string, unknown>): string {
  const kind = events.kinds.find((k) => k.name === e.kind)!;
  return JSON.stringify([kind.index, ...kind.fields.map(({ name, field: f }) => (f.code === FieldCode.String ? normalizeString(f, e[name]) : quantize(f, e[name])))]);
}

function naiveDecode(events: EventSchema, text: string): Record<string, unknown> {
  const [index, ...values] = JSON.parse(text) as [number, ...(number | string)[]];
  const kind = events.kinds[index]!;
  const out: Record<string, unknown> = { kind: kind.name };
  kind.fields.forEach(({ name, field: f }, i) => (out[name] = f.code === FieldCode.String ? values[i] : dequantize(f, values[i] as number)));
  return out;
}

/** Bytes the width rule promises for one field's value `q` (a level, or the cut string). */
function naiveWidth(f: Field, q: number | string): number {
  const varuintLen = (n: number): number => (n >>> 0 < 0x80 ? 1 : n >>> 0 < 0x4000 ? 2 : n >>> 0 < 0x200000 ? 3 : n >>> 0 < 0x10000000 ? 4 : 5);
  if (typeof q === "string") {
    const n = new TextEncoder().encode(q).length;
    return varuintLen(n) + n;
  }
  switch (f.code) {
    case FieldCode.Quant:
      return f.levels <= 256 ? 1 : f.levels > 16384 && f.levels <= 65536 ? 2 : varuintLen(q);
    case FieldCode.Angle:
      return f.levels <= 256 ? 1 : 2;
    case FieldCode.U8:
    case FieldCode.Bool:
      return 1;
    case FieldCode.U16:
      return 2;
    case FieldCode.VarInt:
      return varuintLen((q << 1) ^ (q >> 31));
    default:
      return varuintLen(q);
  }
}

describe("declared events against their naive twin", () => {
  it("decode what the twin reads back, in the bytes the width rule promises", () =>
    fc.assert(
      fc.property(declAndEvents, ([events, list]) => {
        const w = new FrameWriter(8); // small on purpose: exercises growth
        for (const e of list) {
          const bytes = writeEvent(w.reset(), events, e as never).toBytes();
          const twin = naiveEncode(events, e);
          expect(events.decode(bytes)).toEqual(naiveDecode(events, twin));
          const [, ...levels] = JSON.parse(twin) as [number, ...(number | string)[]];
          const kind = events.kinds.find((k) => k.name === e.kind)!;
          expect(bytes.length).toBe(1 + kind.fields.reduce((n, { field: f }, i) => n + naiveWidth(f, levels[i]!), 0));
        }
      }),
      { numRuns: 500 },
    ));

  it("a decoded event re-encodes to itself (what a client reads is a fixed point)", () =>
    fc.assert(
      fc.property(declAndEvents, ([events, list]) => {
        const w = new FrameWriter();
        for (const e of list) {
          const once = events.decode(writeEvent(w.reset(), events, e as never).toBytes());
          expect(once).not.toBeInstanceOf(DecodeError);
          expect(events.decode(writeEvent(w.reset(), events, once as never).toBytes())).toEqual(once);
        }
      }),
      { numRuns: 300 },
    ));
});

/** Causes the event decoder is documented to give; an exception's text would be a bug. */
const CODES = ["truncated", "unknown_kind", "bad_value", "too_large", "trailing_bytes"];

describe("declared events against hostile bytes", () => {
  it("mutated bodies decode to a DecodeError of a documented cause, or to an event that re-encodes to itself", () =>
    fc.assert(
      fc.property(declAndEvents, fc.array(mutation, { minLength: 1, maxLength: 3 }), ([events, list], muts) => {
        const w = new FrameWriter();
        let bytes = writeEvent(w, events, list[0] as never).toBytes();
        for (const m of muts) bytes = bytes.length ? mutate(bytes, m) : bytes;
        const out = events.decode(bytes);
        if (out instanceof DecodeError) {
          expect(CODES).toContain(out.code);
          expect(out.message).not.toMatch(/^(TypeError|RangeError|ReferenceError)/);
          return;
        }
        expect(events.decode(writeEvent(w.reset(), events, out as never).toBytes())).toEqual(out);
      }),
      { numRuns: 3000 },
    ));

  it("random bytes never throw", () =>
    fc.assert(
      fc.property(decl, fc.uint8Array({ maxLength: 64 }), (d, bytes) => {
        const out = defineEvents(d).decode(bytes);
        if (out instanceof DecodeError) expect(CODES).toContain(out.code);
      }),
      { numRuns: 2000 },
    ));

  it("an undeclared kind, a level past the field's top and a string past its length are refused", () => {
    const events = defineEvents({ hit: { at: quant(0, 4095.9375, 1 / 16), who: string(4) } });
    const w = new BinaryWriter();
    expect(events.decode(Uint8Array.of(1))).toMatchObject({ code: "unknown_kind" });
    expect(events.decode(Uint8Array.of())).toMatchObject({ code: "truncated" });
    expect(events.decode(w.reset().u8(0).u16(1).string("abcde").toBytes())).toMatchObject({ code: "bad_value" });
    expect(events.decode(w.reset().u8(0).u16(1).string("abcd").u8(0).toBytes())).toMatchObject({ code: "trailing_bytes" });
    const small = defineEvents({ k: { level: quant(0, 10, 1) } });
    expect(small.decode(Uint8Array.of(0, 11))).toMatchObject({ code: "bad_value" });
    expect(small.decode(Uint8Array.of(0, 10))).toEqual({ kind: "k", level: 10 });
  });
});

describe("declaring events", () => {
  it("refuses a field called kind, a map field and too many kinds; an undeclared kind does not encode", () => {
    expect(() => defineEvents({ a: { kind: u8() } })).toThrow(TypeError);
    expect(() => defineEvents({ a: { m: map(u8()) } })).toThrow(TypeError);
    expect(() => defineEvents(Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, {}])))).toThrow(RangeError);
    const events = defineEvents({ a: { n: u8() } });
    expect(() => writeEvent(new FrameWriter(), events, { kind: "b" } as never)).toThrow(TypeError);
  });

  it("takes the schema's hash with them: the same without events as before, another with them", () => {
    const types = { dot: { x: quant(0, 100, 1), y: quant(0, 100, 1) } };
    const plain = defineSchema(types);
    // Pinned: a schema without events keeps the hash clients already agree on.
    expect(plain.hash).toBe(defineSchema(types, {}).hash);
    expect(plain.events).toBeNull();
    const a = defineSchema(types, { events: defineEvents({ pop: { id: varuint() } }) });
    const b = defineSchema(types, { events: defineEvents({ pop: { id: u16() } }) });
    expect(new Set([plain.hash, a.hash, b.hash]).size).toBe(3);
    expect(a.events?.kinds.map((k) => k.name)).toEqual(["pop"]);
  });
});
