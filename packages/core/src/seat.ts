import type { TimerHandle } from "./clock";
import type { Connection } from "./connection";
import type { TokenBucket } from "./tokenBucket";

/**
 * Which encoding of the wire protocol a socket speaks, chosen by its hello: binary frames or
 * JSON text. (The game's `sync.mode` says which one a room accepts; the protocol package
 * defines both.)
 */
export type Dialect = "binary" | "json";

/** A player's place in the room: kept across a dropped socket until the window expires. */
export interface Seat {
  playerId: number;
  token: string;
  name: string;
  /** The live socket, or null while the seat is held for a reconnect. */
  link: ClientLink | null;
  /** Room time after which a held seat is freed. */
  heldUntil: number;
  /** Highest input seq received (monotonic; older or equal seqs are refused). */
  lastReceivedSeq: number;
  /** Highest input seq applied to the room. */
  lastProcessedSeq: number;
  /** Highest seq acked to the current socket. */
  lastAckedSeq: number;
  /** Room time of the last frame sent to this seat (idle frames are spaced from it). */
  lastFrameAt: number;
  /** The last frame sent said nothing changed (so the next idle one waits `idleFrameMs`). */
  settled: boolean;
  /** The encoder's per-client state (baselines), fresh on every (re)connect. */
  syncState: unknown;
  /** Events queued for the next flush (references, not copies). */
  events: unknown[];
  /** JSON rooms: the state changed while this client was behind; send its view next time. */
  viewStale: boolean;
  /** Inputs refused since the last error frame to this seat, reported as one (see the room). */
  refusedCount: number;
  /** The first of those refusals: its error name and reason. */
  refusedName: string;
  refusedReason: string;
}

/**
 * One accepted socket, before or after it said hello, with the per-socket guards that keep one
 * client from costing the room more than its share (see room/clientLink.ts for the rules).
 */
export interface ClientLink {
  readonly connId: number;
  /** The adapter's socket. */
  readonly connection: Connection;
  /** Encoding chosen by the client's hello; binary until a hello says otherwise. */
  dialect: Dialect;
  seat: Seat | null;
  /** Protocol errors so far; more than `maxErrorsPerConnection` closes the socket (4010). */
  errors: number;
  closed: boolean;
  /** The socket's message budget (`msgRatePerSec`, `msgBurst`). */
  readonly bucket: TokenBucket;
  /** Messages dropped for the budget; more than `msgBurst` closes the socket (4003). */
  dropped: number;
  /** Closes a socket that never says hello (4006); null once it did or closed. */
  helloTimer: TimerHandle | null;
  /** Player id verified by the adapter (e.g. from a join ticket), bound to one seat. */
  readonly identity: string | undefined;
  /** Room time of the last `tk:stats` answer, for `minStatsIntervalMs` spacing. */
  lastStatsAt: number;
  /** Who admission counts this socket against: the identity, else the host's remote address. */
  readonly admissionKey: string | undefined;
  /** Still counted as pending (no hello yet) by the room's admission. */
  pending: boolean;
  /** Room time of the last budget drop; `dropped` starts over once the socket behaves again. */
  lastDropAt: number;
  /** Budget for frames with refused inputs or refused room messages (`rejectedFramesPerSec`, `rejectedFramesBurst`). */
  readonly rejectBucket: TokenBucket;
  /** Custom room messages' own rate (`gameMessageRatePerSec`); made on the first one. */
  messageBucket: TokenBucket | null;
  /** Server messages and bytes (UTF-16 units for text) sent on this socket. */
  sentMessages: number;
  sentBytes: number;
  /** What the client's last receipt confirmed, modulo 2^32. */
  receiptMessages: number;
  receiptBytes: number;
  /** Room time the client fell behind (see `softBufferedBytes`), or -1 while it keeps up. */
  behindSince: number;
  /** The seat reservation the socket's join names (from a matchmaker), used by its hello. */
  reservation: string | undefined;
}
