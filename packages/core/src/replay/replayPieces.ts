/**
 * A recorded room's log kept piece by piece in its host's key-value storage until the match
 * ends (`replay:<matchId>:<index>`, written on a later turn than the room's), then joined into
 * one object of the host's {@link BucketArchive} and the pieces deleted. A match the host did not
 * live to end (a Durable Object evicted, hibernated, aborted) is found in storage when the host
 * starts again ({@link ReplayPieces.keepLeftovers}) and archived as it was cut. The storage and
 * the host's `waitUntil` are ports (a Durable Object's have their shape).
 */
import type { BusyMeter } from "../busyMeter";
import { joinLogPieces } from "./logPieces";
import { summarizeLog } from "./matchLog";
import type { MatchSummary, RecordingSink } from "./recording";
import type { BucketArchive } from "./replayArchive";

/** Storage key prefix of the pieces of matches not yet archived. */
export const PIECE_PREFIX = "replay:";

/** The storage pieces are kept in (a Durable Object's storage has this shape). */
export interface PieceStorage {
  /** Writes many keys at once. */
  put(entries: Record<string, unknown>, options?: { allowUnconfirmed?: boolean }): Promise<void>;
  /** The keys (and values) under `prefix`, in key order. */
  list<T = unknown>(options: { prefix: string }): Promise<Map<string, T>>;
  /** Removes keys. */
  delete(keys: string[]): Promise<number>;
}

/** What of its host the recording uses: its storage, and `waitUntil` for what it does not await. */
export interface PieceHost {
  /** Where pieces are kept until their match ends. */
  readonly storage: PieceStorage;
  /** Keeps the host alive until `work` settles. */
  waitUntil(work: Promise<unknown>): void;
}

function pieceKey(matchId: string, index: number): string {
  return `${PIECE_PREFIX}${matchId}:${String(index).padStart(6, "0")}`;
}

/** The recording side of one host of rooms (see the module comment). */
export class ReplayPieces {
  /** Pieces handed over by the room, written on the next turn. */
  private readonly queued: { key: string; bytes: Uint8Array }[] = [];
  private writeQueued = false;
  /** Matches whose pieces are in storage and that this instance records (not leftovers). */
  private readonly live = new Set<string>();

  /** @param busy the host's meter: the off-turn write is an entry of the host's. */
  constructor(
    private readonly host: PieceHost,
    private readonly archive: BucketArchive,
    private readonly busy: BusyMeter,
  ) {}

  /** The sink of a new recorded room. */
  sink(): RecordingSink {
    return {
      chunk: (matchId, index, bytes) => {
        this.live.add(matchId);
        this.queued.push({ key: pieceKey(matchId, index), bytes });
        this.writeSoon();
      },
      end: (summary) => {
        // The last pieces first: archiving reads them back from storage.
        this.writeNow();
        this.host.waitUntil(this.archiveMatch(summary.matchId, summary).finally(() => this.live.delete(summary.matchId)));
      },
    };
  }

  /** Archives the matches an earlier instance of this host left in storage, as they were cut (once, at its start). */
  keepLeftovers(): void {
    this.host.waitUntil(
      (async () => {
        const keys = await this.host.storage.list({ prefix: PIECE_PREFIX });
        const ids = new Set<string>();
        for (const key of keys.keys()) ids.add(key.slice(PIECE_PREFIX.length, key.lastIndexOf(":")));
        for (const id of ids) if (!this.live.has(id)) await this.archiveMatch(id, null);
      })().catch((e: unknown) => console.error("[replays] uploading a cut match failed", e)),
    );
  }

  private writeSoon(): void {
    if (this.writeQueued) return;
    this.writeQueued = true;
    // Off the room's turn: the tick that sealed the piece is not held up by its write.
    setTimeout(this.busy.wrap(() => this.writeNow()), 0);
  }

  private writeNow(): void {
    this.writeQueued = false;
    if (this.queued.length === 0) return;
    const entries: Record<string, Uint8Array> = {};
    for (const { key, bytes } of this.queued.splice(0)) entries[key] = bytes;
    // A piece is worth a write, not a held frame: the room's frames do not wait for it.
    this.host.waitUntil(this.host.storage.put(entries, { allowUnconfirmed: true }).catch((e: unknown) => console.error("[replays] writing a piece failed", e)));
  }

  /** Reads a match's pieces back, archives them (`summary` null: a cut match, summed up from its log), deletes the pieces. */
  private async archiveMatch(matchId: string, summary: MatchSummary | null): Promise<void> {
    try {
      const pieces = await this.host.storage.list<ArrayBuffer | Uint8Array>({ prefix: `${PIECE_PREFIX}${matchId}:` });
      const bytes = joinLogPieces(pieces.values());
      const s = summary ?? summarizeLog(bytes, "cut");
      if (s) await this.archive.keep(s, bytes, Date.now());
      await this.host.storage.delete([...pieces.keys()]);
    } catch (e) {
      console.error(`[replays] uploading match ${matchId} failed`, e);
    }
  }
}
