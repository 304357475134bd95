/**
 * Recorded matches on Cloudflare (docs/replay.md): a recorded room's log goes piece by piece
 * into its object's storage (`replay:<matchId>:<index>`, written on a later turn than the
 * room's), and when the match ends the pieces become one object `<kind>/<matchId>.tkml` in the
 * R2 bucket `REPLAYS` (local R2 under `wrangler dev`), its summary in the object's custom
 * metadata; the pieces are then deleted. A match an object did not live to end (evicted,
 * hibernated, aborted) is found in storage when the object starts again and uploaded as it was
 * cut. Matches older than `REPLAY_RETENTION_DAYS` (default 30) are deleted from the bucket when
 * another of their kind ends. Without the binding nothing is recorded.
 *
 * The gateway's side is {@link r2Archive}: the admin API's list and download.
 */
import type { BusyMeter } from "@tikron/core";
import { DEFAULT_RETENTION_DAYS, matchStartedAt, pastRetention, summarizeLog, type MatchSummary, type RecordingSink, type ReplayArchive } from "@tikron/core/replay";

/** The bindings recorded matches use. */
export interface ReplaysEnv {
  /** The R2 bucket recorded matches are kept in; absent: rooms are not recorded. */
  REPLAYS?: R2Bucket;
  /** Days a recorded match is kept (default 30; "0": for ever). */
  REPLAY_RETENTION_DAYS?: string;
}

/** Storage key prefix of the pieces of matches not yet uploaded. */
const PIECE_PREFIX = "replay:";
/** The custom metadata key of a match object's summary. */
const SUMMARY_KEY = "summary";
/** Most objects a list or a pruning reads (one R2 page each). */
const LIST_PAGES = 5;

/** What the recording of one object's rooms uses of the object. */
export type ReplayState = Pick<DurableObjectState, "storage" | "waitUntil">;

function pieceKey(matchId: string, index: number): string {
  return `${PIECE_PREFIX}${matchId}:${String(index).padStart(6, "0")}`;
}

function objectKey(kind: string, matchId: string): string {
  return `${kind}/${matchId}.tkml`;
}

function retentionDays(env: ReplaysEnv): number {
  const days = Number(env.REPLAY_RETENTION_DAYS ?? DEFAULT_RETENTION_DAYS);
  return Number.isFinite(days) ? days : DEFAULT_RETENTION_DAYS;
}

function joined(pieces: Iterable<ArrayBuffer | Uint8Array>): Uint8Array {
  const list = [...pieces].map((p) => (p instanceof Uint8Array ? p : new Uint8Array(p)));
  const out = new Uint8Array(list.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of list) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The recording side of one room's object (see the module comment). */
export class RoomReplays {
  /** Pieces handed over by the room, written on the next turn. */
  private readonly queued: { key: string; bytes: Uint8Array }[] = [];
  private writeQueued = false;
  /** Matches whose pieces are in storage and that this instance records (not leftovers). */
  private readonly live = new Set<string>();

  constructor(
    private readonly state: ReplayState,
    private readonly env: ReplaysEnv | undefined,
    private readonly busy: BusyMeter,
  ) {}

  /** The sink of a new room of `kind`; undefined without a `REPLAYS` binding. */
  sink(kind: string): RecordingSink | undefined {
    const bucket = this.env?.REPLAYS;
    if (!bucket) return undefined;
    return {
      chunk: (matchId, index, bytes) => {
        this.live.add(matchId);
        this.queued.push({ key: pieceKey(matchId, index), bytes });
        this.writeSoon();
      },
      end: (summary) => {
        // The last pieces first: the upload reads them back from storage.
        this.writeNow();
        this.state.waitUntil(this.upload(bucket, kind, summary.matchId, summary).finally(() => this.live.delete(summary.matchId)));
      },
    };
  }

  /**
   * Uploads the matches an earlier instance of this object left in storage (it did not live to
   * end them), as they were cut. Called once at construction; runs in `waitUntil`.
   */
  uploadLeftovers(): void {
    const bucket = this.env?.REPLAYS;
    if (!bucket) return;
    this.state.waitUntil(
      (async () => {
        const keys = await this.state.storage.list({ prefix: PIECE_PREFIX });
        const ids = new Set<string>();
        for (const key of keys.keys()) ids.add(key.slice(PIECE_PREFIX.length, key.lastIndexOf(":")));
        for (const id of ids) if (!this.live.has(id)) await this.upload(bucket, null, id, null);
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
    this.state.waitUntil(this.state.storage.put(entries, { allowUnconfirmed: true }).catch((e: unknown) => console.error("[replays] writing a piece failed", e)));
  }

  /**
   * Reads a match's pieces back, puts them into the bucket as one object with its summary
   * (`summary` null: a cut match, summed up from its log), deletes the pieces, then prunes the
   * kind's matches past the retention.
   */
  private async upload(bucket: R2Bucket, kind: string | null, matchId: string, summary: MatchSummary | null): Promise<void> {
    const prefix = `${PIECE_PREFIX}${matchId}:`;
    try {
      const pieces = await this.state.storage.list<ArrayBuffer | Uint8Array>({ prefix });
      const bytes = joined(pieces.values());
      const s = summary ?? summarizeLog(bytes, "cut");
      if (s && s.players > 0) {
        await bucket.put(objectKey(s.kind, matchId), bytes, {
          httpMetadata: { contentType: "application/octet-stream" },
          customMetadata: { [SUMMARY_KEY]: JSON.stringify({ ...s, bytes: bytes.byteLength }) },
        });
      }
      await this.state.storage.delete([...pieces.keys()]);
      await prune(bucket, kind ?? s?.kind ?? null, retentionDays(this.env ?? {}), Date.now());
    } catch (e) {
      console.error(`[replays] uploading match ${matchId} failed`, e);
    }
  }
}

/** Deletes a kind's matches started longer than `days` ago (ids sort by start: the oldest come first). */
async function prune(bucket: R2Bucket, kind: string | null, days: number, now: number): Promise<void> {
  if (kind === null || days <= 0) return;
  let cursor: string | undefined;
  for (let page = 0; page < LIST_PAGES; page++) {
    const listed = await bucket.list({ prefix: `${kind}/`, cursor });
    const old = listed.objects.map((o) => o.key).filter((key) => pastRetention(matchStartedAt(key.slice(kind.length + 1, -".tkml".length)), days, now));
    if (old.length > 0) await bucket.delete(old);
    if (old.length < listed.objects.length || !listed.truncated) return;
    cursor = listed.cursor;
  }
}

/** The admin API's view of the `REPLAYS` bucket (gateway side): a kind's matches, newest first, and one match's log. */
export function r2Archive(bucket: R2Bucket): ReplayArchive {
  return {
    async list(kind) {
      const out: MatchSummary[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < LIST_PAGES; page++) {
        const listed = await bucket.list({ prefix: `${kind}/`, cursor, include: ["customMetadata"] });
        for (const o of listed.objects) {
          const text = o.customMetadata?.[SUMMARY_KEY];
          if (!text) continue;
          try {
            out.push(JSON.parse(text) as MatchSummary);
          } catch {
            // Not one of ours.
          }
        }
        if (!listed.truncated) break;
        cursor = listed.cursor;
      }
      return out.sort((a, b) => (a.matchId < b.matchId ? 1 : a.matchId > b.matchId ? -1 : 0));
    },
    async get(kind, matchId) {
      const o = await bucket.get(objectKey(kind, matchId));
      return o ? new Uint8Array(await o.arrayBuffer()) : null;
    },
  };
}
