/**
 * Error codes carried by ERROR frames, and the WebSocket close codes the server uses.
 * AGENTS.md documents both tables; keep them in step.
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
  bad_token: 14,
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
} as const;

/** The symbolic name of an {@link ErrorCode}, e.g. `bad_input`. */
export type ErrorName = keyof typeof ErrorCode;

/** The symbolic name of a numeric error code (or `unknown`). Not on any per-message path. */
export function errorName(code: number): ErrorName | "unknown" {
  return (Object.keys(ErrorCode) as ErrorName[]).find((name) => ErrorCode[name] === code) ?? "unknown";
}

/** WebSocket close codes sent by the room (application range 4000-4999, plus 1000/1001). */
export const CloseCode = {
  /** After `leave`: the seat is freed at once. */
  normal: 1000,
  /** The server is going away (deploy, restart). */
  going_away: 1001,
  /** Client side: the server sent something the client cannot decode. */
  protocol_error: 4000,
  /** Hello refused: protocol version or wire format mismatch. */
  bad_hello: 4001,
  /** Every seat is taken. */
  room_full: 4002,
  /** Message flood; the seat is freed. */
  rate_limited: 4003,
  /** The socket's unsent backlog grew too large. */
  slow_consumer: 4004,
  /** A newer socket took this seat. */
  replaced: 4005,
  /** No hello in time after the upgrade. */
  hello_timeout: 4006,
  /** A frame over the size limit; the seat is freed. */
  frame_too_large: 4007,
  /** The room shut down. */
  room_closed: 4008,
  /** Join admission exhausted; retry later. */
  join_throttled: 4009,
  /** Too many protocol errors; the seat is freed. */
  too_many_errors: 4010,
  /** The join's seat reservation is not held (unknown, used, expired, or another player's): match again. */
  reservation_invalid: 4020,
  /** The room is locked and takes no new players. */
  room_locked: 4021,
} as const;

/** The symbolic name of a {@link CloseCode}, e.g. `replaced`. */
export type CloseName = keyof typeof CloseCode;

/** Close codes a peer may receive but no endpoint may send (RFC 6455 §7.4.1). */
const UNSENDABLE_CLOSE_CODES: ReadonlySet<number> = new Set([1004, 1005, 1006, 1015]);

/**
 * A close code that is legal to send: the code itself, or 1000 for the reserved ones and
 * anything outside 1000–4999 (e.g. answering a peer's 1006). Every host closes through it.
 */
export function sendableCloseCode(code: number): number {
  return UNSENDABLE_CLOSE_CODES.has(code) || code < 1000 || code > 4999 ? 1000 : code;
}
