/**
 * Error codes carried by ERROR frames, and the WebSocket close codes the server uses.
 * AGENTS.md documents both tables; keep them in step.
 */
export const ErrorCode = {
  bad_frame: 1,
  unknown_kind: 2,
  bad_input: 3,
  room_full: 4,
  rate_limited: 5,
  not_joined: 6,
  illegal_move: 7,
  not_your_turn: 8,
  version_mismatch: 9,
  join_throttled: 10,
  frame_too_large: 11,
  speed_violation: 12,
  already_joined: 13,
  bad_token: 14,
} as const;

/** The symbolic name of an ERROR code, e.g. `room_full`; `tk:stats` counts errors under it. */
export type ErrorName = keyof typeof ErrorCode;

const errorNames = new Map<number, ErrorName>(
  (Object.entries(ErrorCode) as [ErrorName, number][]).map(([k, v]) => [v, k]),
);

/** The symbolic name of a numeric error code (or `unknown`). */
export function errorName(code: number): ErrorName | "unknown" {
  return errorNames.get(code) ?? "unknown";
}

/** WebSocket close codes sent by the room (application range 4000-4999, plus 1000/1001). */
export const CloseCode = {
  normal: 1000,
  going_away: 1001,
  protocol_error: 4000,
  bad_hello: 4001,
  room_full: 4002,
  rate_limited: 4003,
  slow_consumer: 4004,
  replaced: 4005,
  hello_timeout: 4006,
  frame_too_large: 4007,
  room_closed: 4008,
  join_throttled: 4009,
  too_many_errors: 4010,
} as const;

/** The symbolic name of a close code, e.g. `slow_consumer`. */
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
