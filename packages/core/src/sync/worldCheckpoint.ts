/**
 * A {@link SyncWorld}'s entities as a JSON-able value and back: the world part of a ticking
 * game's `checkpoint()` / `restore()`.
 *
 * The entities are written in the delta format a client reads, every one as an enter, from the
 * values the world quantized at its last flush (what the players were last shown), and read back
 * with the protocol's own `ClientView`: no second codec to keep in step with the schema, and the
 * schema's quantization makes them compact (an agar cell is about 20 bytes, an orb 10).
 */
import { ClientView, FrameWriter, type AnyViewEntity, type Schema, type SchemaDecl } from "@tikron/protocol";
import { fromBase64Url, toBase64Url } from "../base64url";
import { MAX_RESTORED_ENTITY_ID, type SyncWorld } from "./syncWorld";

/** A world's entities as {@link checkpointWorld} saves them. JSON-able. */
export interface WorldCheckpoint {
  /** The schema's hash: a checkpoint is read back only with the schema it was written with. */
  schema: number;
  /** Every entity, as one delta body of enters in base64url (empty for an empty world). */
  entities: string;
}

/** A world checkpoint read back: each saved entity with its id, type and record. */
export type SavedEntity<D extends SchemaDecl> = AnyViewEntity<D>;

/** Reused by every checkpoint of the isolate: checkpoints are taken one at a time, off the tick. */
const scratch = new FrameWriter(16 * 1024);

/** Every live entity of `world` with its id, type and quantized fields (see the module comment). */
export function checkpointWorld<D extends SchemaDecl>(world: SyncWorld<D>): WorldCheckpoint {
  const w = scratch.reset();
  world.writeAll(w);
  return { schema: world.schema.hash, entities: toBase64Url(w.peek()) };
}

/**
 * The entities of a {@link WorldCheckpoint} written with `schema`, by id, to spawn again with
 * their ids (`SpawnOptions.id`). Throws on anything else: another schema, text that is not
 * base64url, a body that does not decode, an id a world would not restore.
 */
export function readWorldCheckpoint<D extends SchemaDecl>(schema: Schema<D>, value: unknown): Map<number, SavedEntity<D>> {
  const c = value as Partial<WorldCheckpoint> | null;
  if (!c || typeof c !== "object" || typeof c.entities !== "string") throw new Error("not a world checkpoint");
  if (c.schema !== schema.hash) throw new Error(`world checkpoint of schema ${c.schema}, not ${schema.hash}`);
  const body = fromBase64Url(c.entities);
  if (!body) throw new Error("world checkpoint entities are not base64url");
  const out = new Map<number, SavedEntity<D>>();
  if (body.length === 0) return out;
  const view = new ClientView(schema);
  const failure = view.apply(body);
  if (failure) throw new Error(`world checkpoint does not decode: ${failure.message}`);
  for (const e of view.values()) {
    if (e.id > MAX_RESTORED_ENTITY_ID) throw new Error(`world checkpoint entity id ${e.id} is out of range`);
    out.set(e.id, e);
  }
  return out;
}
