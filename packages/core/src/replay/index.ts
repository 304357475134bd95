/**
 * Recording and exact replay of a room's match (docs/replay.md): the match log's format
 * (`MatchLog`), the recorder a recorded room writes it with (`LogRecorder`, made by
 * `createRoom` for a kind whose definition records, into the host's `RecordingSink`), and the
 * replay that re-runs a log in the core with no sockets and checks every record again
 * (`replay`, `MatchReplay`). Runtime-agnostic: the same code runs in Workers, Node and a browser.
 *
 * @module @tikron/core/replay
 */
export { MatchLog, summarizeLog, RecordKind, recordKindName, describeRecord, readRecord, MATCH_LOG_MAGIC, MATCH_LOG_VERSION, HEADER_FRAMES, HEADER_JSON, type MatchLogHeader, type MatchRecord, type BareRecord, type TickRecord, type FlushedRecord, type JoinRecord, type SeatRecord, type InputsRecord, type MessageRecord, type TextRecord, type EndRecord, type LoggedInput, type RecordKindCode } from "./matchLog";
export { LogRecorder, newMatchId, CHUNK_MS, CHUNK_BYTES, type MatchStart } from "./logRecorder";
export { DEFAULT_RECORD_SPEC, DEFAULT_RETENTION_DAYS, resolveRecordSpec, pastRetention, matchStartedAt, type RecordSpec, type RecordingSink, type MatchSummary, type ReplayArchive } from "./recording";
export { MatchReplay, replay, type ReplayOptions, type ReplayReport } from "./matchReplay";
export { ReplayRecorder, type ReplayDifference } from "./replayRecorder";
export { ReplayClock } from "./replayClock";
export { tokenStandIn } from "./digest";
export { BucketArchive, replayKey, retentionDaysOf, REPLAY_LIST_PAGES, type ListedReplay, type ReplayBucket, type ReplayPage } from "./replayArchive";
export { ReplayPieces, PIECE_PREFIX, type PieceHost, type PieceStorage } from "./replayPieces";
