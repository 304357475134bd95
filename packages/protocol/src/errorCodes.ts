import {
  CLOSE_BAD_HELLO,
  CLOSE_BAD_REQUEST,
  CLOSE_BANNED,
  CLOSE_FORBIDDEN,
  CLOSE_FRAME_TOO_LARGE,
  CLOSE_GOING_AWAY,
  CLOSE_HELLO_TIMEOUT,
  CLOSE_JOIN_REFUSED,
  CLOSE_JOIN_THROTTLED,
  CLOSE_SPECTATORS_FULL,
  CLOSE_KICKED,
  CLOSE_NORMAL,
  CLOSE_NOT_FOUND,
  CLOSE_PROTOCOL_ERROR,
  CLOSE_RATE_LIMITED,
  CLOSE_REPLACED,
  CLOSE_RESERVATION_INVALID,
  CLOSE_ROOM_CLOSED,
  CLOSE_ROOM_FULL,
  CLOSE_ROOM_LOCKED,
  CLOSE_SLOW_CONSUMER,
  CLOSE_TOO_MANY_ERRORS,
  CLOSE_UNAUTHORIZED,
  CLOSE_UNAVAILABLE,
} from "./wireCodes";

/**
 * {@link ErrorCode}'s `bad_token`, alone: the one code a client acts on by number, named here
 * so a page checks it without bundling the table.
 */
export const BAD_TOKEN_ERROR = 14;

/**
 * Error codes carried by ERROR frames, and the WebSocket close codes the server uses.
 * docs/architecture/refusals.md documents both tables; keep them in step.
 */
export const ErrorCode = {
  /** Undecodable frame, or a frame in the wrong wire format. */
  bad_frame: 1,
  /** Unknown message kind. */
  unknown_kind: 2,
  /** The game refused an input, or its seq was not above the last one. */
  bad_input: 3,
  /** Every seat is taken. */
  room_full: 4,
  /** Too many messages, or a stats request too soon after the last. */
  rate_limited: 5,
  /** A message that needs a seat arrived before hello. */
  not_joined: 6,
  /** The game refused a move its rules forbid. */
  illegal_move: 7,
  /** A turn-based game refused a move out of turn. */
  not_your_turn: 8,
  /** The hello spoke another protocol version. */
  version_mismatch: 9,
  /** The room's join admission is exhausted; retry after `retryAfterMs`. */
  join_throttled: 10,
  /** A frame over the size limit. */
  frame_too_large: 11,
  /** The game refused a move faster than its rules allow. */
  speed_violation: 12,
  /** A second hello on a seated socket. */
  already_joined: 13,
  /** Reserved; never sent (an unknown token gets a fresh seat). */
  bad_token: BAD_TOKEN_ERROR,
  /** A room message of a type the game does not handle. */
  unknown_message: 15,
  /** A room message whose payload is over `MAX_MESSAGE_PAYLOAD_CHARS`. */
  message_too_large: 16,
  /** A room message whose payload is not JSON, or that the game's validator refused. */
  bad_message: 17,
  /** The room could not answer a request: the game's handler threw, or its reply was unusable. */
  internal: 18,
  /** The join named a seat reservation the room does not hold (unknown, used, expired, or another player's): match again. */
  reservation_invalid: 19,
  /** The room is locked (a match under way) and takes no new players. */
  room_locked: 20,
  /** An operator banned this player from the room for a while; the wait is in `retryAfterMs`. */
  banned: 21,
  /** The hello's join options were refused (an unknown option, a wrong type, out of range, too large); the reason names the option. */
  bad_request: 22,
  /** The game's admission refused this player (`refuseJoin`): the reason is `<the game's code>: <its reason>`. */
  join_refused: 23,
  /**
   * The game's admission did not decide in time (the room's `admissionTimeoutMs`), or failed: the
   * socket closes `join_throttled`, to be retried after `retryAfterMs`.
   */
  admission_failed: 24,
  /** A spectator sent what only a seated player may (an input, a stats request, a room message other than `tk:follow`), or a follow target the room refused. */
  spectating: 25,
} as const;

/** The symbolic name of an {@link ErrorCode}, e.g. `bad_input`. */
export type ErrorName = keyof typeof ErrorCode;

/** The name of `code` in a table of codes by name (or `unknown`). Not on any per-message path. */
function nameIn<N extends string>(table: Readonly<Record<N, number>>, code: number): N | "unknown" {
  return (Object.keys(table) as N[]).find((name) => table[name] === code) ?? "unknown";
}

/** The symbolic name of a numeric error code (or `unknown`). Not on any per-message path. */
export function errorName(code: number): ErrorName | "unknown" {
  return nameIn(ErrorCode, code);
}

/**
 * WebSocket close codes sent by rooms and hosts (application range 4000-4999, plus 1000/1001).
 * The refusals of a join (4002, 4009, 4011-4015) close the socket before any seat: a host that
 * refuses an upgrade accepts it and closes at once with one of them, so every client (a browser
 * cannot read the HTTP status of a failed upgrade) learns why; see {@link refusalCloseReason}.
 */
export const CloseCode = {
  /** After `leave`: the seat is freed at once. */
  normal: CLOSE_NORMAL,
  /** The server is going away (deploy, restart). */
  going_away: CLOSE_GOING_AWAY,
  /** Client side: the server sent something the client cannot decode. */
  protocol_error: CLOSE_PROTOCOL_ERROR,
  /** Hello refused: protocol version or wire format mismatch. */
  bad_hello: CLOSE_BAD_HELLO,
  /** Every seat is taken. */
  room_full: CLOSE_ROOM_FULL,
  /** Message flood; the seat is freed. */
  rate_limited: CLOSE_RATE_LIMITED,
  /** The socket's unsent backlog grew too large. */
  slow_consumer: CLOSE_SLOW_CONSUMER,
  /** A newer socket took this seat. */
  replaced: CLOSE_REPLACED,
  /** No hello in time after the upgrade. */
  hello_timeout: CLOSE_HELLO_TIMEOUT,
  /** A frame over the size limit; the seat is freed. */
  frame_too_large: CLOSE_FRAME_TOO_LARGE,
  /** The room shut down. */
  room_closed: CLOSE_ROOM_CLOSED,
  /**
   * Join admission exhausted (the room's or this caller's join rate, sockets waiting for hello,
   * a cooldown after an abuse kick): retry no sooner than the close reason's wait.
   */
  join_throttled: CLOSE_JOIN_THROTTLED,
  /** Too many protocol errors; the seat is freed. */
  too_many_errors: CLOSE_TOO_MANY_ERRORS,
  /** Join refused: no room ticket, or one that is malformed, forged, expired or for another room. */
  unauthorized: CLOSE_UNAUTHORIZED,
  /** Join refused: a page origin that may not open room sockets, or a DEV_MODE-only request in production. */
  forbidden: CLOSE_FORBIDDEN,
  /** Join refused: the server hosts no room of this kind (or no room at this path). */
  not_found: CLOSE_NOT_FOUND,
  /** Join refused: a malformed join URL (room id, `%` escape, an override out of range). */
  bad_request: CLOSE_BAD_REQUEST,
  /** Join refused: the server admits no one (joins are not configured on it). */
  unavailable: CLOSE_UNAVAILABLE,
  /** The join's seat reservation is not held (unknown, used, expired, or another player's): match again. */
  reservation_invalid: CLOSE_RESERVATION_INVALID,
  /** The room is locked and takes no new players. */
  room_locked: CLOSE_ROOM_LOCKED,
  /** An operator removed this player from the room (admin API); the seat is freed. Do not come back on your own. */
  kicked: CLOSE_KICKED,
  /**
   * An operator banned this player from the room for a while: the close of a seated player who
   * was banned, and the refusal of a banned player's join (the wait in the reason).
   */
  banned: CLOSE_BANNED,
  /**
   * The game refused this player before seating it (its admission hook, `refuseJoin`): the close
   * reason is `<the game's code>: <its reason>` (a wait before it, when the game asked for one).
   */
  join_refused: CLOSE_JOIN_REFUSED,
  /** Join refused: the room holds as many spectators as it takes (its `maxSpectators`); retried like any other close (a spectator may leave). */
  spectators_full: CLOSE_SPECTATORS_FULL,
} as const;

/** The symbolic name of a {@link CloseCode}, e.g. `replaced`. */
export type CloseName = keyof typeof CloseCode;

/**
 * The refusals of a join that a retry meets again: no or a bad ticket (`unauthorized`), a foreign
 * origin (`forbidden`), an unknown kind (`not_found`), a malformed URL (`bad_request`), joins not
 * configured (`unavailable`), a full room (`room_full`), a seat reservation the room does not hold
 * (`reservation_invalid`: the matchmaker's client matches again instead), a locked room
 * (`room_locked`), an operator's ban (`banned`), the game's own refusal (`join_refused`). A client
 * ends the join and says why; the one refusal of a join to retry is `join_throttled` (the game's
 * admission out of time among them), no sooner than its wait.
 */
export const FINAL_JOIN_REFUSALS: ReadonlySet<number> = new Set<number>([
  CLOSE_ROOM_FULL,
  CLOSE_UNAUTHORIZED,
  CLOSE_FORBIDDEN,
  CLOSE_NOT_FOUND,
  CLOSE_BAD_REQUEST,
  CLOSE_UNAVAILABLE,
  CLOSE_RESERVATION_INVALID,
  CLOSE_ROOM_LOCKED,
  CLOSE_BANNED,
  CLOSE_JOIN_REFUSED,
]);

/**
 * The closes after which a client does not come back on its own: retrying cannot help. The
 * refusals of a join a retry meets again ({@link FINAL_JOIN_REFUSALS}: the game decides what
 * next, e.g. another room or a fresh ticket), a leave (`normal`), what the transport refused
 * (1002 protocol error, 1003 unsupported data, 1007 invalid payload, 1008 policy violation such
 * as a rejected ticket, 1009 message too big, 1010 missing extension), and the room's verdicts on
 * who the client is or what it sent: `protocol_error`, `bad_hello`, `replaced` (someone else took
 * the seat), `frame_too_large`, `room_closed`, `too_many_errors`, `kicked`. Any other close (a
 * drop, a restart, overload, a throttled join no sooner than its wait) may be retried.
 */
export const FINAL_CLOSES: ReadonlySet<number> = new Set<number>([
  ...FINAL_JOIN_REFUSALS,
  CLOSE_NORMAL,
  1002,
  1003,
  1007,
  1008,
  1009,
  1010,
  CLOSE_PROTOCOL_ERROR,
  CLOSE_BAD_HELLO,
  CLOSE_REPLACED,
  CLOSE_FRAME_TOO_LARGE,
  CLOSE_ROOM_CLOSED,
  CLOSE_TOO_MANY_ERRORS,
  CLOSE_KICKED,
]);

/** The symbolic name of a close code (or `unknown`, e.g. for 1006). Not on any per-message path. */
export function closeName(code: number): CloseName | "unknown" {
  return nameIn(CloseCode, code);
}

/**
 * The close code of a join refused with HTTP status `status` when the request was a WebSocket
 * upgrade: 401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 429 and 503 (admission)
 * `join_throttled`, any other `bad_request`. Hosts name the code themselves where the status
 * says less (a bad ticket is a 403 but `unauthorized`).
 */
export function refusalCloseCode(status: number): number {
  return status === 401
    ? CLOSE_UNAUTHORIZED
    : status === 403
      ? CLOSE_FORBIDDEN
      : status === 404
        ? CLOSE_NOT_FOUND
        : status === 429 || status === 503
          ? CLOSE_JOIN_THROTTLED
          : CLOSE_BAD_REQUEST;
}

/** Longest close reason, in UTF-8 bytes (RFC 6455: a 125-byte control frame less the 2-byte code). */
export const MAX_CLOSE_REASON_BYTES = 123;

/** Longest wait a close reason can ask for (ms), as for an ERROR's `retryAfterMs`. */
const MAX_RETRY_AFTER_MS = 0xffffffff;

const RETRY_PREFIX = /^retry in (\d{1,10}) ms: /;

/**
 * The close reason of a refused join: `reason`, after `retry in <ms> ms: ` when the refusal asks
 * the client to wait (`retryAfterMs` > 0, rounded up to whole ms), cut to
 * {@link MAX_CLOSE_REASON_BYTES} bytes of UTF-8 at a character boundary. The one way a wait
 * travels in a close; {@link readCloseReason} reads it back.
 */
export function refusalCloseReason(reason: string, retryAfterMs = 0): string {
  const ms = Math.min(Math.ceil(retryAfterMs), MAX_RETRY_AFTER_MS);
  return clipUtf8((ms > 0 ? `retry in ${ms} ms: ` : "") + reason, MAX_CLOSE_REASON_BYTES);
}

/** A close reason read by {@link readCloseReason}: the text, and the wait it asked for (0 when none). */
export interface CloseReason {
  /** The reason without its wait. */
  reason: string;
  /** How long the server asked the client to wait before trying again (ms; 0 when it did not). */
  retryAfterMs: number;
}

/** Reads a close reason written by {@link refusalCloseReason}; any other reason comes back whole, with no wait. */
export function readCloseReason(reason: string): CloseReason {
  const m = RETRY_PREFIX.exec(reason);
  return m ? { reason: reason.slice(m[0].length), retryAfterMs: Math.min(Number(m[1]), MAX_RETRY_AFTER_MS) } : { reason, retryAfterMs: 0 };
}

/** `text` cut to at most `maxBytes` bytes of UTF-8, never inside a character (a lone surrogate counts 3 bytes, as it is sent). */
function clipUtf8(text: string, maxBytes: number): string {
  // Under a third of the limit in UTF-16 units, no text can be over it.
  if (text.length <= maxBytes / 3) return text;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes > maxBytes) return text.slice(0, i);
    if (pair) i++;
  }
  return text;
}

/** Close codes a peer may receive but no endpoint may send (RFC 6455 §7.4.1). */
const UNSENDABLE_CLOSE_CODES: ReadonlySet<number> = new Set([1004, 1005, 1006, 1015]);

/**
 * A close code that is legal to send: the code itself, or 1000 for the reserved ones and
 * anything outside 1000–4999 (e.g. answering a peer's 1006). Every host closes through it.
 */
export function sendableCloseCode(code: number): number {
  return UNSENDABLE_CLOSE_CODES.has(code) || code < 1000 || code > 4999 ? 1000 : code;
}
