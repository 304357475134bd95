/**
 * The game's store against a naive twin (a Map of JSON round-tripped values): the same values,
 * keys and weight after any sequence of sets and deletes, refusals that change nothing, a
 * version that moves exactly on changes, and a snapshot that loads back into the same store.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_STORE_CHARS, MAX_STORE_KEY_CHARS, RoomStore } from "../src";

type Op = { set: string; value: unknown } | { del: string };

const key = fc.oneof(fc.constantFrom("a", "b", "score", "best"), fc.string({ minLength: 0, maxLength: MAX_STORE_KEY_CHARS + 2 }));
const value = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  // Big strings now and then, so the store fills up and refuses.
  { weight: 1, arbitrary: fc.string({ minLength: 4000, maxLength: 12000 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, () => 1, 10n, Number.NaN, new Date(0)) },
);
const op: fc.Arbitrary<Op> = fc.oneof({ weight: 3, arbitrary: fc.record({ set: key, value }) }, { weight: 1, arbitrary: fc.record({ del: key }) });

describe("RoomStore", () => {
  it("holds what a naive Map of JSON values holds, within its limits", () =>
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let changes = 0;
        const store = new RoomStore(() => changes++);
        const twin = new Map<string, string>();
        const weight = () => [...twin].reduce((n, [k, t]) => n + k.length + t.length, 0);
        for (const o of ops) {
          const before = store.version;
          if ("del" in o) {
            expect(store.delete(o.del)).toBe(twin.delete(o.del));
          } else {
            let text: string | undefined;
            let jsonError = false;
            try {
              text = JSON.stringify(o.value);
            } catch {
              jsonError = true;
            }
            const badKey = o.set.length === 0 || o.set.length > MAX_STORE_KEY_CHARS;
            const old = twin.get(o.set);
            const next = new Map(twin);
            if (text !== undefined) next.set(o.set, text);
            const over = text !== undefined && [...next].reduce((n, [k, t]) => n + k.length + t.length, 0) > MAX_STORE_CHARS;
            if (badKey || jsonError || text === undefined) expect(() => store.set(o.set, o.value)).toThrow(TypeError);
            else if (over && old !== text) expect(() => store.set(o.set, o.value)).toThrow(RangeError);
            else {
              store.set(o.set, o.value);
              twin.set(o.set, text);
            }
          }
          expect(changes).toBe(store.version);
          expect(store.version - before).toBeLessThanOrEqual(1);
          expect(store.chars).toBe(weight());
          expect(store.size).toBe(twin.size);
          expect(store.keys()).toEqual([...twin.keys()]);
          for (const [k, t] of twin) expect(store.get(k)).toEqual(JSON.parse(t));
        }
        // What a host keeps loads back into the same store, without reporting a change.
        const copy = new RoomStore(() => {
          throw new Error("a load is not a change");
        });
        const snap = store.snapshot();
        if (twin.size === 0) expect(snap).toBeNull();
        else expect(copy.load(JSON.parse(JSON.stringify(snap)))).toBe(true);
        expect(copy.keys()).toEqual(store.keys());
        expect(copy.chars).toBe(store.chars);
        for (const k of store.keys()) expect(copy.get(k)).toEqual(store.get(k));
      }),
    ));

  it("gives copies: changing what get returned changes nothing until it is set", () => {
    const store = new RoomStore(() => {});
    store.set("best", { name: "ann", score: 3 });
    store.get<{ score: number }>("best")!.score = 99;
    expect(store.get("best")).toEqual({ name: "ann", score: 3 });
    const v0 = store.version;
    store.set("best", { name: "ann", score: 3 });
    expect(store.version).toBe(v0); // the same JSON again is no change
  });

  it("refuses a kept value that is not a store snapshot, or one over the limits, and loads nothing", () => {
    const store = new RoomStore(() => {});
    const bads = [
      null,
      3,
      "x",
      {},
      { v: 2, entries: [] },
      { v: 1, entries: {} },
      { v: 1, entries: [["a", 5]] },
      { v: 1, entries: [["a"]] },
      { v: 1, entries: [["a", "{nope"]] },
      { v: 1, entries: [["", "1"]] },
      { v: 1, entries: [["a", "1"], ["a", "2"]] },
      { v: 1, entries: [["a", JSON.stringify("x".repeat(MAX_STORE_CHARS))]] },
    ];
    for (const bad of bads) {
      expect(store.load(bad), JSON.stringify(bad)?.slice(0, 60)).toBe(false);
      expect(store.size).toBe(0);
    }
    expect(store.load({ v: 1, entries: [["b", '{"c":[2]}'], ["a", "1"]] })).toBe(true);
    expect(store.keys()).toEqual(["b", "a"]);
    expect(store.get("b")).toEqual({ c: [2] });
    expect(store.chars).toBe(1 + 1 + 1 + 9);
  });
});
