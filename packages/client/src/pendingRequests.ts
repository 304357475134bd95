import { RequestError } from "@tikron/protocol";

// The class lives in the protocol so the core's test clients reject with the same one.
export { RequestError };

/**
 * Requests awaiting an answer (stats and room messages), by id, each with its timeout. An answer
 * can only come on the socket that asked, so the connection fails them all when it goes.
 */
export interface RequestTable {
  /**
   * Takes a fresh id, hands it to `send` and waits for its answer; fails with `timeout` after
   * `timeoutMs`. When `send` throws (a payload that cannot be sent) the promise rejects with that
   * and nothing waits.
   */
  add(timeoutMs: number, what: string, send: (id: number) => void): Promise<unknown>;
  /** Answers request `id`: fails it with `error` when given, else resolves it with `value`. Unknown or settled ids are ignored. */
  settle(id: number, value: unknown, error?: Error): void;
  /** Fails every open request with `error`. */
  failAll(error: Error): void;
}

/** An empty {@link RequestTable}. */
export function requestTable(): RequestTable {
  // Each open request is the one function that ends it (its timer cleared, its promise settled).
  const open = new Map<number, (value: unknown, error?: Error) => void>();
  let nextId = 1;
  const settle = (id: number, value: unknown, error?: Error): void => {
    const end = open.get(id);
    open.delete(id);
    end?.(value, error);
  };
  return {
    add(timeoutMs, what, send) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        send(id);
        const timer = setTimeout(() => settle(id, undefined, new RequestError("timeout", `${what} timed out after ${timeoutMs} ms`)), timeoutMs);
        open.set(id, (value, error) => {
          clearTimeout(timer);
          if (error) reject(error);
          else resolve(value);
        });
      });
    },
    settle,
    failAll(error) {
      for (const id of open.keys()) settle(id, undefined, error);
    },
  };
}
