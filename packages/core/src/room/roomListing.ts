import { isMetadataValue, METADATA_KEY_PATTERN, type RoomMetadata } from "@tikron/protocol";
import type { ListingInit, SavedListing } from "../match/roomStatus";

/** Most metadata keys a room may carry. */
export const MAX_METADATA_KEYS = 32;

/**
 * What a matchmaker knows a room by besides its seats: its metadata (set by the game at creation
 * and at run time), whether it is locked (takes no new players) or private, and a change count
 * that orders its reports. Every change calls `onChange` (the host reports off the tick path).
 */
export class RoomListing {
  #metadata: RoomMetadata;
  #locked = false;
  #private: boolean;
  /** The DEV_MODE overrides key the room was made with. */
  readonly overrides: string;
  /** When this room instance was created (Unix ms). */
  readonly createdAt: number;
  /** Changes so far: the second half of a report's version. */
  changes = 0;

  constructor(
    init: ListingInit | undefined,
    createdAt: number,
    private readonly onChange: () => void,
  ) {
    this.#metadata = init?.metadata ? checkMetadata({}, init.metadata) : {};
    this.#private = init?.private ?? false;
    this.overrides = init?.overrides ?? "";
    this.createdAt = createdAt;
  }

  /** The room's metadata (a copy is kept; do not mutate what this returns). */
  get metadata(): Readonly<RoomMetadata> {
    return this.#metadata;
  }

  /** True while the room takes no new players. */
  get locked(): boolean {
    return this.#locked;
  }

  /** True when the room is never listed or picked. */
  get isPrivate(): boolean {
    return this.#private;
  }

  /** Merges `patch` into the metadata (a key set to `null` is removed). Throws on a bad key or value. */
  setMetadata(patch: Record<string, RoomMetadata[string] | null>): void {
    this.#metadata = checkMetadata(this.#metadata, patch);
    this.changed();
  }

  /** Locks (`true`) or unlocks the room. */
  setLocked(locked: boolean): void {
    if (this.#locked === locked) return;
    this.#locked = locked;
    this.changed();
  }

  /** Makes the room private or public. */
  setPrivate(value: boolean): void {
    if (this.#private === value) return;
    this.#private = value;
    this.changed();
  }

  /** What a checkpoint keeps (see {@link SavedListing}). */
  save(): SavedListing {
    return { metadata: this.#metadata, private: this.#private, locked: this.#locked };
  }

  /**
   * Takes back what a checkpoint kept, before the room seats anyone. A value that is not a saved
   * listing changes nothing (the room keeps the listing it was made with); false then.
   */
  restore(saved: unknown): boolean {
    const s = saved as Partial<SavedListing> | null;
    if (!s || typeof s !== "object" || typeof s.private !== "boolean" || typeof s.locked !== "boolean" || typeof s.metadata !== "object" || s.metadata === null) return false;
    let metadata: RoomMetadata;
    try {
      metadata = checkMetadata({}, s.metadata);
    } catch {
      return false;
    }
    this.#metadata = metadata;
    this.#private = s.private;
    this.#locked = s.locked;
    this.changed();
    return true;
  }

  /** Something a report carries changed (seats, reservations): bump the version and report. */
  changed(): void {
    this.changes++;
    this.onChange();
  }
}

function checkMetadata(base: RoomMetadata, patch: Record<string, RoomMetadata[string] | null>): RoomMetadata {
  const out: RoomMetadata = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (!METADATA_KEY_PATTERN.test(k)) throw new Error(`metadata key "${k.slice(0, 40)}" must match ${METADATA_KEY_PATTERN}`);
    if (v === null) {
      delete out[k];
      continue;
    }
    if (!isMetadataValue(v)) throw new Error(`metadata ${k} must be a finite number, a boolean or a string of at most 128 characters`);
    out[k] = v;
  }
  if (Object.keys(out).length > MAX_METADATA_KEYS) throw new Error(`at most ${MAX_METADATA_KEYS} metadata keys`);
  return out;
}
