/**
 * Writing one entity whole from a world's quantized store: what a client receives when an entity
 * enters its view, and what a world's checkpoint holds for each of its entities (one layout, so a
 * checkpoint reads back with the protocol's own `ClientView`).
 */
import { type EntityType, FieldCode, type FrameWriter, writeScalarFull } from "@tikron/protocol";
import { EntityRow } from "./entityRow";
import type { QuantizedWorld } from "./quantizedWorld";

/** Entity `e` as an enter of the delta format: id, type, every field whole, as last quantized. */
export function writeEnter(world: QuantizedWorld, w: FrameWriter, e: number): void {
  const er = e * world.rowSize;
  const t: EntityType = world.schema.types[world.rows[er + EntityRow.Type]];
  w.varuint(e);
  w.varuint(t.index);
  const qo = er + EntityRow.Values;
  const so = e * world.stride;
  const fields = t.fields;
  for (let f = 0; f < fields.length; f++) {
    const field = fields[f].field;
    const code = field.code;
    if (code === FieldCode.String) writeUtf8(w, world.stringBytes[so + f]!);
    else if (code === FieldCode.Map) world.maps[so + f]!.writeFull(w);
    else writeScalarFull(w, field, world.rows[qo + f]);
  }
}

/**
 * Writes a string field from its UTF-8 bytes, encoded once when the value changed: the same
 * layout as `BinaryWriter.string` (varuint length + bytes) without re-encoding per client.
 */
export function writeUtf8(w: FrameWriter, bytes: Uint8Array): void {
  w.varuint(bytes.length);
  w.bytes(bytes);
}
