import type { BinaryWriter, EventSchema, FrameWriter } from "@tikron/protocol";

/**
 * The seam between the room core's flush and whatever turns game state into bytes per client.
 * The core owns when to flush and to whom; the encoder owns what each client receives. Binary
 * rooms use the schema/AOI/delta engine; JSON rooms use {@link JsonStateSource} instead.
 */
export interface StateEncoder<ClientState = unknown> {
  /** Hash of the entity schema, sent in welcome so clients can refuse a mismatched decoder. */
  readonly schemaHash: number;
  /** The schema's declared events, which the room encodes `ctx.emit`'s event objects with; null (or absent) without. */
  readonly events?: EventSchema | null;
  /** A fresh per-client state (empty baseline). Called on join and on every reconnect. */
  createClient(playerId: number): ClientState;
  /** Drops a client's state when the seat is finally freed. */
  releaseClient(state: ClientState): void;
  /** Once per flush, before any client: quantize the world, settle AOI bookkeeping. */
  beginFlush(flushIndex: number): void;
  /**
   * Writes this client's state delta into `w` (append-only) and returns true, or writes nothing
   * and returns false when the client has nothing new. Must not allocate per call in steady state.
   */
  encodeClient(state: ClientState, w: BinaryWriter): boolean;
  /**
   * True when the client's last {@link encodeClient} left it holding everything it can see as
   * of that flush (nothing held back for a later flush, e.g. by distance tiers). Optional:
   * without it a room never knows its clients settled, and never sleeps.
   */
  settled?(state: ClientState): boolean;
  /**
   * A hash of the world as the last {@link beginFlush} left it (a match log records it after
   * every flush, and a replay compares it: `@tikron/core/replay`). Optional: without it a
   * recorded room's world digest is 0 and a replay checks its frames and records only.
   */
  digest?(): number;
  /**
   * Every entity as one delta body of enters (what a client that saw everything would get), as
   * the last flush quantized them: a replay's whole-world view. Optional; nothing when absent.
   */
  writeWorld?(w: FrameWriter): void;
}

/** State source for JSON (turn-based) rooms: the whole view, sent when it changed. */
export interface JsonStateSource {
  /** The state this player should see, as a JSON-serialisable value. */
  viewFor(playerId: number): unknown;
}
