import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  FrameWriter,
  ClientView,
  DecodeError,
  DeltaSection,
  FieldCode,
  bool,
  defineSchema,
  dequantize,
  map,
  quant,
  quantAngle,
  string,
  u16,
  u8,
  varint,
  varuint,
  writeDeltaSections,
  writeMapChangeHeader,
  writeScalarDelta,
  writeScalarFull,
} from "../src/index";

const schema = defineSchema({
  a: {
    x: quant(-100, 100, 0.5),
    y: quant(-100, 100, 0.5),
    ang: quantAngle(10),
    hp: u8(),
    big: u16(),
    n: varuint(),
    z: varint(),
    on: bool(),
    name: string(6),
    tags: map(u8(), 6),
  },
  b: { s: string(3), m: map(varint(), 4), flag: bool() },
});

/** What the server holds for one entity, in codec terms (quantized ints, strings, maps). */
interface Ent {
  type: number;
  /** Per field: quantized scalar, string, or Map of quantized values. */
  v: Array<number | string | Map<number, number>>;
}
type Snap = Map<number, Ent>;

/**
 * Reference encoder written straight from the documented layout, independent of the server
 * encoder: diffs two snapshots into one body. Returns null when nothing changed.
 */
function encodeDiff(prev: Snap, next: Snap): Uint8Array | null {
  const leaves = [...prev.keys()].filter((id) => !next.has(id));
  const enters = [...next.keys()].filter((id) => !prev.has(id) || prev.get(id)!.type !== next.get(id)!.type);
  const updates: Array<[number, number]> = [];
  for (const [id, e] of next) {
    const p = prev.get(id);
    if (!p || p.type !== e.type) continue;
    let mask = 0;
    e.v.forEach((v, i) => {
      const pv = p.v[i];
      const same = v instanceof Map ? mapEq(v, pv as Map<number, number>) : v === pv;
      if (!same) mask |= 1 << i;
    });
    if (mask) updates.push([id, mask]);
  }
  if (leaves.length + enters.length + updates.length === 0) return null;
  const w = new FrameWriter(16);
  writeDeltaSections(w, leaves.length, enters.length, updates.length);
  if (leaves.length) {
    w.varuint(leaves.length);
    for (const id of leaves) w.varuint(id);
  }
  if (enters.length) {
    w.varuint(enters.length);
    for (const id of enters) {
      const e = next.get(id)!;
      w.varuint(id).varuint(e.type);
      schema.types[e.type].fields.forEach((fi, i) => {
        const v = e.v[i];
        if (fi.field.code === FieldCode.String) w.string(v as string);
        else if (fi.field.code === FieldCode.Map) {
          const m = v as Map<number, number>;
          w.varuint(m.size);
          for (const [k, q] of m) {
            w.varuint(k);
            writeScalarFull(w, fi.field.value!, q);
          }
        } else writeScalarFull(w, fi.field, v as number);
      });
    }
  }
  if (updates.length) {
    w.varuint(updates.length);
    for (const [id, mask] of updates) {
      const e = next.get(id)!;
      const p = prev.get(id)!;
      w.varuint(id).varuint(mask);
      schema.types[e.type].fields.forEach((fi, i) => {
        if (!(mask & (1 << i))) return;
        const v = e.v[i];
        if (fi.field.code === FieldCode.String) w.string(v as string);
        else if (fi.field.code === FieldCode.Map) {
          const m = v as Map<number, number>;
          const pm = p.v[i] as Map<number, number>;
          const removed = [...pm.keys()].filter((k) => !m.has(k));
          const set = [...m].filter(([k, q]) => pm.get(k) !== q);
          writeMapChangeHeader(w, removed.length, false);
          for (const k of removed) w.varuint(k);
          w.varuint(set.length);
          for (const [k, q] of set) {
            w.varuint(k);
            writeScalarFull(w, fi.field.value!, q);
          }
        } else writeScalarDelta(w, fi.field, v as number, p.v[i] as number);
      });
    }
  }
  return w.toBytes();
}

function mapEq(a: Map<number, number>, b: Map<number, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** The records a client must see for a snapshot. */
function expected(snap: Snap): Map<number, { type: string; record: Record<string, unknown> }> {
  const out = new Map<number, { type: string; record: Record<string, unknown> }>();
  for (const [id, e] of snap) {
    const t = schema.types[e.type];
    const record: Record<string, unknown> = {};
    t.fields.forEach((fi, i) => {
      const v = e.v[i];
      if (fi.field.code === FieldCode.String) record[fi.name] = v;
      else if (fi.field.code === FieldCode.Map) {
        record[fi.name] = new Map([...(v as Map<number, number>)].map(([k, q]) => [k, dequantize(fi.field.value!, q)]));
      } else record[fi.name] = dequantize(fi.field, v as number);
    });
    out.set(id, { type: t.name, record });
  }
  return out;
}

function viewState(view: ClientView): Map<number, { type: string; record: Record<string, unknown> }> {
  const out = new Map<number, { type: string; record: Record<string, unknown> }>();
  for (const e of view.values()) out.set(e.id, { type: e.type, record: { ...(e.record as Record<string, unknown>) } });
  return out;
}

function fieldValue(fcode: number, levels: number, maxLen: number) {
  switch (fcode) {
    case FieldCode.VarUint:
    case FieldCode.VarInt:
      return fc.integer({ min: -0x80000000, max: 0x7fffffff });
    default:
      return fc.integer({ min: 0, max: levels - 1 });
  }
  void maxLen;
}

const entArb: fc.Arbitrary<Ent> = fc.integer({ min: 0, max: 1 }).chain((type) =>
  fc
    .tuple(
      ...schema.types[type].fields.map((fi): fc.Arbitrary<number | string | Map<number, number>> => {
        const f = fi.field;
        if (f.code === FieldCode.String) return fc.string({ maxLength: f.maxLen, unit: "grapheme-ascii" });
        if (f.code === FieldCode.Map) {
          const vf = f.value!;
          return fc
            .uniqueArray(fc.tuple(fc.integer({ min: 0, max: 40 }), fieldValue(vf.code, vf.levels, 0)), {
              selector: ([k]) => k,
              maxLength: f.maxLen,
            })
            .map((es) => new Map(es));
        }
        return fieldValue(f.code, f.levels, 0);
      }),
    )
    .map((v) => ({ type, v })),
);

/** Mostly small mutations of the previous snapshot, so updates dominate as on a real server. */
function snapSeq(): fc.Arbitrary<Snap[]> {
  return fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.option(entArb, { freq: 4 })), { maxLength: 8 }), {
    minLength: 1,
    maxLength: 12,
  }).map((steps) => {
    const snaps: Snap[] = [];
    let cur: Snap = new Map();
    for (const step of steps) {
      cur = new Map(cur);
      for (const [id, e] of step) {
        if (e === null) cur.delete(id);
        else cur.set(id, e);
      }
      snaps.push(cur);
    }
    return snaps;
  });
}

function viewOf(snap: Snap): ClientView {
  const v = new ClientView(schema);
  const body = encodeDiff(new Map(), snap);
  if (body) expect(v.apply(body)).toBeNull();
  return v;
}

describe("ClientView", () => {
  it("reproduces the server's records from any stream of deltas", () => {
    fc.assert(
      fc.property(snapSeq(), (snaps) => {
        const view = new ClientView(schema);
        let prev: Snap = new Map();
        for (const snap of snaps) {
          const body = encodeDiff(prev, snap);
          if (body) expect(view.apply(body)).toBeNull();
          expect(viewState(view)).toEqual(expected(snap));
          prev = snap;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reports adds, changes and removes after a good body", () => {
    const log: string[] = [];
    const view = new ClientView(schema);
    view.onAdd((e) => log.push(`enter ${e.id} ${e.type}`));
    view.onChange("s", (e, value, previous) => log.push(`update ${e.id} ${previous}→${value}`));
    view.onRemove((e) => log.push(`leave ${e.id}`));
    const a: Ent = { type: 1, v: ["hi", new Map([[3, 7]]), 1] };
    const s1: Snap = new Map([[5, a]]);
    const s2: Snap = new Map([[5, { type: 1, v: ["yo", new Map([[3, 7]]), 1] }], [6, a]]);
    expect(view.apply(encodeDiff(new Map(), s1)!)).toBeNull();
    expect(view.apply(encodeDiff(s1, s2)!)).toBeNull();
    // Same id, new entity (the server reused a slot): reported as leave + enter.
    const s3: Snap = new Map([[5, s2.get(5)!], [6, { type: 0, v: [0, 0, 0, 0, 0, 0, 0, 0, "", new Map()] }]]);
    expect(view.apply(encodeDiff(s2, s3)!)).toBeNull();
    expect(view.get(6)?.type).toBe("a");
    expect(view.apply(encodeDiff(s3, new Map())!)).toBeNull();
    expect(log).toEqual(["enter 5 b", "enter 6 b", "update 5 hi→yo", "leave 6", "enter 6 a", "leave 5", "leave 6"]);
    const e = view.get(5);
    expect(e).toBeUndefined();
  });

  it("rejects every proper prefix of a body with a DecodeError", () => {
    fc.assert(
      fc.property(snapSeq(), (snaps) => {
        let prev: Snap = new Map();
        for (const snap of snaps) {
          const body = encodeDiff(prev, snap);
          if (body) {
            for (let n = 0; n < body.length; n++) {
              const err = viewOf(prev).apply(body.subarray(0, n));
              expect(err).toBeInstanceOf(DecodeError);
              expect(err!.message).not.toMatch(/^unexpected/);
            }
          }
          prev = snap;
        }
      }),
      { numRuns: 60 },
    );
  });

  it("never throws, loops or fails internally on corrupted or random bodies", () => {
    fc.assert(
      fc.property(
        snapSeq(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (snaps, flips) => {
          let prev: Snap = new Map();
          for (const snap of snaps) {
            const body = encodeDiff(prev, snap);
            if (body) {
              const bad = body.slice();
              for (const [pos, val] of flips) bad[pos % bad.length] = val;
              const err = viewOf(prev).apply(bad);
              if (err !== null) {
                expect(err).toBeInstanceOf(DecodeError);
                expect(err.message).not.toMatch(/^unexpected/);
              }
            }
            prev = snap;
          }
        },
      ),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const err = new ClientView(schema).apply(bytes);
        if (err !== null) expect(err.message).not.toMatch(/^unexpected/);
      }),
      { numRuns: 2000 },
    );
  });

  it("rejects structurally bad bodies and then refuses more until cleared", () => {
    const view = new ClientView(schema);
    const cases: Array<[string, number[]]> = [
      ["empty", []],
      ["no sections", [0]],
      ["unknown section bit", [8]],
      ["empty section", [1, 0]],
      ["leave unknown", [1, 1, 9]],
      ["unknown type", [2, 1, 0, 7]],
      ["trailing", [2, 1, 0, 1, 0, 0, 0, 0, 0x63]],
      ["hostile count", [1, 0x80, 0x80, 0x80, 0x80, 0x04, 9]],
    ];
    for (const [what, bytes] of cases) {
      const v = new ClientView(schema);
      const err = v.apply(new Uint8Array(bytes));
      expect(err, what).toBeInstanceOf(DecodeError);
    }
    // A good body after a failure is refused until clear().
    expect(view.apply(new Uint8Array([1, 1, 9]))).toBeInstanceOf(DecodeError);
    const good = encodeDiff(new Map(), new Map([[1, { type: 1, v: ["a", new Map(), 0] }]]))!;
    expect(view.apply(good)).toBeInstanceOf(DecodeError);
    view.clear();
    expect(view.apply(good)).toBeNull();
    expect(view.size).toBe(1);
  });
});

describe("ClientView map fields", () => {
  // Type 1 is `b: { s: string(3), m: map(varint(), 4), flag: bool() }`; entity 1 enters with `m`.
  const enter = (keys: number[]): Uint8Array => {
    const w = new FrameWriter(16).u8(DeltaSection.Enters).varuint(1).varuint(1).varuint(1).string("a");
    w.varuint(keys.length);
    for (const k of keys) w.varuint(k).varint(k * 10);
    return w.u8(0).toBytes();
  };
  // An update of `m` (mask bit 1): header (removed << 1 | reset), removed keys, sets.
  const change = (reset: boolean, removed: number[], sets: number[]): Uint8Array => {
    const w = new FrameWriter(16).u8(DeltaSection.Updates).varuint(1).varuint(1).varuint(2);
    w.varuint(removed.length * 2 + (reset ? 1 : 0));
    for (const k of removed) w.varuint(k);
    w.varuint(sets.length);
    for (const k of sets) w.varuint(k).varint(-k);
    return w.toBytes();
  };
  const held = (view: ClientView): unknown => [...(view.get(1)!.record.m as Map<number, number>)];
  const code = (err: DecodeError | null): string | undefined => err?.code;

  it("apply whole maps, removals, resets and sets", () => {
    const view = new ClientView(schema);
    expect(view.apply(enter([1, 2, 3]))).toBeNull();
    expect(held(view)).toEqual([[1, 10], [2, 20], [3, 30]]);
    // Removing keys the view never had (more than the map can hold) is allowed.
    expect(view.apply(change(false, [2, 7, 8, 9, 10, 11], [3, 5]))).toBeNull();
    expect(held(view)).toEqual([[1, 10], [3, -3], [5, -5]]);
    // A set repeating a key leaves one entry, so the result may fit where the count would not.
    expect(view.apply(change(false, [], [6, 6, 6, 6, 6]))).toBeNull();
    expect(held(view)).toEqual([[1, 10], [3, -3], [5, -5], [6, -6]]);
    expect(view.apply(change(true, [], [4]))).toBeNull();
    expect(held(view)).toEqual([[4, -4]]);
  });

  it("refuse a map over its key limit, a whole map repeating a key, and a reset with removals", () => {
    expect(code(new ClientView(schema).apply(enter([1, 2, 3, 4, 5])))).toBe("too_large");
    expect(code(new ClientView(schema).apply(enter([1, 2, 1])))).toBe("bad_value");
    const grow = new ClientView(schema);
    expect(grow.apply(enter([1, 2, 3]))).toBeNull();
    expect(code(grow.apply(change(false, [], [4, 5])))).toBe("too_large");
    const reset = new ClientView(schema);
    expect(reset.apply(enter([1]))).toBeNull();
    expect(code(reset.apply(change(true, [1], [])))).toBe("bad_value");
  });
});

describe("ClientView change callbacks", () => {
  const fieldNames = [...new Set(schema.types.flatMap((t) => t.fields.map((f) => f.name)))] as ("x" | "s")[];

  it("report adds, removes and field changes with previous values, as a naive diff of the records", () => {
    fc.assert(
      fc.property(snapSeq(), (snaps) => {
        const view = new ClientView(schema);
        const log: string[] = [];
        view.onAdd((e) => log.push(`add ${e.id} ${e.type}`));
        view.onRemove((e) => log.push(`remove ${e.id}`));
        for (const name of fieldNames) {
          view.onChange(name, (e, value: unknown, previous: unknown) => {
            // Maps change in place: value and previous are the same map, now holding the new entries.
            const show = (v: unknown) => (v instanceof Map ? JSON.stringify([...v].sort((p, q) => p[0] - q[0])) : JSON.stringify(v));
            log.push(value instanceof Map ? `change ${e.id} ${name} ${show(value)}` : `change ${e.id} ${name} ${show(previous)}→${show(value)}`);
          });
        }
        let prev: Snap = new Map();
        for (const snap of snaps) {
          log.length = 0;
          const body = encodeDiff(prev, snap);
          if (body) expect(view.apply(body)).toBeNull();
          expect([...log].sort()).toEqual(naiveDiff(expected(prev), expected(snap)).sort());
          prev = snap;
        }
      }),
      { numRuns: 300 },
    );
  });

  function naiveDiff(
    before: ReturnType<typeof expected>,
    after: ReturnType<typeof expected>,
  ): string[] {
    const out: string[] = [];
    const show = (v: unknown) => (v instanceof Map ? JSON.stringify([...v].sort((p, q) => p[0] - q[0])) : JSON.stringify(v));
    for (const [id, b] of before) if (after.get(id)?.type !== b.type) out.push(`remove ${id}`);
    for (const [id, a] of after) {
      const b = before.get(id);
      if (b?.type !== a.type) {
        out.push(`add ${id} ${a.type}`);
        continue;
      }
      for (const [name, v] of Object.entries(a.record)) {
        const p = b.record[name];
        if (show(v) === show(p)) continue;
        out.push(v instanceof Map ? `change ${id} ${name} ${show(v)}` : `change ${id} ${name} ${show(p)}→${show(v)}`);
      }
    }
    return out;
  }

  it("with { immediate: true }, one field watcher (and onRemove) mirrors the field from any point on, as the naive records hold it", () => {
    const show = (v: unknown) => (v instanceof Map ? JSON.stringify([...v].sort((p, q) => p[0] - q[0])) : JSON.stringify(v));
    fc.assert(
      fc.property(snapSeq(), fc.nat(), fc.constantFrom<"s" | "x" | "flag" | "tags">("s", "x", "flag", "tags"), (snaps, at, field) => {
        const view = new ClientView(schema);
        const subscribeAt = at % (snaps.length + 1);
        // What the watcher alone learned: id -> shown value, and whether each call's previous was what it had seen.
        const mirror = new Map<number, string>();
        let prev: Snap = new Map();
        for (let i = 0; i <= snaps.length; i++) {
          if (i === subscribeAt) {
            view.onRemove((e) => mirror.delete(e.id));
            view.onChange(
              field,
              (e, value: unknown, previous: unknown) => {
                const had = mirror.get(e.id);
                // Maps change in place, so their previous is the same map; scalars name the value seen before.
                if (!(value instanceof Map)) expect(previous === undefined ? undefined : show(previous)).toBe(had);
                else expect(previous === undefined).toBe(had === undefined);
                mirror.set(e.id, show(value));
              },
              { immediate: true },
            );
          }
          if (i === snaps.length) break;
          const body = encodeDiff(prev, snaps[i]!);
          if (body) expect(view.apply(body)).toBeNull();
          prev = snaps[i]!;
          if (i < subscribeAt) continue;
          const want = new Map<number, string>();
          for (const [id, e] of expected(prev)) if (Object.hasOwn(e.record, field)) want.set(id, show(e.record[field]));
          expect(new Map([...mirror].sort()), `after snapshot ${i}`).toEqual(new Map([...want].sort()));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("{ immediate: true } on onAdd reports the entities already in view at once; without it only later ones", () => {
    const view = new ClientView(schema);
    const s1: Snap = new Map([
      [1, { type: 1, v: ["ab", new Map(), 0] }],
      [2, { type: 1, v: ["cd", new Map(), 1] }],
    ]);
    expect(view.apply(encodeDiff(new Map(), s1)!)).toBeNull();
    const now: number[] = [];
    const later: number[] = [];
    view.onAdd((e) => now.push(e.id), { immediate: true });
    view.onAdd((e) => later.push(e.id));
    expect(now).toEqual([1, 2]);
    expect(later).toEqual([]);
    const s2: Snap = new Map([...s1, [3, { type: 1, v: ["ef", new Map(), 0] }]]);
    expect(view.apply(encodeDiff(s1, s2)!)).toBeNull();
    expect(now).toEqual([1, 2, 3]);
    expect(later).toEqual([3]);
  });

  it("type an immediate watcher's previous value as possibly undefined", () => {
    const view = new ClientView(schema);
    view.onChange(
      "flag",
      (e, value, previous) => {
        expectTypeOf(e.type).toEqualTypeOf<"b">();
        expectTypeOf(value).toEqualTypeOf<boolean>();
        expectTypeOf(previous).toEqualTypeOf<boolean | undefined>();
      },
      { immediate: true },
    );
  });

  it("narrow the entity to the types declaring the field, and type the values", () => {
    const view = new ClientView(schema);
    view.onChange("flag", (e, value, previous) => {
      expectTypeOf(e.type).toEqualTypeOf<"b">();
      expectTypeOf(value).toEqualTypeOf<boolean>();
      expectTypeOf(previous).toEqualTypeOf<boolean>();
    });
    view.onChange("name", (e, value) => {
      expectTypeOf(e.record.hp).toBeNumber();
      expectTypeOf(value).toBeString();
    });
    // @ts-expect-error: no entity type declares this field
    view.onChange("speed", () => {});
  });

  it("report nothing for a rejected body, pair removes with adds over a clear, and unsubscribe", () => {
    const view = new ClientView(schema);
    const log: string[] = [];
    view.onAdd((e) => log.push(`add ${e.id}`));
    const offRemove = view.onRemove((e) => log.push(`remove ${e.id}`));
    const offChange = view.onChange("s", (e, v, p) => log.push(`s ${e.id} ${p}→${v}`));
    const s1: Snap = new Map([[1, { type: 1, v: ["ab", new Map(), 0] }]]);
    const s2: Snap = new Map([[1, { type: 1, v: ["cd", new Map(), 0] }]]);
    expect(view.apply(encodeDiff(new Map(), s1)!)).toBeNull();
    const good = encodeDiff(s1, s2)!;
    // The same update cut short: decoding fails after the string was read, and nothing is reported.
    expect(view.apply(good.subarray(0, good.length - 1))).toBeInstanceOf(DecodeError);
    expect(log).toEqual(["add 1"]);
    view.clear();
    expect(log).toEqual(["add 1", "remove 1"]);
    expect(view.apply(encodeDiff(new Map(), s1)!)).toBeNull();
    expect(view.apply(good)).toBeNull();
    expect(log).toEqual(["add 1", "remove 1", "add 1", "s 1 ab→cd"]);
    offRemove();
    offChange();
    expect(view.apply(encodeDiff(s2, new Map())!)).toBeNull();
    expect(view.apply(encodeDiff(new Map(), s1)!)).toBeNull();
    expect(log).toEqual(["add 1", "remove 1", "add 1", "s 1 ab→cd", "add 1"]);
    // A callback that unsubscribes itself while adds are reported does not skip the next one.
    const once: string[] = [];
    const offOnce = view.onAdd((e) => {
      once.push(`once ${e.id}`);
      offOnce();
    });
    view.onAdd((e) => once.push(`after ${e.id}`));
    view.clear();
    expect(view.apply(encodeDiff(new Map(), s1)!)).toBeNull();
    expect(view.apply(encodeDiff(s1, new Map([...s1, [2, s1.get(1)!]]))!)).toBeNull();
    expect(once).toEqual(["once 1", "after 1", "after 2"]);
  });
});
