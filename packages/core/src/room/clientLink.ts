/**
 * The two records every message and every flush reads: a {@link ClientLink} (one accepted
 * socket) and the {@link Seat} it sits on (which outlives the socket for the reconnection
 * window); they point at each other, so they are declared together. Then the per-socket rules:
 * a message budget (token bucket), a protocol-error allowance, a budget for refused inputs,
 * spacing between `tk:stats` answers, a bounded backlog of unconfirmed bytes (receipts and
 * backpressure), and which closes free a seat. The room applies the verdicts (reply, drop, skip,
 * close). Nothing here allocates per message.
 */
import { CloseCode } from "@tikron/protocol";
import type { TimerHandle } from "../clock";
import type { Connection } from "../host";
import type { Player, PlayerClaims } from "../player";
import type { RoomOptions } from "../roomOptions";
import { TokenBucket } from "../tokenBucket";

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
  /** Who sits here, as the game sees it: the same record for the seat's whole life. */
  readonly player: Player;
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
  /** Notices queued for the next flush, encoded in the room's dialect (references, not copies). */
  notices: (Uint8Array | string)[];
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
 * client from costing the room more than its share (the rules below).
 */
export interface ClientLink {
  readonly connId: number;
  /** The adapter's socket. */
  readonly connection: Connection;
  /**
   * The dialect the room answers in: the hello's once seated; before that, the dialect of the
   * socket's last message (binary until one arrives).
   */
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
  /** The sign-in claims the host verified with that identity (a JWT's, as the deployment names them). */
  claims: PlayerClaims | undefined;
  /** Room time of the last `tk:stats` answer, for `minStatsIntervalMs` spacing. */
  lastStatsAt: number;
  /** Who admission counts this socket against: the identity, else the host's remote address. */
  readonly admissionKey: string | undefined;
  /** Still counted as pending (no hello yet) by the room's admission. */
  pending: boolean;
  /** Room time of the last budget drop; `dropped` starts over once the socket behaves again. */
  lastDropAt: number;
  /** Budget for frames with refused inputs or refused game messages (`rejectedFramesPerSec`, `rejectedFramesBurst`). */
  readonly rejectBucket: TokenBucket;
  /** Game messages' own rate (`gameMessageRatePerSec`); made on the first one. */
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

/** A fresh seat for `player`, with no socket yet and held for good until one attaches. */
export function newSeat(player: Player, token: string): Seat {
  return {
    playerId: player.playerId,
    token,
    name: player.name,
    player,
    link: null,
    heldUntil: Infinity,
    lastReceivedSeq: 0,
    lastProcessedSeq: 0,
    lastAckedSeq: 0,
    lastFrameAt: 0,
    settled: false,
    syncState: null,
    events: [],
    notices: [],
    viewStale: false,
    refusedCount: 0,
    refusedName: "",
    refusedReason: "",
  };
}

/** A fresh link for a socket that has just been accepted (no seat, binary until its hello). */
export function newClientLink(
  connId: number,
  connection: Connection,
  identity: string | undefined,
  admissionKey: string | undefined,
  options: RoomOptions,
  now: number,
): ClientLink {
  return {
    connId,
    connection,
    dialect: "binary",
    seat: null,
    errors: 0,
    closed: false,
    bucket: new TokenBucket(options.msgRatePerSec, options.msgBurst, now),
    dropped: 0,
    helloTimer: null,
    identity,
    claims: undefined,
    lastStatsAt: -Infinity,
    admissionKey,
    pending: true,
    lastDropAt: -Infinity,
    rejectBucket: new TokenBucket(options.rejectedFramesPerSec, options.rejectedFramesBurst, now),
    messageBucket: null,
    sentMessages: 0,
    sentBytes: 0,
    receiptMessages: 0,
    receiptBytes: 0,
    behindSince: -1,
    reservation: undefined,
  };
}

/** Every server message goes out through here, so the backlog counts everything (frames, replies). */
export function sendTo(link: ClientLink, data: Uint8Array | string): void {
  link.sentMessages++;
  link.sentBytes += typeof data === "string" ? data.length : data.byteLength;
  link.connection.send(data);
}

const U32 = 0x100000000;

/** Takes a client's receipt (counts modulo 2^32). A receipt ahead of what was sent is ignored. */
export function takeReceipt(link: ClientLink, messages: number, bytes: number): boolean {
  const m = (link.sentMessages % U32) - messages;
  const b = (link.sentBytes % U32) - bytes;
  // Claims of more than was sent (beyond wrap-around) are lies or bugs; ignore them.
  if ((m < 0 && m > -U32 / 2) || (b < 0 && b > -U32 / 2)) return false;
  link.receiptMessages = messages;
  link.receiptBytes = bytes;
  return true;
}

/** Bytes sent and not yet confirmed by a receipt. */
export function unconfirmedBytes(link: ClientLink): number {
  return (((link.sentBytes % U32) - link.receiptBytes) + U32) % U32;
}

/** Server messages sent and not yet confirmed by a receipt. */
export function unconfirmedMessages(link: ClientLink): number {
  return (((link.sentMessages % U32) - link.receiptMessages) + U32) % U32;
}

/** What backpressure says about one more optional message to a client. */
export const enum Pressure {
  /** Keeping up: send. */
  Ok = 0,
  /** Behind: skip optional messages (state frames, pongs, stats) until receipts catch up. */
  Behind = 1,
  /** Over the hard budget, or behind for longer than the grace: close 4004. */
  Close = 2,
}

/**
 * The backpressure verdict for `link` at room time `now`, from the unconfirmed backlog alone
 * (the runtime's `bufferedAmount` is read separately and less often: it crosses into the
 * runtime and only grows once kernel buffers are full). Allocation-free.
 */
export function pressure(link: ClientLink, now: number, o: RoomOptions): Pressure {
  const bytes = unconfirmedBytes(link);
  if (bytes > o.maxBufferedBytes) return Pressure.Close;
  if (bytes <= o.softBufferedBytes && unconfirmedMessages(link) <= o.maxUnreceiptedMessages) {
    link.behindSince = -1;
    return Pressure.Ok;
  }
  if (link.behindSince < 0) link.behindSince = now;
  return now - link.behindSince > o.slowConsumerGraceMs ? Pressure.Close : Pressure.Behind;
}

/**
 * Milliseconds this link must still wait before its next `tk:stats` answer, or 0 when it may
 * have one now (then the answer is recorded). The probe is the costliest reply a client can
 * ask for (a JSON snapshot), hence its own spacing on top of the message budget.
 */
export function statsWaitMs(link: ClientLink, now: number, minStatsIntervalMs: number): number {
  const wait = link.lastStatsAt + minStatsIntervalMs - now;
  if (wait > 0) return wait;
  link.lastStatsAt = now;
  return 0;
}

/** Closes for abuse: the seat is freed, not held for a reconnect, and the identity cools down. */
const ABUSE_CLOSES: ReadonlySet<number> = new Set([CloseCode.rate_limited, CloseCode.too_many_errors, CloseCode.frame_too_large]);

/** Whether a close code is a kick for abuse (see {@link closeFreesSeat}). */
export function isAbuseClose(code: number): boolean {
  return ABUSE_CLOSES.has(code);
}

/**
 * Whether a close the room sends frees the seat at once. A player who left, was kicked for
 * abuse, or was removed or banned by an operator loses the seat (holding an abuser's would let
 * one client fill a room by getting kicked over and over); any other close holds it for the
 * reconnection window.
 */
export function closeFreesSeat(code: number): boolean {
  return code === CloseCode.normal || code === CloseCode.kicked || code === CloseCode.banned || ABUSE_CLOSES.has(code);
}
