/**
 * When a matchmaker object writes its directory (`DirectoryWrites`): a room's entry a moment after
 * it changed, with every other change meanwhile, each room's last state once, unconfirmed. A
 * burst of changes to one room (a join's reservation and report, a room filling) is one write,
 * and answers never wait for one: the directory only steers (rooms are the seats' authority)
 * and is learned again from the rooms' reports after a restart.
 */
import type { BusyMeter } from "@tikron/core";
import type { RoomStatus } from "@tikron/core/match";
import type { StorageMeter } from "./storageMeter";

/** How long a changed entry waits for the changes after it before it is written. */
export const DIRECTORY_WRITE_MS = 250;

/** The directory's writes of one matchmaker object, under `prefix` + room id. */
export class DirectoryWrites {
  /** Entries waiting to be written (null: removed), by room id. */
  readonly #pending = new Map<string, RoomStatus | null>();
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly writes: StorageMeter,
    private readonly busy: BusyMeter,
    private readonly prefix: string,
    private readonly delayMs = DIRECTORY_WRITE_MS,
  ) {}

  /** Room `status.roomId` changed: its entry is written with the next batch. */
  put(status: RoomStatus): void {
    this.#pending.set(status.roomId, status);
    this.arm();
  }

  /** Room `roomId` left the directory: its entry is removed with the next batch. */
  delete(roomId: string): void {
    this.#pending.set(roomId, null);
    this.arm();
  }

  private arm(): void {
    this.#timer ??= setTimeout(
      this.busy.wrap(() => {
        this.#timer = null;
        const batch = [...this.#pending].map(([id, s]) => ({ key: this.prefix + id, value: s }));
        this.#pending.clear();
        this.writes.write("directory", batch, false);
      }, "storage"),
      this.delayMs,
    );
  }
}
