/**
 * What a room's host keeps of its room in its own key-value storage (a room's Durable Object's),
 * so a restarted (or evicted, or hibernated) object brings the room back: each seat's record (written when the seat is taken,
 * before its welcome leaves: the one confirmed write a join waits for), the room's checkpoints as
 * a chain of pieces (a ticking world every second, only what changed, without holding frames),
 * and its game's store; laid out by the core's `KeptRoom` (core room/keptRoom.ts), read once at
 * construction. Apart from `RoomObject` because when and how a room is written is a rule of its
 * own (spacing, confirmed or not, the store only when it changed); the object's entries only say
 * that a write is due. When a checkpoint is written is the core's rule (`CheckpointWrites`, room/checkpointWrites.ts).
 */
import type { BusyMeter } from "../busyMeter";
import { systemClock } from "../clock";
import type { CheckpointSeat, RoomCheckpoint } from "../host";
import type { RoomMadeWith } from "../roomMadeWith";
import type { HostedRoom, KeepableRoom } from "../hostedRoom";
import { CheckpointWrites } from "../room/checkpointWrites";
import { KEPT_MADE_WITH_KEY, KEPT_PIECE_PREFIX, KEPT_SEAT_PREFIX, KeptRoom, type KeptWrite } from "../room/keptRoom";
import { StorageMeter, type KeyValueWrites } from "./storageMeter";

/**
 * Storage key of a room's checkpoint as objects kept it before seats and pieces were kept apart
 * (`Room.checkpoint()` whole): read when nothing newer is kept, removed at the next write.
 */
const LEGACY_CHECKPOINT_KEY = "room:checkpoint";
/**
 * The checkpoint as this object keeps it: a relayed room's says over how many relays, so a room
 * promoted past its threshold comes back from a restart relayed (its relays link again to a
 * simulation), whatever the rule says for a room made anew. It lives and dies with the
 * checkpoint: a room let go empty is made single again.
 */
type StoredCheckpoint = RoomCheckpoint & { relays?: number };

/** The room as its keeping sees it: what survives a restart, its name and its seat count. */
export type KeptView = KeepableRoom & Pick<HostedRoom, "kind" | "roomId" | "seatCount">;

/** The relay count a stored checkpoint names (0: the room was not relayed, or nothing is stored). */
function storedRelays(saved: unknown): number {
  const k = (saved as StoredCheckpoint | undefined)?.relays;
  return Number.isInteger(k) && (k as number) >= 1 ? (k as number) : 0;
}
/**
 * Storage key of the game's store (`ctx.store`, `Room.storeSnapshot()`): written with a
 * checkpoint, but kept when the room empties (the next room under this id starts from it).
 */
const STORE_KEY = "room:store";

/** What of the host its keeping uses: its storage (a Durable Object's has this shape), and `waitUntil` for the writes. */
export interface KeepingState {
  /** The room's storage: read back whole at the start, written as the room changes. */
  readonly storage: KeyValueWrites & {
    /** The keys (and values) under `prefix`. */
    list(options: { prefix: string }): Promise<Map<string, unknown>>;
    /** The values of `keys` that are kept. */
    get(keys: string[]): Promise<Map<string, unknown>>;
  };
  /** Keeps the host alive until `work` settles. */
  waitUntil(work: Promise<unknown>): void;
}

/**
 * The seat, checkpoint and store keeping of one room's object. It reads the room it keeps
 * through `current` (null: none made, or it was let go) and the relays that room is relayed over
 * through `relays` (0: a single room), at the moment of each write.
 */
export class RoomKeeping {
  /**
   * The checkpoint found in storage at construction, until a room is made from it (and the
   * promoted room's, while its relayed room is made from it).
   */
  savedCheckpoint: unknown = undefined;
  /** Every write this object makes of its room, counted (DEV_MODE stats, `adapter.storage`). */
  readonly writes: StorageMeter;
  /** The keys and values of the room as kept (core `KeptRoom`). */
  private readonly kept = new KeptRoom();
  private readonly storage: KeepingState["storage"];
  /** A checkpoint under the legacy key is in storage: removed with the next checkpoint write. */
  private legacyKept = false;
  /** The saved checkpoint came from the legacy key: its seats have no records of their own yet. */
  private savedIsLegacy = false;
  /** The game's store as storage holds it (read at construction, then as last written). */
  private savedStore: unknown = undefined;
  /** The current room's store version last written (0: what `savedStore` holds). */
  private savedStoreVersion = 0;
  /** When the room's checkpoints are written (core `CheckpointWrites` (room/checkpointWrites.ts), room/checkpointWrites.ts). */
  private readonly cadence: CheckpointWrites;

  /** `busy` meters the batched writes' timer, an entry of the object like any other. */
  constructor(
    state: KeepingState,
    busy: BusyMeter,
    private readonly current: () => KeptView | null,
    private readonly relays: () => number,
  ) {
    this.writes = new StorageMeter(state, "room");
    this.cadence = new CheckpointWrites(busy.clock(systemClock, "checkpoint"), (confirmed) => this.saveCheckpoint(confirmed));
    this.storage = state.storage;
  }

  /** Reads what is kept of the room, and the store, from storage (at construction, before any event). */
  async load(): Promise<void> {
    const [seats, pieces, saved] = await Promise.all([
      this.storage.list({ prefix: KEPT_SEAT_PREFIX }),
      this.storage.list({ prefix: KEPT_PIECE_PREFIX }),
      this.storage.get([LEGACY_CHECKPOINT_KEY, STORE_KEY, KEPT_MADE_WITH_KEY]),
    ]);
    const madeWith = saved.get(KEPT_MADE_WITH_KEY);
    const kept = this.kept.read(new Map([...seats, ...pieces, ...(madeWith === undefined ? [] : [[KEPT_MADE_WITH_KEY, madeWith] as const])]));
    const legacy = saved.get(LEGACY_CHECKPOINT_KEY);
    this.legacyKept = legacy !== undefined;
    this.savedIsLegacy = kept === null && legacy !== undefined;
    this.savedCheckpoint = kept ?? legacy;
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
   * A room was made (from {@link store}) with `madeWith` (core roomMadeWith.ts; kept with its
   * first seat): its store is not written until it changes; the saved checkpoint, if any, is
   * restored into it and dropped; its first checkpoint starts a new chain.
   */
  roomMade(room: KeptView, madeWith?: RoomMadeWith): void {
    this.savedStoreVersion = 0;
    this.kept.lost();
    this.kept.madeWith(madeWith);
    const saved = this.savedCheckpoint as RoomCheckpoint | undefined;
    if (saved === undefined) return;
    this.savedCheckpoint = undefined;
    // Seats kept without any checkpoint piece name no room: this object's storage is its room's.
    const restored = room.restoreCheckpoint(saved.kind === "" ? { ...saved, kind: room.kind, roomId: room.roomId } : saved);
    if (restored && this.savedIsLegacy) {
      // A checkpoint of the older layout: its seats get records of their own now.
      this.writes.write("seat", this.withMadeWith(room.checkpoint().seats.map((s) => this.kept.seat(s.playerId, s))), false);
    }
    this.savedIsLegacy = false;
  }

  /**
   * A seat was taken (`record`) or freed (null) — the room's `onSeatRecord`, called before a new
   * seat's welcome is sent: its record is written at once and confirmed, so the welcome leaves
   * only once the seat is durable; a freed seat's removal holds nothing back (a seat that came
   * back after a restart anyway is freed when its reconnection window ends).
   */
  seatRecord(playerId: number, record: CheckpointSeat | null): void {
    const write = [this.kept.seat(playerId, record)];
    this.writes.write("seat", record ? this.withMadeWith(write) : write, record !== null);
  }

  /** Seat writes, with what the room was made with when storage does not hold it yet (one call, so never a seat without it). */
  private withMadeWith(writes: KeptWrite[]): KeptWrite[] {
    const made = this.kept.madeWithWrite();
    return made ? [...writes, made] : writes;
  }

  /** A checkpoint is due (the room's `onCheckpointDue`): written as core `CheckpointWrites` (room/checkpointWrites.ts) says. */
  checkpointDue(soon: boolean): void {
    if (this.current()) this.cadence.due(soon);
  }

  /**
   * Writes the room's next checkpoint piece (or, once the room has no seats, removes everything
   * kept of it) and, when it changed since the last write, the game's store (removed when empty):
   * all in this one turn, so the runtime commits them together. `confirmed`: the room's next
   * frames wait for the write (a move a player would lose); else they do not (a periodic world
   * checkpoint).
   */
  saveCheckpoint(confirmed = true): void {
    const room = this.current();
    if (!room) return;
    const relays = this.relays();
    const writes: KeptWrite[] = [];
    if (room.seatCount === 0) writes.push(...this.kept.clear());
    else {
      const cp = room.checkpoint(this.kept.world);
      try {
        const piece = this.kept.piece(relays > 0 ? ({ ...cp, relays } as StoredCheckpoint) : cp);
        // Null: it holds nothing the last piece does not; counted, not written.
        if (piece) writes.push(piece);
        else this.writes.unchanged("checkpoint");
      } catch (e) {
        // Not a piece of the kept chain (never expected): the next checkpoint starts one.
        console.error(`[room ${room.kind}:${room.roomId}] checkpoint not kept`, e);
        this.kept.lost();
      }
    }
    if (this.legacyKept) {
      writes.push({ key: LEGACY_CHECKPOINT_KEY, value: null });
      this.legacyKept = false;
    }
    this.writes.write("checkpoint", writes, confirmed, () => this.kept.lost());
    if (room.storeVersion !== this.savedStoreVersion) {
      const store = room.storeSnapshot();
      this.savedStoreVersion = room.storeVersion;
      this.savedStore = store ?? undefined;
      this.writes.write("store", [{ key: STORE_KEY, value: store }], confirmed);
    }
  }
}
