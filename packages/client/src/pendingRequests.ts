/**
 * Why a request to the room failed. `code` is the room's error name when the room refused it
 * (`rate_limited`, `message_too_large`, `bad_message`, `unknown_message`, `internal`, or the
 * game's own, e.g. `illegal_move`), or one found on this side: `timeout` (no answer in time),
 * `closed` (the socket closed first: an answer can no longer arrive), `not_joined`.
 */
export class RequestError extends Error {
  /** The error name: the room's (see the error table) or `timeout` / `closed` / `not_joined` / `bad_message` / `message_too_large` found locally. */
  readonly code: string;
  /** When > 0, how long the room asked to wait before asking again (ms). */
  readonly retryAfterMs: number;
  constructor(code: string, message: string, retryAfterMs = 0) {
    super(message);
    this.name = "RequestError";
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }
}
