/**
 * Join options: what a player chooses when joining (a team, a skin, a character), declared by
 * the game beside its inputs, events and notices (`defineGameTypes({ …, joinOptions })`). One
 * declaration gives both ends: the client's type of what it may send (`JoinOptionsInput`), the
 * game's type of what it gets (`PlayerOptions`: defaults filled in), and the one run-time check a
 * room and a matchmaker make before any seat is held ({@link readJoinOptions}). The client never
 * runs the check (a page that does not import it bundles none of it): the room is the judge.
 *
 * On the wire the options travel as one JSON object of at most {@link MAX_JOIN_OPTIONS_BYTES}
 * bytes: in the hello (binary: a trailing string after the name; JSON: its `options` field) and
 * in a match request's body (`joinOptions`).
 */
import { textEncoder } from "./binaryWriter";

/** A value a player may choose at join: a JSON scalar. */
export type JoinOptionValue = string | number | boolean;

/** The kinds of join option: a whole number, any finite number, a string, a boolean, one of a list of strings. */
export type JoinOptionKind = "int" | "number" | "text" | "flag" | "oneOf";

/** One declared join option; `T` is its value's type. Made by {@link joinOption}. */
export interface JoinOption<T extends JoinOptionValue = JoinOptionValue> {
  /** What it is. */
  readonly kind: JoinOptionKind;
  /** `int` and `number`: the lowest value accepted. */
  readonly min?: number;
  /** `int` and `number`: the highest value accepted; `text`: the longest string (UTF-16 units). */
  readonly max?: number;
  /** `oneOf`: the values accepted. */
  readonly values?: readonly string[];
  /** What a join that leaves the option out gets; without one the option is absent then. */
  readonly default?: T;
  /** Type carrier only, never set: the value's type. */
  readonly valueType?: T;
}

/** A {@link JoinOption} with a default: always present in what the game gets. */
export type DefaultedJoinOption<T extends JoinOptionValue> = JoinOption<T> & {
  /** What a join that leaves the option out gets. */
  readonly default: T;
};

/** The options of a declaration, by name. */
export type JoinOptionFields = Record<string, JoinOption<any>>;

/** A game's declared join options ({@link defineJoinOptions}). */
export interface JoinOptionsDecl<F extends JoinOptionFields = JoinOptionFields> {
  /** The options, by name. */
  readonly fields: F;
}

/** Longest JSON text of one join's options, in UTF-8 bytes (the hello's, a match request's). */
export const MAX_JOIN_OPTIONS_BYTES = 512;

/** Most options one declaration may declare. */
export const MAX_JOIN_OPTIONS = 32;

/** Join option names: short identifiers (as metadata keys). */
export const JOIN_OPTION_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;

/** Longest value of a `oneOf` option. */
const MAX_CHOICE_LENGTH = 64;

type ValueOf<O> = O extends JoinOption<infer T> ? T : never;
type Defaulted<F> = { [K in keyof F]: F[K] extends { readonly default: JoinOptionValue } ? K : never }[keyof F];

/** What a client may send for declaration fields `F`: every option may be left out. */
export type JoinOptionsInput<F> = { -readonly [K in keyof F]?: ValueOf<F[K]> };

/**
 * What the game gets for declaration fields `F` (`Player.options`): checked, with the defaults
 * filled in, so an option with a default is always there.
 */
export type PlayerOptions<F> = { readonly [K in Defaulted<F>]: ValueOf<F[K]> } & { readonly [K in Exclude<keyof F, Defaulted<F>>]?: ValueOf<F[K]> };

/** Checked join options as a room holds them, whatever the game declared. */
export type JoinOptionValues = Readonly<Record<string, JoinOptionValue>>;

function option<T extends JoinOptionValue>(o: JoinOption<T>, settings: { default?: T } | undefined): JoinOption<T> {
  const made = settings && settings.default !== undefined ? { ...o, default: settings.default } : o;
  if (made.default !== undefined) {
    const problem = valueProblem(made, made.default);
    if (problem) throw new RangeError(`join option default ${JSON.stringify(made.default)}: ${problem}`);
  }
  return Object.freeze(made);
}

function checkRange(min: number, max: number, int: boolean): void {
  if (!Number.isFinite(min) || !Number.isFinite(max) || min > max || (int && !(Number.isSafeInteger(min) && Number.isSafeInteger(max)))) {
    throw new RangeError(`join option range ${min}..${max} is not ${int ? "two safe integers" : "two finite numbers"}, lowest first`);
  }
}

/** The makers of {@link joinOption}: each option typed optional, or always present when given a default. */
export interface JoinOptionMakers {
  /** A whole number in `min..max`. */
  int(min: number, max: number): JoinOption<number>;
  /** A whole number in `min..max`, `default` when left out. */
  int(min: number, max: number, settings: { default: number }): DefaultedJoinOption<number>;
  /** A finite number in `min..max`. */
  number(min: number, max: number): JoinOption<number>;
  /** A finite number in `min..max`, `default` when left out. */
  number(min: number, max: number, settings: { default: number }): DefaultedJoinOption<number>;
  /** A string of at most `maxLength` UTF-16 units (1..{@link MAX_JOIN_OPTIONS_BYTES}). */
  text(maxLength: number): JoinOption<string>;
  /** A string of at most `maxLength` UTF-16 units, `default` when left out. */
  text(maxLength: number, settings: { default: string }): DefaultedJoinOption<string>;
  /** `true` or `false`. */
  flag(): JoinOption<boolean>;
  /** `true` or `false`, `default` when left out. */
  flag(settings: { default: boolean }): DefaultedJoinOption<boolean>;
  /** One of `values` (strings of at most 64 UTF-16 units). */
  oneOf<const V extends readonly [string, ...string[]]>(values: V): JoinOption<V[number]>;
  /** One of `values`, `default` when left out. */
  oneOf<const V extends readonly [string, ...string[]]>(values: V, settings: { default: V[number] }): DefaultedJoinOption<V[number]>;
}

/**
 * The kinds of join option, for {@link defineJoinOptions}. Each takes its range or size and,
 * optionally, `{ default }`: an option with a default is always in what the game gets; without
 * one it is absent when the player leaves it out.
 *
 * @throws RangeError for a range, size or choice list that cannot be, or a default outside it.
 * @example
 * ```ts
 * const tagOptions = defineJoinOptions({
 *   team: joinOption.oneOf(["red", "blue"]),
 *   level: joinOption.int(1, 99, { default: 1 }),
 *   skin: joinOption.text(24),
 *   hardcore: joinOption.flag({ default: false }),
 * });
 * ```
 */
export const joinOption: JoinOptionMakers = {
  int(min: number, max: number, settings?: { default?: number }): JoinOption<number> {
    checkRange(min, max, true);
    return option<number>({ kind: "int", min, max }, settings);
  },
  number(min: number, max: number, settings?: { default?: number }): JoinOption<number> {
    checkRange(min, max, false);
    return option<number>({ kind: "number", min, max }, settings);
  },
  text(maxLength: number, settings?: { default?: string }): JoinOption<string> {
    if (!Number.isInteger(maxLength) || maxLength < 1 || maxLength > MAX_JOIN_OPTIONS_BYTES) throw new RangeError(`join option text length must be 1..${MAX_JOIN_OPTIONS_BYTES}`);
    return option<string>({ kind: "text", max: maxLength }, settings);
  },
  flag(settings?: { default?: boolean }): JoinOption<boolean> {
    return option<boolean>({ kind: "flag" }, settings);
  },
  oneOf(values: readonly string[], settings?: { default?: string }): JoinOption<string> {
    if (!Array.isArray(values) || values.length === 0 || values.some((v) => typeof v !== "string" || v.length > MAX_CHOICE_LENGTH)) {
      throw new RangeError(`join option choices must be 1 or more strings of at most ${MAX_CHOICE_LENGTH} units`);
    }
    return option<string>({ kind: "oneOf", values: Object.freeze([...values]) }, settings);
  },
} as JoinOptionMakers;

/**
 * Declares a game's join options for `defineGameTypes({ …, joinOptions })` and its
 * `GameDefinition.joinOptions` (one constant, both places): names of
 * {@link JOIN_OPTION_NAME_PATTERN}, at most {@link MAX_JOIN_OPTIONS}, each a {@link joinOption}.
 *
 * @throws RangeError for a bad name, a field that is not a `joinOption`, or too many options.
 */
export function defineJoinOptions<const F extends JoinOptionFields>(fields: F): JoinOptionsDecl<F> {
  const names = Object.keys(fields);
  if (names.length > MAX_JOIN_OPTIONS) throw new RangeError(`at most ${MAX_JOIN_OPTIONS} join options`);
  for (const name of names) {
    if (!JOIN_OPTION_NAME_PATTERN.test(name)) throw new RangeError(`join option name ${JSON.stringify(name)} is not 1-32 of A-Z a-z 0-9 _ (not starting with a digit)`);
    const o = fields[name];
    if (!o || typeof o !== "object" || typeof o.kind !== "string") throw new RangeError(`join option ${name} is not a joinOption`);
  }
  return Object.freeze({ fields: Object.freeze({ ...fields }) });
}

/** Why a join's options were refused: the option named (null when the whole is at fault) and a reason naming it. */
export interface JoinOptionsRefusal {
  /** Refused. */
  ok: false;
  /** The option at fault, or null (not an object, not JSON, too large). */
  field: string | null;
  /** What was wrong, naming the option (client-safe). */
  reason: string;
}

/** A join's options, checked. */
export interface JoinOptionsAccepted {
  /** Accepted. */
  ok: true;
  /** The options, with the declaration's defaults filled in. */
  options: JoinOptionValues;
}

function shown(v: unknown): string {
  const text = typeof v === "string" ? JSON.stringify(v.length > 24 ? `${v.slice(0, 24)}…` : v) : typeof v === "object" ? (v === null ? "null" : Array.isArray(v) ? "an array" : "an object") : String(v);
  return text;
}

/** What is wrong with `v` as a value of option `o`, or null. */
function valueProblem(o: JoinOption, v: unknown): string | null {
  switch (o.kind) {
    case "int":
      if (typeof v !== "number" || !Number.isInteger(v)) return `must be a whole number, not ${shown(v)}`;
      return v < o.min! || v > o.max! ? `must be in ${o.min}..${o.max}, not ${v}` : null;
    case "number":
      if (typeof v !== "number" || !Number.isFinite(v)) return `must be a number, not ${shown(v)}`;
      return v < o.min! || v > o.max! ? `must be in ${o.min}..${o.max}, not ${v}` : null;
    case "text":
      if (typeof v !== "string") return `must be a string, not ${shown(v)}`;
      return v.length > o.max! ? `must be at most ${o.max} characters, not ${v.length}` : null;
    case "flag":
      return typeof v === "boolean" ? null : `must be true or false, not ${shown(v)}`;
    case "oneOf":
      return typeof v === "string" && o.values!.includes(v) ? null : `must be one of ${o.values!.map((c) => JSON.stringify(c)).join(", ")}, not ${shown(v)}`;
  }
}

function refused(field: string | null, reason: string): JoinOptionsRefusal {
  return { ok: false, field, reason };
}

/**
 * Checks a join's options (already parsed from JSON; `undefined` or `null`: none) against a
 * declaration (none: no option is accepted): a plain object whose every key is declared and whose
 * every value is of its option's type and range, at most {@link MAX_JOIN_OPTIONS_BYTES} of JSON.
 * The accepted options carry the declaration's defaults. The refusal names the first option at
 * fault. Never throws.
 */
export function readJoinOptions(decl: JoinOptionsDecl | null | undefined, value: unknown): JoinOptionsAccepted | JoinOptionsRefusal {
  if (value === undefined || value === null) value = {};
  if (typeof value !== "object" || Array.isArray(value)) return refused(null, `join options must be a JSON object, not ${shown(value)}`);
  const given = value as Record<string, unknown>;
  const fields: JoinOptionFields = decl?.fields ?? {};
  const out: Record<string, JoinOptionValue> = {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(fields, key)) {
      const name = JSON.stringify(key.length > 32 ? `${key.slice(0, 32)}…` : key);
      return refused(key, decl ? `unknown join option ${name}` : `unknown join option ${name}: this game takes none`);
    }
    const problem = valueProblem(fields[key]!, given[key]);
    if (problem) return refused(key, `join option "${key}" ${problem}`);
    out[key] = given[key] as JoinOptionValue;
  }
  for (const key of Object.keys(fields)) {
    const fallback = fields[key]!.default;
    if (!Object.hasOwn(out, key) && fallback !== undefined) out[key] = fallback;
  }
  return { ok: true, options: out };
}

/**
 * Checks a join's options as JSON text (a hello's; empty: none): at most
 * {@link MAX_JOIN_OPTIONS_BYTES} bytes of UTF-8, JSON, then {@link readJoinOptions}. Never throws.
 */
export function parseJoinOptions(decl: JoinOptionsDecl | null | undefined, text: string): JoinOptionsAccepted | JoinOptionsRefusal {
  if (text === "") return readJoinOptions(decl, undefined);
  const bytes = text.length > MAX_JOIN_OPTIONS_BYTES / 3 ? textEncoder.encode(text).length : text.length;
  if (bytes > MAX_JOIN_OPTIONS_BYTES) return refused(null, `join options are ${bytes} bytes of JSON, over ${MAX_JOIN_OPTIONS_BYTES}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refused(null, "join options are not JSON");
  }
  return readJoinOptions(decl, value);
}

/** {@link parseJoinOptions} of a value a body carried: measured as its JSON text. */
export function checkJoinOptionsValue(decl: JoinOptionsDecl | null | undefined, value: unknown): JoinOptionsAccepted | JoinOptionsRefusal {
  if (value === undefined || value === null) return readJoinOptions(decl, undefined);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return refused(null, "join options are not JSON");
  }
  return parseJoinOptions(decl, text ?? "");
}
