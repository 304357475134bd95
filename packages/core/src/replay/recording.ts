/**
 * Recording as a host and a game definition see it: how a kind records (`RecordSpec`, on its
 * `GameDefinition` as `record`), where a match's log goes (`RecordingSink`, the host's), and
 * what the host is told when a match ends (`MatchSummary`, what the admin API lists), and
 * where a host keeps its recorded matches for the admin API (`ReplayArchive`).
 */
import { MATCH_ID_PATTERN, type MatchSummary } from "@tikron/protocol";

/** How a kind's matches are recorded (`GameDefinition.record`: `true` for these defaults). */
export interface RecordSpec {
  /**
   * Room time between two checkpoints in the log (ms): the first follows the match's first
   * flush, the next the first flush this long after it. 0: only the first. Default 30 s.
   */
  checkpointEveryMs?: number;
  /** Longest match recorded (ms of room time): past it the log ends (`limit`) and the room goes on unrecorded. Default 1 h. */
  maxMs?: number;
  /** Largest log (bytes): past it the log ends (`limit`). Default 64 MiB. */
  maxBytes?: number;
}

/** The defaults of {@link RecordSpec}. */
export const DEFAULT_RECORD_SPEC: Required<RecordSpec> = {
  checkpointEveryMs: 30_000,
  maxMs: 60 * 60_000,
  maxBytes: 64 * 1024 * 1024,
};

/** A kind's record spec with its defaults filled in; null when it does not record. */
export function resolveRecordSpec(record: boolean | RecordSpec | undefined): Required<RecordSpec> | null {
  if (!record) return null;
  return { ...DEFAULT_RECORD_SPEC, ...(record === true ? {} : record) };
}

/** What a host is told when a recorded match ends (the admin API lists these): the protocol's shape. */
export type { MatchSummary };

/**
 * Where a recorded room's log goes (the host's). Called from the room's own events, so each
 * call only takes the bytes: a host writes them on a later turn (Cloudflare: the object's
 * storage, then R2; the Node host: a folder).
 */
export interface RecordingSink {
  /**
   * The next piece of the match's log, in order from 0 (the first begins with the header): the
   * log is their concatenation. Pieces are sealed every few seconds of room time and past a
   * size (a turn-based room's after every flush), so a crash loses at most the last few seconds
   * of a match.
   */
  chunk(matchId: string, index: number, bytes: Uint8Array): void;
  /** The match ended (every piece was handed over before this); a match with no player may be dropped. */
  end(summary: MatchSummary): void;
}

/**
 * A host's recorded matches, as the admin API reads them (Cloudflare: the R2 bucket `REPLAYS`;
 * Node: the folder of `serveRooms({ replays })`).
 */
export interface ReplayArchive {
  /** A kind's recorded matches, newest first. */
  list(kind: string): Promise<MatchSummary[]>;
  /** One match's log; null when there is no such match. */
  get(kind: string, matchId: string): Promise<Uint8Array<ArrayBuffer> | null>;
}

/** How long recorded matches are kept (days) when the host is not told: `REPLAY_RETENTION_DAYS` / `replays.retentionDays`. */
export const DEFAULT_RETENTION_DAYS = 30;

/**
 * Whether a match recorded at `startedAt` is past a retention of `days` at `now` (0 or less:
 * kept for ever). One rule for every host's pruning.
 */
export function pastRetention(startedAt: number, days: number, now: number): boolean {
  return days > 0 && now - startedAt > days * 86_400_000;
}

/** When the match `matchId` began (epoch ms), read off its id (see `newMatchId`); NaN for an id of another form. */
export function matchStartedAt(matchId: string): number {
  return MATCH_ID_PATTERN.test(matchId) ? parseInt(matchId.slice(0, 9), 36) : NaN;
}
