import { type Field, FieldCode, checkCount } from "./field";
import { fnv1a32 } from "./schemaHash";

/** Fields of one entity type, by name, in wire order (declaration order). */
export type TypeDecl = Record<string, Field<any>>;

/** Entity types of a room, by name, in wire order (declaration order). */
export type SchemaDecl = Record<string, TypeDecl>;

/** The JS value type of a field. */
export type FieldValue<F> = F extends Field<infer V> ? V : never;

/** The record a game writes (server) and a client reads, for one entity type declaration. */
export type EntityRecord<T extends TypeDecl> = { -readonly [K in keyof T]: FieldValue<T[K]> };

/** The record type of entity type `K` of schema `S`. */
export type RecordOf<S extends Schema<any>, K extends TypeName<S>> =
  S extends Schema<infer D> ? EntityRecord<D[K]> : never;

/** The entity type names of schema `S`. */
export type TypeName<S extends Schema<any>> = S extends Schema<infer D> ? keyof D & string : never;

/** Most fields one entity type may declare: the update bitmask is one 32-bit word. */
export const MAX_FIELDS_PER_TYPE = 32;

/** Most entity types one schema may declare. */
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

/** One declared entity type, resolved. */
export interface EntityType {
  /** The type's name in the declaration. */
  readonly name: string;
  /** Wire tag of the type. */
  readonly index: number;
  /** Its fields, in declaration order. */
  readonly fields: readonly FieldInfo[];
  /** Bit mask with one bit per field. */
  readonly allMask: number;
  /** Index of the numeric `x` / `y` fields, or -1: types with both have a position for AOI. */
  readonly xIndex: number;
  /** Index of the numeric `y` field, or -1. */
  readonly yIndex: number;
}

/**
 * A room's entity schema: the one declaration that drives server encode, client decode and
 * the load tool. Build it with {@link defineSchema}.
 */
export class Schema<D extends SchemaDecl = SchemaDecl> {
  // Declared, not defined: the constructor sets each (see Field for why).
  /** The declaration as given (for type inference and introspection). */
  declare readonly decl: D;
  /** The declared entity types, in declaration order (wire tags 0, 1, …). */
  declare readonly types: readonly EntityType[];
  /** Largest field count over all types (stride of per-entity quantized stores). */
  declare readonly maxFields: number;
  /** Stable u32 hash of the declaration; clients refuse frames from a different schema. */
  declare readonly hash: number;

  constructor(decl: D) {
    const names = Object.keys(decl);
    checkCount("schema entity type count", names.length, MAX_TYPES);
    let canonical = "tikron-schema-1";
    this.types = names.map((name, typeIndex): EntityType => {
      const typeDecl = decl[name];
      const fieldNames = Object.keys(typeDecl);
      checkCount(`type ${name} field count`, fieldNames.length, MAX_FIELDS_PER_TYPE, 0);
      if (fieldNames.includes("__proto__")) throw new TypeError(`type ${name}: field name __proto__ is not allowed`);
      const fields = fieldNames.map((fname, index): FieldInfo => ({ name: fname, index, field: typeDecl[fname] }));
      canonical += `|${name}{${fields.map((f) => `${f.name}:${f.field.descriptor}`).join(",")}}`;
      // A position needs both fields declared and numeric: the codes below Bool (quant, angle,
      // integers). An undeclared field (index -1) reads as undefined, which compares false.
      const xIndex = fieldNames.indexOf("x");
      const yIndex = fieldNames.indexOf("y");
      const positioned = fields[xIndex]?.field.code < FieldCode.Bool && fields[yIndex]?.field.code < FieldCode.Bool;
      return {
        name,
        index: typeIndex,
        fields,
        allMask: fields.length === 32 ? -1 : (1 << fields.length) - 1,
        xIndex: positioned ? xIndex : -1,
        yIndex: positioned ? yIndex : -1,
      };
    });
    this.decl = decl;
    this.maxFields = Math.max(...this.types.map((t) => t.fields.length));
    this.hash = fnv1a32(canonical);
  }

  /** The resolved type called `name` (throws on an unknown name: a programming error). */
  type(name: string): EntityType {
    // A scan, not a map: schemas declare a few types and this runs per spawn, not per message.
    const t = this.types.find((type) => type.name === name);
    if (!t) throw new TypeError(`unknown entity type ${name}`);
    return t;
  }
}

/**
 * Declares a room's entity types and their fields, e.g.
 * `defineSchema({ orb: { x: quant(0, 8192, 1/16), y: quant(0, 8192, 1/16), color: u8() } })`.
 * Order matters: types and fields are tagged on the wire by declaration position, and the
 * order is part of {@link Schema.hash}.
 */
export function defineSchema<D extends SchemaDecl>(decl: D): Schema<D> {
  return new Schema(decl);
}

/** The stable u32 hash of a schema's declaration (what welcome carries). */
export function schemaHash(schema: Schema<any>): number {
  return schema.hash;
}
