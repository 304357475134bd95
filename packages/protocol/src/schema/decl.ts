import { type Field, checkCount } from "./field";

/*
 * What entity types and event kinds share: a set of named fields in wire order, its limits, the
 * record a game writes and a client reads, and the one rule that resolves a declaration.
 */

/** Fields of one entity type (or event kind), by name, in wire order (declaration order). */
export type TypeDecl = Record<string, Field<any>>;

/** The JS value type of a field. */
export type FieldValue<F> = F extends Field<infer V> ? V : never;

/** The record a game writes (server) and a client reads, for one entity type declaration. */
export type EntityRecord<T extends TypeDecl> = { -readonly [K in keyof T]: FieldValue<T[K]> };

/** Most fields one entity type (or event kind) may declare: the update bitmask is one 32-bit word. */
export const MAX_FIELDS_PER_TYPE = 32;

/** Most entity types one schema (or event kinds one event declaration) may declare: tags are one byte. */
export const MAX_TYPES = 256;

/** One declared field, resolved: its name, its position in the type, its kind. */
export interface FieldInfo {
  /** The field's name in the declaration. */
  readonly name: string;
  /** Position in the type (bit in the update mask, slot in quantized stores). */
  readonly index: number;
  /** The declared field. */
  readonly field: Field;
}

/**
 * The fields of `decl` (entity type or event kind `owner`), in declaration order. Refuses more
 * than {@link MAX_FIELDS_PER_TYPE} fields and a field called `__proto__` (it would not survive
 * as a plain property of the records).
 */
export function resolveFields(owner: string, decl: TypeDecl): FieldInfo[] {
  const names = Object.keys(decl);
  checkCount(`${owner} field count`, names.length, MAX_FIELDS_PER_TYPE, 0);
  if (names.includes("__proto__")) throw new TypeError(`${owner}: field name __proto__ is not allowed`);
  return names.map((name, index): FieldInfo => ({ name, index, field: decl[name]! }));
}

/** The canonical text of a type (or event kind) `name` with `fields`, as schema hashes are built from. */
export function typeText(name: string, fields: readonly FieldInfo[]): string {
  return `${name}{${fields.map((f) => `${f.name}:${f.field.descriptor}`).join(",")}}`;
}
