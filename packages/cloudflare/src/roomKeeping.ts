/**
 * What a room's object keeps of its room in its own storage, so a restarted (or evicted, or
 * hibernated) object brings the room back: the room's checkpoint (seats, tokens, game state; a
 * relayed room's relay count) and its game's store, read once at construction and written in
 * batches. Apart from `RoomObject` because when and how a room is written is a rule of its own
 * (spacing, confirmed or not, the store only when it changed); the object's entries only say
 * that a write is due.
 */
import type { BusyMeter, HostedRoom, RoomCheckpoint } from "@tikron/core";

/** Storage key of the room's checkpoint (`Room.checkpoint()`): seats, tokens, game state (a ticking game's world too). */
const CHECKPOINT_KEY = "room:checkpoint";
/**
 * The checkpoint as this object stores it: a relayed room's says over how many relays, so a
 * room promoted past its threshold comes back from a restart relayed (its relays link again to
 * a simulation), whatever the rule says for a room made anew. It lives and dies with the
 * checkpoint: a room let go empty is made single again.
 */
type StoredCheckpoint = RoomCheckpoint & { relays?: number };

/** The relay count a stored checkpoint names (0: the room was not relayed, or nothing is stored). */
function storedRelays(saved: unknown): number {
  const k = (saved as StoredCheckpoint | undefined)?.relays;
  return Number.isInteger(k) && (k as number) >= 1 ? (k as number) : 0;
}
/**
 * Storage key of the game's store (`ctx.store`, `Room.storeSnapshot()`): written with the
 * checkpoint, but kept when the room empties (the next room under this id starts from it).
 */
const STORE_KEY = "room:store";
/**
 * Least time between two checkpoint writes: a burst of changes (a join storm, a client looping
 * hello and leave) is written as one, at most this late; a change after a quiet spell is written
 * at once.
 */
const CHECKPOINT_SPACING_MS = 100;

/** What of the object's state its keeping uses: its storage, and `waitUntil` for the writes. */
export type KeepingState = Pick<DurableObjectState, "storage" | "waitUntil">;

/**
 * The checkpoint and store keeping of one room's object. It reads the room it keeps through
 * `current` (null: none made, or it was let go) and the relays that room is relayed over
 * through `relays` (0: a single room), at the moment of each write.
 */
export class RoomKeeping {
  /**
   * The checkpoint found in storage at construction, until a room is made from it (and the
   * promoted room's, while its relayed room is made from it).
   */
  savedCheckpoint: unknown = undefined;
  /** The game's store as storage holds it (read at construction, then as last written). */
  private savedStore: unknown = undefined;
  /** The current room's store version last written (0: what `savedStore` holds). */
  private savedStoreVersion = 0;
  private checkpointTimer: ReturnType<typeof setTimeout> | null = null;
  /** The pending write was asked for by a change (not only the periodic checkpoint): see {@link checkpointDue}. */
  private checkpointConfirmed = false;
  private lastCheckpointAt = -Infinity;

  /** `busy` meters the batched writes' timer, an entry of the object like any other. */
  constructor(
    private readonly state: KeepingState,
    private readonly busy: BusyMeter,
    private readonly current: () => HostedRoom | null,
    private readonly relays: () => number,
  ) {}

  /** Reads the checkpoint and the store from storage (at construction, before any event). */
  async load(): Promise<void> {
    const saved = await this.state.storage.get([CHECKPOINT_KEY, STORE_KEY]);
    this.savedCheckpoint = saved.get(CHECKPOINT_KEY);
    this.savedStore = saved.get(STORE_KEY);
  }

  /** The game's store a new room starts from. */
  get store(): unknown {
    return this.savedStore;
  }

  /** The relay count the saved checkpoint names (0: it was not relayed, or nothing is saved). */
  savedRelays(): number {
    return storedRelays(this.savedCheckpoint);
  }

  /**
   * A room was made (from {@link store}): its store is not written until it changes; the saved
   * checkpoint, if any, is restored into it and dropped.
   */
  roomMade(room: HostedRoom): void {
    this.savedStoreVersion = 0;
    if (this.savedCheckpoint !== undefined) {
      room.restoreCheckpoint(this.savedCheckpoint);
      this.savedCheckpoint = undefined;
    }
  }

  /**
   * Batches checkpoint writes: one pending write at a time, taken on a later turn of the event
   * loop, never inside a tick, and at most one per {@link CHECKPOINT_SPACING_MS}. A change (a
   * seat, a turn-based move, the room going quiet) is written at once, batched within its event,
   * and confirmed before the room's next frames leave (the output gate): it is what a player
   * would lose. A ticking room's periodic checkpoint (`checkpointMs`, asked for right after a
   * tick's flush) is taken in the slack before the next tick and written without holding
   * frames back: the next one follows anyway.
   */
  checkpointDue(soon: boolean): void {
    if (!this.current()) return;
    this.checkpointConfirmed ||= soon;
    if (this.checkpointTimer !== null) return;
    const wait = Math.max(0, this.lastCheckpointAt + CHECKPOINT_SPACING_MS - Date.now());
    this.checkpointTimer = setTimeout(
      this.busy.wrap(() => {
        this.checkpointTimer = null;
        this.lastCheckpointAt = Date.now();
        const confirmed = this.checkpointConfirmed;
        this.checkpointConfirmed = false;
        this.saveCheckpoint(confirmed);
      }),
      wait,
    );
  }

  /**
   * Writes the room's checkpoint (or removes it once the room has no seats) and, when it changed
   * since the last write, the game's store (removed when empty): both in this one turn, so the
   * runtime commits them together. `confirmed`: the room's next frames wait for the write (a
   * seat or a move a player would lose); else they do not (a periodic world checkpoint).
   */
  saveCheckpoint(confirmed = true): void {
    const room = this.current();
    if (!room) return;
    const storage = this.state.storage;
    const opts = { allowUnconfirmed: !confirmed };
    const relays = this.relays();
    const checkpoint = (): StoredCheckpoint => (relays > 0 ? { ...room.checkpoint(), relays } : room.checkpoint());
    const writes: Promise<unknown>[] = [room.seatCount === 0 ? storage.delete(CHECKPOINT_KEY, opts) : storage.put(CHECKPOINT_KEY, checkpoint(), opts)];
    if (room.storeVersion !== this.savedStoreVersion) {
      const store = room.storeSnapshot();
      this.savedStoreVersion = room.storeVersion;
      this.savedStore = store ?? undefined;
      writes.push(store === null ? storage.delete(STORE_KEY) : storage.put(STORE_KEY, store));
    }
    this.state.waitUntil(
      Promise.all(writes).catch((e: unknown) => console.error(`[room ${room.kind}:${room.roomId}] checkpoint write failed`, e)),
    );
  }
}
