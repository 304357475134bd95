/**
 * Requests a connection sends and the room answers by id (`tk:stats`, room messages), and the
 * error they fail with. All are rejected when their socket closes, so no caller waits forever.
 */

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

/** The one table of a connection's open requests: answered by id, each with its own timeout. */
export class PendingRequests {
  #nextId = 1;
  readonly #waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> }>();

  /**
   * Lets `send` put a request on the wire with a fresh id and waits for its answer. When `send`
   * throws (a payload that cannot be sent), the promise rejects with that and nothing waits.
   */
  request(timeoutMs: number, what: string, send: (id: number) => void): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      send(id);
      const timer = setTimeout(() => this.settle(id, undefined, new RequestError("timeout", `${what} timed out after ${timeoutMs} ms`)), timeoutMs);
      this.#waiting.set(id, { resolve, reject, timer });
    });
  }

  /** Answers request `id`: fails it with `error` when given, else resolves it with `value`. Unknown or settled ids are ignored. */
  settle(id: number, value: unknown, error?: Error): void {
    const w = this.#waiting.get(id);
    if (!w) return;
    clearTimeout(w.timer);
    this.#waiting.delete(id);
    if (error) w.reject(error);
    else w.resolve(value);
  }

  /** Rejects every open request with `error`. */
  rejectAll(error: Error): void {
    for (const id of this.#waiting.keys()) this.settle(id, undefined, error);
  }
}
