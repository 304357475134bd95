/**
 * Promises a connection hands out and settles later: requests answered by id (`tk:stats`), and
 * plain waiters for the next event (the next welcome). All are rejected when the connection ends
 * for good, so no caller waits forever.
 */

type Timer = ReturnType<typeof setTimeout>;

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

/** Requests answered by id, each with its own timeout. */
export class PendingRequests<T> {
  #nextId = 1;
  readonly #waiting = new Map<number, { resolve: (v: T) => void; reject: (e: Error) => void; timer: Timer }>();

  /** Registers a request, lets `send` put it on the wire with its id, and waits for the answer. */
  request(timeoutMs: number, send: (id: number) => void, what: string): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new RequestError("timeout", `${what} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.set(id, { resolve, reject, timer });
      send(id);
    });
  }

  /** Settles request `id` (an answer to an unknown or timed-out id is ignored). */
  resolve(id: number, value: T): void {
    this.#take(id)?.resolve(value);
  }

  /** Fails request `id` with `err` (an unknown or timed-out id is ignored). */
  reject(id: number, err: Error): void {
    this.#take(id)?.reject(err);
  }

  #take(id: number): { resolve: (v: T) => void; reject: (e: Error) => void } | undefined {
    const w = this.#waiting.get(id);
    if (w) {
      clearTimeout(w.timer);
      this.#waiting.delete(id);
    }
    return w;
  }

  /** Rejects every open request. */
  rejectAll(err: Error): void {
    for (const [id, w] of this.#waiting) {
      clearTimeout(w.timer);
      w.reject(err);
      this.#waiting.delete(id);
    }
  }
}

/** Callers waiting for the next occurrence of something. */
export class Waiters<T> {
  #list: { resolve: (v: T) => void; reject: (e: Error) => void }[] = [];

  /** Waits for the next {@link resolveAll}. */
  wait(): Promise<T> {
    return new Promise((resolve, reject) => this.#list.push({ resolve, reject }));
  }

  /** Resolves every waiter with `value`. */
  resolveAll(value: T): void {
    const list = this.#list;
    this.#list = [];
    for (const w of list) w.resolve(value);
  }

  /** Rejects every waiter. */
  rejectAll(err: Error): void {
    const list = this.#list;
    this.#list = [];
    for (const w of list) w.reject(err);
  }
}
