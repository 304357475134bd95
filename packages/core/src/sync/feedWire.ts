/**
 * The wire form of the world feed: what a simulation's `WorldFeed` writes and a relay's
 * `MirrorWorld` reads. One home for the layout, so writer and reader cannot drift apart.
 *
 * An **update** (one per flush, the same bytes for every relay):
 *
 *     u8 FeedKind.Update, varuint seq, varuint flushIndex, varuint epoch,
 *     ops…  u8 FeedOp.End                       the grid's history since the last update, in order
 *     varuint n, n × entity state               entities spawned since then and still alive
 *     varuint n, n × entity change              the other entities the flush quantized a change in
 *     varuint n, n × viewer                     viewers the game changed (or new ones)
 *
 * A **snapshot** (for a relay that starts, or missed an update), the state after update `seq`:
 *
 *     u8 FeedKind.Snapshot, u32 schema hash, u32 incarnation, f64 cell size, varuint seq, flushIndex, epoch,
 *     varuint n, n × (varuint id, type, serial, entity state)
 *     varuint n, n × varuint id                 global entities, in the grid's order
 *     varuint n, n × (varuint id, f64 x, f64 y) placed entities, in the grid's scan order
 *     varuint n, n × (varuint id, f64 x, f64 y) entities at a non-finite position (in no cell)
 *     varuint n, n × (varuint id, varint × fields) the last flush's changed entities and their previous values
 *     varuint n, n × viewer
 *
 * Entity state: `varuint id, varuint changedAt`, then per field: a scalar's quantized value
 * (varint: int32 bits), a string's change epoch and its UTF-8, a map's change epoch and its
 * whole `MapFieldState`. Entity change: `varuint id, varuint mask`, then per field in the mask
 * its new value (strings and maps changed at the update's epoch, so it is not repeated; a map
 * sends the keys its last sync removed and set, see `MapFieldState.writeChangeOfLastSync`).
 * Positions are the raw doubles the world gave its grid: query results and squared distances
 * (hence refresh tiers) come out bit for bit the same.
 */
import { type EntityType, FieldCode, type FrameWriter, type SchemaDecl } from "@tikron/protocol";
import { EntityRow } from "./entityRow";
import { writeUtf8 } from "./entityWire";
import type { QuantizedWorld } from "./quantizedWorld";
import type { Viewer } from "./viewer";

/** The first byte of a feed message. */
export const FeedKind = {
  /** What changed in one flush. */
  Update: 1,
  /** The whole world, as of an update. */
  Snapshot: 2,
} as const;

/** One step of the grid history of an update. */
export const FeedOp = {
  End: 0,
  /** `varuint id, type, serial, u8 global`, and `f64 x, f64 y` unless global. */
  Spawn: 1,
  /** `varuint id`. */
  Despawn: 2,
  /** `varuint id, f64 x, f64 y`. */
  Move: 3,
  /** `varuint playerId`: the world forgot this viewer. */
  ViewerGone: 4,
} as const;

/** Writes entity `e` whole from the world's store (see the module comment). */
export function writeEntityState<D extends SchemaDecl>(world: QuantizedWorld<D>, w: FrameWriter, e: number): void {
  const er = e * world.rowSize;
  const rows = world.rows;
  const t: EntityType = world.schema.types[rows[er + EntityRow.Type]];
  w.varuint(e);
  w.varuint(rows[er + EntityRow.ChangedAt]);
  const qo = er + EntityRow.Values;
  const so = e * world.stride;
  const fields = t.fields;
  for (let f = 0; f < fields.length; f++) {
    const code = fields[f].field.code;
    if (code === FieldCode.String) {
      w.varuint(rows[qo + f]);
      writeUtf8(w, world.stringBytes[so + f]!);
    } else if (code === FieldCode.Map) {
      w.varuint(rows[qo + f]);
      world.maps[so + f]!.writeState(w);
    } else {
      w.varint(rows[qo + f]);
    }
  }
}

/** Writes what the last flush changed in entity `e` (it is in `world.changed`). */
export function writeEntityChange<D extends SchemaDecl>(world: QuantizedWorld<D>, w: FrameWriter, e: number): void {
  const er = e * world.rowSize;
  const rows = world.rows;
  const t: EntityType = world.schema.types[rows[er + EntityRow.Type]];
  const qo = er + EntityRow.Values;
  const so = e * world.stride;
  const prev = world.prevValues;
  const fields = t.fields;
  let mask = 0;
  for (let f = 0; f < fields.length; f++) if (rows[qo + f] !== prev[so + f]) mask |= 1 << f;
  w.varuint(e);
  w.varuint(mask >>> 0);
  for (let f = 0; f < fields.length; f++) {
    if ((mask & (1 << f)) === 0) continue;
    const code = fields[f].field.code;
    if (code === FieldCode.String) writeUtf8(w, world.stringBytes[so + f]!);
    else if (code === FieldCode.Map) world.maps[so + f]!.writeChangeOfLastSync(w);
    else w.varint(rows[qo + f]);
  }
}

/** Writes a viewer: `varuint playerId, u8 mode, f64 cx, f64 cy, varint target, varuint targetSerial`. */
export function writeViewer(w: FrameWriter, v: Viewer): void {
  w.varuint(v.playerId);
  w.u8(v.mode);
  w.f64(v.center[0]);
  w.f64(v.center[1]);
  w.varint(v.target);
  w.varuint(v.targetSerial);
}
