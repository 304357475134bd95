/**
 * What a matchmaker object writes to its storage (`DirectoryWrites`), and when.
 *
 * The directory: a room's entry a moment after it changed, with every other change meanwhile,
 * each room's last state once, unconfirmed. A burst of changes to one room (a join's reservation
 * and report, a room filling) is one write, and answers never wait for one: the directory only
 * steers (rooms are the seats' authority) and is learned again from the rooms' reports after a
 * restart. A room storage does not hold yet is written at once (still unconfirmed): a room
 * reports again only when it changes or once a minute, so a new room lost with a batch in
 * waiting would be missing from the directory that long after a restart; new rooms are rare
 * beside the changes that batching saves.
 *
 * Parties: a party's record at once, confirmed. The matchmaker is a party's only authority (no
 * room reports it back), so an answer that names a party (its code, a member, its start) waits
 * until the record is durable, and a restart never forgets a code a member was given. Parties
 * change at people's pace (a member joins, the leader starts), not per join of the matched path.
 */
import type { BusyMeter } from "../busyMeter";
import type { PartyRecord } from "./parties";
import type { RoomStatus } from "./roomStatus";

/** How long a changed entry waits for the changes after it before it is written. */
export const DIRECTORY_WRITE_MS = 250;
/** A directory entry's key: this + room id. */
export const ROOM_KEY = "room:";
/** A party record's key: this + party code. */
export const PARTY_KEY = "party:";

/** How the writes are made and counted (core `StorageMeter`, storage/storageMeter.ts). */
export interface MeteredWrites {
  /** Writes `entries` (null removes a key) as `kind`; `confirmed`: the host's next messages wait for them. */
  write(kind: string, entries: readonly { key: string; value: unknown }[], confirmed: boolean): void;
}

/** The storage writes of one matchmaker object: its directory (`directory`) and parties (`party`), counted by its meter. */
export class DirectoryWrites {
  /** Entries waiting to be written (null: removed), by room id. */
  readonly #pending = new Map<string, RoomStatus | null>();
  /** Room ids whose entry storage holds (written, or loaded with {@link held}). */
  readonly #stored = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly writes: MeteredWrites,
    private readonly busy: BusyMeter,
    private readonly delayMs = DIRECTORY_WRITE_MS,
  ) {}

  /** Room `status.roomId` changed: its entry is written with the next batch. */
  put(status: RoomStatus): void {
    this.#pending.set(status.roomId, status);
    if (this.#stored.has(status.roomId)) this.arm();
    else this.flush();
  }

  /** Room `roomId` left the directory: its entry is removed with the next batch. */
  delete(roomId: string): void {
    this.#pending.set(roomId, null);
    this.arm();
  }

  /** The entries of rooms `roomIds` were read back from storage: their changes are batched. */
  held(roomIds: Iterable<string>): void {
    for (const id of roomIds) this.#stored.add(id);
  }

  /** Party `party.code` was made or changed: its record is written now, confirmed. */
  putParty(party: PartyRecord): void {
    this.writes.write("party", [{ key: PARTY_KEY + party.code, value: party }], true);
  }

  /** Party `code` was dropped: its record is removed now, confirmed. */
  deleteParty(code: string): void {
    this.writes.write("party", [{ key: PARTY_KEY + code, value: null }], true);
  }

  private arm(): void {
    this.#timer ??= setTimeout(this.busy.wrap(() => this.flush(), "storage"), this.delayMs);
  }

  /** Writes every entry in waiting now, as one unconfirmed write. */
  private flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = [...this.#pending].map(([id, s]) => ({ key: ROOM_KEY + id, value: s }));
    for (const [id, s] of this.#pending) {
      if (s) this.#stored.add(id);
      else this.#stored.delete(id);
    }
    this.#pending.clear();
    this.writes.write("directory", batch, false);
  }
}
