/**
 * What the server's world reads off a schema beyond what a client decodes with: where each type
 * keeps its position (AOI), the widest type (the row stride) and a type by name. Derived here
 * from the protocol's one declaration (`Schema.types`) rather than stored on it, so a browser page
 * does not bundle what only rooms use.
 */
import { type EntityType, FieldCode, type Schema, checkInputSchema } from "@tikron/protocol";

/**
 * The field indices of a type's position, `[x, y]`, or `[-1, -1]` when it has none (its entities
 * are always global). A position needs both fields declared and numeric: the codes below Bool
 * (quant, angle, integers).
 */
export function positionFields(type: EntityType): readonly [x: number, y: number] {
  const x = type.fields.findIndex((f) => f.name === "x");
  const y = type.fields.findIndex((f) => f.name === "y");
  // An undeclared field (index -1) reads as undefined, which compares false.
  const positioned = type.fields[x]?.field.code < FieldCode.Bool && type.fields[y]?.field.code < FieldCode.Bool;
  return positioned ? [x, y] : [-1, -1];
}

/**
 * Refuses a schema a room cannot run, where a world is made (a page never needs these checks):
 * an entity field that is a float (`f32`, `f64`: inputs only; state is quantized) and declared
 * inputs the room could not read (`checkInputSchema`).
 *
 * @throws TypeError or RangeError naming the field.
 */
export function checkRoomSchema(schema: Schema<any, any, any>): void {
  for (const t of schema.types) {
    for (const f of t.fields) {
      if (f.field.code > FieldCode.Map) throw new TypeError(`type ${t.name}.${f.name}: ${f.field.descriptor} is for declared inputs; state fields are quantized`);
    }
  }
  if (schema.inputs) checkInputSchema(schema.inputs);
}

/** The largest field count over a schema's types (stride of per-entity quantized stores). */
export function maxFields(schema: Schema<any, any>): number {
  return Math.max(...schema.types.map((t) => t.fields.length));
}

/** The resolved type called `name` (throws on an unknown name: a programming error). */
export function typeNamed(schema: Schema<any, any>, name: string): EntityType {
  // A scan, not a map: schemas declare a few types and this runs per spawn, not per message.
  const t = schema.types.find((type) => type.name === name);
  if (!t) throw new TypeError(`unknown entity type ${name}`);
  return t;
}
