import { type EntityRecord, type FieldInfo, type TypeDecl, MAX_TYPES, resolveFields, typeText } from "./decl";
import type { EventDecl, EventSchema } from "./events";
import { checkCount } from "./field";
import { fnv1a32 } from "./schemaHash";

export { type TypeDecl, type FieldValue, type EntityRecord, type FieldInfo, MAX_FIELDS_PER_TYPE, MAX_TYPES } from "./decl";

/** Entity types of a room, by name, in wire order (declaration order). */
export type SchemaDecl = Record<string, TypeDecl>;

/** The record type of entity type `K` of schema `S`. */
export type RecordOf<S extends Schema<any, any>, K extends TypeName<S>> =
  S extends Schema<infer D, any> ? EntityRecord<D[K]> : never;

/** The entity type names of schema `S`. */
export type TypeName<S extends Schema<any, any>> = S extends Schema<infer D, any> ? keyof D & string : never;

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
}

/** What {@link defineSchema} takes besides the entity types. */
export interface SchemaOptions<V extends EventDecl> {
  /** The room's declared events (`defineEvents`): what `ctx.emit` takes and clients decode. */
  events?: EventSchema<V>;
}

/**
 * A room's entity schema: the one declaration that drives server encode, client decode and
 * the load tool, and, when declared, its events. Build it with {@link defineSchema}. `V` is the
 * events' declaration (`{}` without events); written by hand, `Schema<D>` takes a schema of any events.
 */
export class Schema<D extends SchemaDecl = SchemaDecl, V extends EventDecl = any> {
  // Declared, not defined: the constructor sets each (see Field for why).
  /** The declaration as given (for type inference and introspection). */
  declare readonly decl: D;
  /** The declared entity types, in declaration order (wire tags 0, 1, …). */
  declare readonly types: readonly EntityType[];
  /** Stable u32 hash of the declaration; clients refuse frames from a different schema. */
  declare readonly hash: number;
  /** The declared events, or null when the room declares none (its events are then bytes of its own). */
  declare readonly events: EventSchema<V> | null;

  constructor(decl: D, options: SchemaOptions<V> = {}) {
    const names = Object.keys(decl);
    checkCount("schema entity type count", names.length, MAX_TYPES);
    let canonical = "tikron-schema-1";
    this.types = names.map((name, typeIndex): EntityType => {
      const fields = resolveFields(`type ${name}`, decl[name]!);
      canonical += `|${typeText(name, fields)}`;
      return { name, index: typeIndex, fields, allMask: fields.length === 32 ? -1 : (1 << fields.length) - 1 };
    });
    this.decl = decl;
    this.events = options.events ?? null;
    // Appended only when declared, so a schema without events keeps the hash it always had.
    if (this.events) canonical += `|events:${this.events.descriptor}`;
    this.hash = fnv1a32(canonical);
  }
}

/**
 * Declares a room's entity types and their fields, e.g.
 * `defineSchema({ orb: { x: quant(0, 8192, 1/16), y: quant(0, 8192, 1/16), color: u8() } })`,
 * and optionally its events: `defineSchema(types, { events: defineEvents({ … }) })`.
 * Order matters: types and fields are tagged on the wire by declaration position, and the
 * order is part of {@link Schema.hash} (so are the events).
 */
export function defineSchema<D extends SchemaDecl, V extends EventDecl = {}>(decl: D, options: SchemaOptions<V> = {}): Schema<D, V> {
  return new Schema(decl, options);
}

/** The stable u32 hash of a schema's declaration (what welcome carries). */
export function schemaHash(schema: Schema<any, any>): number {
  return schema.hash;
}
