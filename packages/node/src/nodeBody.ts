/**
 * A Node request's body as the core's bounded reader takes it (`readBoundedBody`), and the one
 * rule that keeps an unread body from being read anyway: Node drains what a handler left unread
 * to keep the connection alive, so a body a route refused (or never wanted) would still be read to
 * its end, however long. Such a request's answer closes the connection instead.
 */
import type { IncomingMessage } from "node:http";
import type { BodySource } from "@tikron/core/match";

/**
 * `req`'s body for `readBoundedBody`: its iterator has no `return`, so stopping at the limit
 * leaves the socket open for the answer (ending the iteration early would destroy it first).
 */
export function nodeBody(req: IncomingMessage): BodySource {
  const length = req.headers["content-length"];
  return {
    contentLength: typeof length === "string" ? length : null,
    body: {
      [Symbol.asyncIterator]: () => {
        const it = req[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
        return { next: () => it.next() };
      },
    },
  };
}

/** Whether `req` carries a body not yet read to its end (its answer must close the connection). */
export function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers["content-length"];
  return (typeof length === "string" && length.trim() !== "0") || req.headers["transfer-encoding"] !== undefined;
}
