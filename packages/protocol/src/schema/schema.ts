import { type EntityRecord, type FieldInfo, type TypeDecl, MAX_TYPES, resolveFields, typeText } from "./decl";
import type { EventDecl, EventSchema } from "./events";
import type { InputSchema } from "./inputs";
import { checkCount } from "./field";
import { fnv1a32 } from "./schemaHash";

export { type TypeDecl, type FieldValue, type EntityRecord, type FieldInfo, MAX_FIELDS_PER_TYPE, MAX_TYPES } from "./decl";

/** Entity types of a room, by name, in wire order (declaration order). */
export type SchemaDecl = Record<string, TypeDecl>;

/** The record type of entity type `K` of schema `S`. */
export type RecordOf<S extends Schema<any, any, any>, K extends TypeName<S>> =
  S extends Schema<infer D, any, any> ? EntityRecord<D[K]> : never;

/** The entity type names of schema `S`. */
export type TypeName<S extends Schema<any, any, any>> = S extends Schema<infer D, any, any> ? keyof D & string : never;

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
export interface SchemaOptions<V extends EventDecl, I = never> {
  /** The room's declared events (`defineEvents`): what `ctx.emit` takes and clients decode. */
  events?: EventSchema<V>;
  /**
   * The room's declared inputs (`defineInput`, `defineInputs`): what clients send, the codec
   * both ends run and the ranges the room checks. Without it, inputs are bytes of the game's own.
   */
  inputs?: InputSchema<I>;
}

/**
 * A room's entity schema: the one declaration that drives server encode, client decode and
 * the load tool, and, when declared, its events and inputs. Build it with {@link defineSchema}.
 * `V` is the events' declaration (`{}` without events), `I` the declared input (`never` without);
 * written by hand, `Schema<D>` takes a schema of any events and inputs.
 */
export class Schema<D extends SchemaDecl = SchemaDecl, V extends EventDecl = any, I = any> {
  // Declared, not defined: the constructor sets each (see Field for why).
  /** The declaration as given (for type inference and introspection). */
  declare readonly decl: D;
  /** The declared entity types, in declaration order (wire tags 0, 1, …). */
  declare readonly types: readonly EntityType[];
  /** Stable u32 hash of the declaration; clients refuse frames from a different schema. */
  declare readonly hash: number;
  /** The declared events, or null when the room declares none (its events are then bytes of its own). */
  declare readonly events: EventSchema<V> | null;
  /** The declared inputs, or null when the room declares none (its inputs are then bytes of its own). */
  declare readonly inputs: InputSchema<I> | null;

  constructor(decl: D, options: SchemaOptions<V, I> = {}) {
    const names = Object.keys(decl);
    checkCount("schema entity type count", names.length, MAX_TYPES);
    let canonical = "tikron-schema-1";
    this.types = names.map((name, typeIndex): EntityType => {
      const fields = resolveFields(`type ${name}`, decl[name]!);
      canonical += `|${typeText(name, fields)}`;
      return { name, index: typeIndex, fields, allMask: fields.length === 32 ? -1 : (1 << fields.length) - 1 };
    });
    this.decl = decl;
    // Each appended only when declared (`|events:…`, then `|inputs:…`), so a schema without them
    // keeps the hash it always had. One loop for both: it ships in every page.
    for (const part of ["events", "inputs"] as const) {
      const declared = ((this as { [K in typeof part]: { descriptor: string } | null })[part] = options[part] ?? null);
      if (declared) canonical += `|${part}:${declared.descriptor}`;
    }
    this.hash = fnv1a32(canonical);
  }
}

/**
 * Declares a room's entity types and their fields, e.g.
 * `defineSchema({ orb: { x: quant(0, 8192, 1/16), y: quant(0, 8192, 1/16), color: u8() } })`,
 * and optionally its events and inputs: `defineSchema(types, { events: defineEvents({ … }),
 * inputs: defineInput({ … }) })`. Order matters: types and fields are tagged on the wire by
 * declaration position, and the order is part of {@link Schema.hash} (so are the events and the
 * inputs: a client and a room that read inputs differently refuse each other at the welcome).
 */
export function defineSchema<D extends SchemaDecl, V extends EventDecl = {}, I = never>(decl: D, options: SchemaOptions<V, I> = {}): Schema<D, V, I> {
  return new Schema(decl, options);
}

/** The stable u32 hash of a schema's declaration (what welcome carries). */
export function schemaHash(schema: Schema<any, any, any>): number {
  return schema.hash;
}
