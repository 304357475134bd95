/**
 * Where recorded matches are kept once they end, for every host: one object per match,
 * `<kind>/<matchId>.tkml`, its summary beside it, in a {@link ReplayBucket} (R2's `REPLAYS` on
 * Cloudflare, a folder on the Node host). The archive lists a kind's matches newest first, reads
 * one back, keeps a match nobody joined out of it, and deletes a kind's matches past the
 * retention when another of its kind ends (docs/replay.md).
 */
import { matchStartedAt, pastRetention, type MatchSummary, type ReplayArchive } from "./recording";
import { DEFAULT_RETENTION_DAYS } from "./recording";

/** One object a bucket listed: its key and, when the listing carries it, its summary's JSON text. */
export interface ListedReplay {
  /** `<kind>/<matchId>.tkml`. */
  key: string;
  /** The summary kept with it (JSON text), when there is one. */
  summary?: string;
}

/** A page of a bucket's listing. */
export interface ReplayPage {
  /** The objects on this page, in key order. */
  objects: ListedReplay[];
  /** More pages follow; ask again with {@link cursor}. */
  truncated: boolean;
  /** Where the next page starts. */
  cursor?: string;
}

/** The objects store a host keeps recorded matches in (R2 has this shape, through a few lines). */
export interface ReplayBucket {
  /** Keeps a match's log under `key` with its summary (JSON text). */
  put(key: string, bytes: Uint8Array, summary: string): Promise<void>;
  /** A page of the objects whose keys start with `prefix`, summaries included. */
  list(prefix: string, cursor?: string): Promise<ReplayPage>;
  /** A match's log, or null. */
  get(key: string): Promise<Uint8Array<ArrayBuffer> | null>;
  /** Removes objects (and their summaries). */
  delete(keys: string[]): Promise<void>;
}

/** Most pages a list or a pruning reads. */
export const REPLAY_LIST_PAGES = 5;

/** A match's object key. */
export function replayKey(kind: string, matchId: string): string {
  return `${kind}/${matchId}.tkml`;
}

/** The retention a host's var names (`REPLAY_RETENTION_DAYS`: days, "0" for ever), else the default. */
export function retentionDaysOf(value: string | undefined): number {
  const days = Number(value ?? DEFAULT_RETENTION_DAYS);
  return Number.isFinite(days) ? days : DEFAULT_RETENTION_DAYS;
}

/** Recorded matches in a bucket (see the module comment). */
export class BucketArchive implements ReplayArchive {
  constructor(
    private readonly bucket: ReplayBucket,
    private readonly retentionDays: number = DEFAULT_RETENTION_DAYS,
  ) {}

  /** A kind's matches, newest first (match ids sort by start). */
  async list(kind: string): Promise<MatchSummary[]> {
    const out: MatchSummary[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < REPLAY_LIST_PAGES; page++) {
      const listed = await this.bucket.list(`${kind}/`, cursor);
      for (const o of listed.objects) {
        if (!o.summary) continue;
        try {
          out.push(JSON.parse(o.summary) as MatchSummary);
        } catch {
          // Not one of ours, or being written: listed next time.
        }
      }
      if (!listed.truncated) break;
      cursor = listed.cursor;
    }
    return out.sort((a, b) => (a.matchId < b.matchId ? 1 : a.matchId > b.matchId ? -1 : 0));
  }

  /** One match's log, or null. */
  get(kind: string, matchId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    return this.bucket.get(replayKey(kind, matchId));
  }

  /**
   * Keeps a match that ended (a match nobody joined is no match worth keeping), then deletes its
   * kind's matches past the retention as of `now`.
   */
  async keep(summary: MatchSummary, bytes: Uint8Array, now: number): Promise<void> {
    if (summary.players > 0) await this.bucket.put(replayKey(summary.kind, summary.matchId), bytes, JSON.stringify({ ...summary, bytes: bytes.byteLength }));
    await this.prune(summary.kind, now);
  }

  /** Deletes a kind's matches started longer than the retention ago (ids sort by start: the oldest come first). */
  async prune(kind: string, now: number): Promise<void> {
    if (this.retentionDays <= 0) return;
    let cursor: string | undefined;
    for (let page = 0; page < REPLAY_LIST_PAGES; page++) {
      const listed = await this.bucket.list(`${kind}/`, cursor);
      const old = listed.objects.map((o) => o.key).filter((key) => pastRetention(matchStartedAt(key.slice(kind.length + 1, -".tkml".length)), this.retentionDays, now));
      if (old.length > 0) await this.bucket.delete(old);
      if (old.length < listed.objects.length || !listed.truncated) return;
      cursor = listed.cursor;
    }
  }
}
