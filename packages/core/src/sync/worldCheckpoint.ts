/**
 * A {@link SyncWorld}'s entities as a JSON-able value and back: the world part of a ticking
 * game's `checkpoint()` / `restore()`; whole, or as a chain of pieces that each hold only what
 * changed since the one before ({@link WorldChain}), so a host can keep a world every second.
 *
 * The entities are written in the delta format a client reads, every one as an enter, from the
 * values the world quantized at its last flush (what the players were last shown), and read back
 * with the protocol's own `ClientView`: no second codec to keep in step with the schema, and the
 * schema's quantization makes them compact (an agar cell is about 20 bytes, an orb 10). A chain's
 * later pieces are delta bodies too (leaves for entities gone, enters for entities new or
 * changed, whole), applied in order to the same view.
 */
import { ClientView, FrameWriter, writeDeltaSections, type AnyViewEntity, type Schema, type SchemaDecl } from "@tikron/protocol";
import { fromBase64Url, toBase64Url } from "../base64url";
import { EntityRow } from "./entityRow";
import { writeEnter } from "./entityWire";
import { growInt32 } from "./quantizedStore";
import { MAX_RESTORED_ENTITY_ID, type SyncWorld } from "./syncWorld";

/** A world's entities as {@link checkpointWorld} saves them. JSON-able. */
export interface WorldCheckpoint {
  /** The schema's hash: a checkpoint is read back only with the schema it was written with. */
  schema: number;
  /**
   * Every entity, as one delta body of enters in base64url (empty for an empty world); in a
   * chain's piece n ≥ 1, only the changes since piece n − 1 (leaves and enters).
   */
  entities: string;
  /** Delta bodies applied after {@link entities}, in order: a chain read back whole ({@link joinWorldChain}). */
  changes?: string[];
  /**
   * Set on a piece of a {@link WorldChain}: its place in the chain (0: a base, which is a whole
   * checkpoint by itself; n ≥ 1: the changes since piece n − 1, which is not).
   */
  piece?: number;
}

/** A world checkpoint read back: each saved entity with its id, type and record. */
export type SavedEntity<D extends SchemaDecl> = AnyViewEntity<D>;

/** Reused by every checkpoint of the isolate: checkpoints are taken one at a time, off the tick. */
const scratch = new FrameWriter(16 * 1024);

/**
 * Every live entity of `world` with its id, type and quantized fields (see the module comment);
 * while a room keeps `world` as a chain (it hands the world its {@link WorldChain} for the
 * duration of the game's `checkpoint()`), the chain's next piece instead.
 */
export function checkpointWorld<D extends SchemaDecl>(world: SyncWorld<D>): WorldCheckpoint {
  if (world.chain) return world.chain.take(world as unknown as SyncWorld) as WorldCheckpoint;
  const w = scratch.reset();
  world.writeAll(w);
  return { schema: world.schema.hash, entities: toBase64Url(w.peek()) };
}

/**
 * The entities of a {@link WorldCheckpoint} written with `schema`, by id, to spawn again with
 * their ids (`SpawnOptions.id`): its entities, then each of its changes in order. Throws on
 * anything else: another schema, text that is not base64url, a body that does not decode, an id a
 * world would not restore, a chain's later piece on its own.
 */
export function readWorldCheckpoint<D extends SchemaDecl>(schema: Schema<D>, value: unknown): Map<number, SavedEntity<D>> {
  const c = value as Partial<WorldCheckpoint> | null;
  if (!c || typeof c !== "object" || typeof c.entities !== "string") throw new Error("not a world checkpoint");
  if (c.schema !== schema.hash) throw new Error(`world checkpoint of schema ${c.schema}, not ${schema.hash}`);
  if (c.piece !== undefined && c.piece !== 0) throw new Error(`piece ${c.piece} of a world checkpoint chain holds only changes: read the chain back whole`);
  const changes = c.changes ?? [];
  if (!Array.isArray(changes) || !changes.every((x) => typeof x === "string")) throw new Error("world checkpoint changes are not a list of bodies");
  const view = new ClientView(schema);
  for (const text of [c.entities, ...changes]) {
    const body = fromBase64Url(text);
    if (!body) throw new Error("world checkpoint entities are not base64url");
    if (body.length === 0) continue;
    const failure = view.apply(body);
    if (failure) throw new Error(`world checkpoint does not decode: ${failure.message}`);
  }
  const out = new Map<number, SavedEntity<D>>();
  for (const e of view.values()) {
    if (e.id > MAX_RESTORED_ENTITY_ID) throw new Error(`world checkpoint entity id ${e.id} is out of range`);
    out.set(e.id, e);
  }
  return out;
}

/**
 * The pieces of one chain, base first, as one whole checkpoint (the base's entities, the later
 * pieces' bodies as its changes). Throws when they are not one chain: a base, then pieces 1, 2, …
 * of the same schema.
 */
export function joinWorldChain(pieces: readonly WorldCheckpoint[]): WorldCheckpoint {
  const base = pieces[0];
  if (!base || (base.piece ?? 0) !== 0) throw new Error("a world checkpoint chain starts with a base");
  const changes: string[] = [];
  for (let i = 1; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (p.piece !== i || p.schema !== base.schema) throw new Error(`world checkpoint chain: piece ${i} is not the next of this chain`);
    if (p.entities !== "") changes.push(p.entities);
  }
  return { schema: base.schema, entities: base.entities, ...(changes.length > 0 ? { changes } : {}) };
}

/**
 * The world piece a game's checkpoint holds (the value `checkpointWorld` returned while the room
 * kept its world as a chain), found in the JSON value wherever the game put it; null when there
 * is none. Returned by reference: a host puts the chain read back whole in its place.
 */
export function findWorldPiece(state: unknown, depth = 4): WorldCheckpoint | null {
  if (state === null || typeof state !== "object" || depth < 0) return null;
  const o = state as Record<string, unknown>;
  if (Number.isInteger(o.piece) && typeof o.schema === "number" && typeof o.entities === "string") return o as unknown as WorldCheckpoint;
  for (const v of Array.isArray(state) ? state : Object.values(o)) {
    const found = findWorldPiece(v, depth - 1);
    if (found) return found;
  }
  return null;
}

/** What decides when a chain starts over with a base. */
export interface WorldChainLimits {
  /** Most pieces in one chain (base included): the next is a base. */
  maxPieces: number;
  /**
   * A new base once the changes since the last one reach this many times its size: a chain read
   * back stays within a few bases' work, whatever the world does.
   */
  maxChangeRatio: number;
}

/** The default limits: a base at least every 30 pieces (30 s at one a second), or once the changes weigh two bases. */
export const WORLD_CHAIN_LIMITS: WorldChainLimits = { maxPieces: 30, maxChangeRatio: 2 };

/**
 * A world kept as a chain of checkpoint pieces (see {@link WorldCheckpoint.piece}): a base with
 * every entity, then pieces holding only the entities spawned, changed or gone since the piece
 * before, as the world quantized them at its last flush. What changed is read off the world's own
 * rows (a spawn serial per slot, the epoch of each entity's last change), so taking a piece costs a
 * walk over the slots and the encoding of what changed, not of the world.
 *
 * A piece is taken once and assumed kept: a host that lost one calls {@link rebase}, so the next
 * piece is whole again.
 */
export class WorldChain {
  /** The spawn serial each slot had at the last piece (0: no entity was there). */
  #serials = new Int32Array(0);
  /** The world's flush epoch at the last piece: entities changed after it go in the next. */
  #epoch = 0;
  /** Index of the next piece (0: a base). */
  #next = 0;
  #baseChars = 0;
  #changeChars = 0;
  /** Pieces taken so far (a caller tells whether a checkpoint took one). */
  taken = 0;
  /** The index of the last piece taken (−1 before the first). */
  lastPiece = -1;

  constructor(private readonly limits: WorldChainLimits = WORLD_CHAIN_LIMITS) {}

  /** The next piece is a base: every entity again (a host lost a piece, or starts a new chain). */
  rebase(): void {
    this.#next = 0;
  }

  /** The next piece of `world`: a base, or its changes since the last piece. */
  take(world: SyncWorld): WorldCheckpoint {
    const { maxPieces, maxChangeRatio } = this.limits;
    if (this.#next >= maxPieces || this.#changeChars > maxChangeRatio * Math.max(1, this.#baseChars)) this.#next = 0;
    const piece = this.#next;
    const w = scratch.reset();
    if (piece === 0) world.writeAll(w);
    else this.writeChanges(world, w);
    const entities = toBase64Url(w.peek());
    if (piece === 0) {
      this.#baseChars = entities.length;
      this.#changeChars = 0;
    } else this.#changeChars += entities.length;
    this.remember(world);
    this.#next = piece + 1;
    this.lastPiece = piece;
    this.taken++;
    return { schema: world.schema.hash, entities, piece };
  }

  /** Leaves for the entities gone since the last piece, enters for those new or changed. */
  private writeChanges(world: SyncWorld, w: FrameWriter): void {
    const saved = this.#serials;
    const rows = world.rows;
    const rowSize = world.rowSize;
    let leaves = 0;
    for (let id = 0; id < saved.length; id++) if (saved[id] !== 0 && !world.isAlive(id)) leaves++;
    let enters = 0;
    for (let i = 0; i < world.size; i++) if (this.changed(world, world.live[i]!, rows, rowSize)) enters++;
    if (leaves === 0 && enters === 0) return;
    writeDeltaSections(w, leaves, enters, 0);
    if (leaves > 0) {
      w.varuint(leaves);
      for (let id = 0; id < saved.length; id++) if (saved[id] !== 0 && !world.isAlive(id)) w.varuint(id);
    }
    if (enters > 0) {
      w.varuint(enters);
      for (let i = 0; i < world.size; i++) {
        const id = world.live[i]!;
        // An enter of an id the view holds replaces it: a changed entity goes whole.
        if (this.changed(world, id, rows, rowSize)) writeEnter(world, w, id);
      }
    }
  }

  /** Whether live entity `id` is not in the last piece as it is now: spawned (into the slot) or changed since. */
  private changed(world: SyncWorld, id: number, rows: Int32Array, rowSize: number): boolean {
    const row = id * rowSize;
    return (id >= this.#serials.length ? 0 : this.#serials[id]) !== rows[row + EntityRow.Serial] || rows[row + EntityRow.ChangedAt] > this.#epoch;
  }

  /** Notes what the piece just taken holds: each slot's serial (0 where none lives), the epoch. */
  private remember(world: SyncWorld): void {
    if (this.#serials.length < world.capacity) this.#serials = growInt32(this.#serials, world.capacity);
    const saved = this.#serials;
    for (let id = 0; id < saved.length; id++) saved[id] = world.serialOf(id);
    this.#epoch = world.epoch;
  }
}
