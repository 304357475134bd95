/**
 * Join options: the declaration (`defineJoinOptions`, `joinOption`), its types on both ends, and
 * the one check a room and a matchmaker make (`readJoinOptions`, `parseJoinOptions`), against a
 * naive twin written from the rules' words (fast-check).
 */
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  MAX_JOIN_OPTIONS_BYTES,
  checkJoinOptionsValue,
  defineGameTypes,
  defineJoinOptions,
  joinOption,
  jsonDialect,
  parseJoinOptions,
  readJoinOptions,
  type JoinOption,
  type JoinOptionsOf,
  type JoinOptionValue,
  type PlayerOptionsOf,
} from "../src";

const tagOptions = defineJoinOptions({
  team: joinOption.oneOf(["red", "blue"]),
  level: joinOption.int(1, 99, { default: 1 }),
  speed: joinOption.number(0.5, 2),
  skin: joinOption.text(8),
  hardcore: joinOption.flag({ default: false }),
});

describe("declaring join options", () => {
  it("types what a client sends (every option optional) and what the game gets (defaults always there)", () => {
    const tag = defineGameTypes<{ dx: number }, never, unknown>()({ kind: "tag", json: jsonDialect, joinOptions: tagOptions });
    expectTypeOf<JoinOptionsOf<typeof tag>>().toEqualTypeOf<{ team?: "red" | "blue"; level?: number; speed?: number; skin?: string; hardcore?: boolean }>();
    expectTypeOf<PlayerOptionsOf<typeof tag>>().toEqualTypeOf<{ readonly level: number; readonly hardcore: boolean } & { readonly team?: "red" | "blue"; readonly speed?: number; readonly skin?: string }>();
    // The declaration travels with the game's types: the same object a definition names.
    expect(tag.joinOptions).toBe(tagOptions);
    const plain = defineGameTypes<{ dx: number }, never, unknown>()({ kind: "plain", json: jsonDialect });
    expectTypeOf<JoinOptionsOf<typeof plain>>().toEqualTypeOf<Record<string, never>>();
  });

  it("refuses declarations that cannot be: bad ranges, sizes, choices, defaults outside them, bad names", () => {
    expect(() => joinOption.int(5, 1)).toThrow(RangeError);
    expect(() => joinOption.int(0.5, 2)).toThrow(RangeError);
    expect(() => joinOption.number(0, Infinity)).toThrow(RangeError);
    expect(() => joinOption.text(0)).toThrow(RangeError);
    expect(() => joinOption.text(MAX_JOIN_OPTIONS_BYTES + 1)).toThrow(RangeError);
    expect(() => joinOption.oneOf([] as unknown as ["a"])).toThrow(RangeError);
    expect(() => joinOption.int(1, 9, { default: 10 })).toThrow(/default 10: must be in 1..9/);
    expect(() => joinOption.oneOf(["a", "b"], { default: "c" as "a" })).toThrow(RangeError);
    expect(() => defineJoinOptions({ "2fast": joinOption.flag() })).toThrow(/not 1-32/);
    expect(() => defineJoinOptions({ x: { kind: 3 } as unknown as JoinOption })).toThrow(/not a joinOption/);
    expect(() => defineJoinOptions(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`o${i}`, joinOption.flag()])))).toThrow(/at most 32/);
  });
});

describe("checking a join's options", () => {
  it("accepts declared options of their type and range, with the defaults filled in", () => {
    expect(readJoinOptions(tagOptions, { team: "blue", speed: 1.5, skin: "fox" })).toEqual({ ok: true, options: { team: "blue", speed: 1.5, skin: "fox", level: 1, hardcore: false } });
    expect(readJoinOptions(tagOptions, undefined)).toEqual({ ok: true, options: { level: 1, hardcore: false } });
    expect(parseJoinOptions(tagOptions, "")).toEqual({ ok: true, options: { level: 1, hardcore: false } });
    expect(parseJoinOptions(null, "")).toEqual({ ok: true, options: {} });
  });

  it("refuses, naming the option: unknown, wrong type, out of range, too long, not a choice", () => {
    const cases: [unknown, string, RegExp][] = [
      [{ colour: "red" }, "colour", /unknown join option "colour"/],
      [{ team: "green" }, "team", /"team" must be one of "red", "blue", not "green"/],
      [{ level: 0 }, "level", /"level" must be in 1..99, not 0/],
      [{ level: "3" }, "level", /"level" must be a whole number, not "3"/],
      [{ speed: 3 }, "speed", /"speed" must be in 0.5..2, not 3/],
      [{ skin: "abcdefghi" }, "skin", /"skin" must be at most 8 characters, not 9/],
      [{ hardcore: 1 }, "hardcore", /"hardcore" must be true or false, not 1/],
      [JSON.parse('{"__proto__":1}'), "__proto__", /unknown join option "__proto__"/],
    ];
    for (const [value, field, reason] of cases) {
      const v = readJoinOptions(tagOptions, JSON.parse(JSON.stringify(value)) as unknown);
      expect(v).toMatchObject({ ok: false, field });
      expect((v as { reason: string }).reason).toMatch(reason);
    }
    expect(readJoinOptions(tagOptions, [1])).toMatchObject({ ok: false, field: null });
    expect(readJoinOptions(null, { team: "red" })).toMatchObject({ ok: false, field: "team", reason: 'unknown join option "team": this game takes none' });
  });

  it("refuses JSON over 512 bytes (counted as UTF-8) and text that is not JSON, as a whole", () => {
    const wide = JSON.stringify({ skin: "é".repeat(200) }); // 200 characters, 400 bytes of the string
    expect(parseJoinOptions(tagOptions, wide)).toMatchObject({ ok: false, field: "skin" });
    const over = JSON.stringify({ skin: "é".repeat(300) });
    expect(parseJoinOptions(tagOptions, over)).toMatchObject({ ok: false, field: null, reason: expect.stringMatching(/over 512/) });
    expect(parseJoinOptions(tagOptions, "{team:")).toMatchObject({ ok: false, field: null, reason: "join options are not JSON" });
    expect(checkJoinOptionsValue(tagOptions, { skin: "x".repeat(600) })).toMatchObject({ ok: false, reason: expect.stringMatching(/over 512/) });
  });

  // The twin: each rule as the docs word it, option by option.
  function naive(value: Record<string, unknown>): { ok: boolean; field?: string } {
    const rules: Record<string, (v: unknown) => boolean> = {
      team: (v) => v === "red" || v === "blue",
      level: (v) => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 99,
      speed: (v) => typeof v === "number" && Number.isFinite(v) && v >= 0.5 && v <= 2,
      skin: (v) => typeof v === "string" && v.length <= 8,
      hardcore: (v) => typeof v === "boolean",
    };
    if (new TextEncoder().encode(JSON.stringify(value)).length > MAX_JOIN_OPTIONS_BYTES) return { ok: false };
    for (const [k, v] of Object.entries(value)) {
      if (!Object.hasOwn(rules, k) || !rules[k]!(v)) return { ok: false, field: k };
    }
    return { ok: true };
  }

  it("agrees with its naive twin on random options, and what it accepts is what was sent plus the defaults (fast-check)", () => {
    const anyValue = fc.oneof(fc.integer({ min: -5, max: 120 }), fc.double({ noNaN: true }), fc.boolean(), fc.string({ maxLength: 12 }), fc.constantFrom("red", "blue", "green"));
    const key = fc.constantFrom("team", "level", "speed", "skin", "hardcore", "colour", "toString");
    fc.assert(
      fc.property(fc.dictionary(key, anyValue, { maxKeys: 6 }), (value) => {
        const text = JSON.stringify(value);
        const got = parseJoinOptions(tagOptions, text);
        const want = naive(JSON.parse(text) as Record<string, unknown>);
        expect(got.ok).toBe(want.ok);
        if (got.ok) expect(got.options).toEqual({ level: 1, hardcore: false, ...(JSON.parse(text) as Record<string, JoinOptionValue>) });
        else if (want.field !== undefined) expect(got.field).toBe(want.field);
      }),
      { numRuns: 500 },
    );
  });
});
