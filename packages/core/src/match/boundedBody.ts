/**
 * Every HTTP body a host reads goes through {@link readBoundedBody}: a request's body is bounded
 * before it is read, so a caller cannot make a host hold more than a route's limit in memory
 * (a Worker isolate has ~128 MB; one 64 MiB body read whole would take half of it). A declared
 * `Content-Length` over the limit is refused without reading a byte; a body without one is read
 * through a counter that stops, and cancels the stream, at the limit. Both hosts' routes that take
 * a body (the match paths, the admin API's actions) read theirs here.
 */

/** Where a request's body comes from: what it declares and its bytes. */
export interface BodySource {
  /** The `Content-Length` header's value; null when the request has none (a chunked body, or none). */
  contentLength: string | null;
  /**
   * The body's bytes: a web stream (`Request.body` on Workers or fetch), any async iterable of
   * byte chunks (a Node request), or null for none. An iterator's `return` is called when the
   * rest is refused: a host whose connection must outlive that (Node: to write the answer) hands
   * an iterable without one and closes the connection after its answer instead.
   */
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
}

/** What {@link readBoundedBody} read: the text, or why not (413 over the limit, 400 a malformed length). */
export type BoundedBody =
  | {
      /** Read. */
      ok: true;
      /** The body as UTF-8 text ("" for none). */
      text: string;
    }
  | {
      /** Refused. */
      ok: false;
      /** 413 over the limit; 400 a `Content-Length` that is not a length. */
      status: 400 | 413;
      /** Text safe to send the client. */
      reason: string;
    };

/**
 * Bytes read per character of a limit: UTF-8 takes at most three bytes per UTF-16 unit, so a
 * body within a route's character limit is always within this many bytes per character.
 */
export const MAX_BYTES_PER_CHAR = 3;

/** The byte bound of a limit of `maxChars` characters (see {@link MAX_BYTES_PER_CHAR}). */
export function bodyByteLimit(maxChars: number): number {
  return maxChars * MAX_BYTES_PER_CHAR;
}

const DIGITS = /^\d{1,15}$/;

/**
 * A request's declared length against a limit of `maxChars` characters: null when it may be read
 * (no length, or one within the byte bound), else the refusal. Reads nothing: a host may call it
 * before anything else about the request (and {@link readBoundedBody} calls it first).
 */
export function declaredTooLarge(contentLength: string | null, maxChars: number): BoundedBody | null {
  if (contentLength === null) return null;
  const v = contentLength.trim();
  if (!DIGITS.test(v)) return { ok: false, status: 400, reason: "the Content-Length header is not a length" };
  if (Number(v) > bodyByteLimit(maxChars)) return tooLarge(maxChars);
  return null;
}

function tooLarge(maxChars: number): BoundedBody {
  return { ok: false, status: 413, reason: `the body is over ${maxChars} characters` };
}

/**
 * Reads a body of at most `maxChars` characters as UTF-8 text: refused 413 when its declared
 * length is over the byte bound (nothing read; the stream cancelled), when more bytes arrive than
 * the bound (reading stops there and the stream is cancelled), or when the text it decodes to is
 * longer than `maxChars`. Never reads past the bound, whatever the body claims.
 */
export async function readBoundedBody(source: BodySource, maxChars: number): Promise<BoundedBody> {
  const declared = declaredTooLarge(source.contentLength, maxChars);
  const body = source.body;
  if (declared) {
    await cancel(body);
    return declared;
  }
  if (body === null) return { ok: true, text: "" };
  const limit = bodyByteLimit(maxChars);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const over = (chunk: Uint8Array): boolean => {
    total += chunk.byteLength;
    if (total > limit) return true;
    chunks.push(chunk);
    return false;
  };
  if (isWebStream(body)) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (over(value)) {
        await reader.cancel().catch(() => {});
        return tooLarge(maxChars);
      }
    }
  } else {
    const it = body[Symbol.asyncIterator]();
    for (;;) {
      const { done, value } = await it.next();
      if (done) break;
      if (over(value)) {
        await it.return?.();
        return tooLarge(maxChars);
      }
    }
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  const text = new TextDecoder().decode(bytes);
  return text.length > maxChars ? tooLarge(maxChars) : { ok: true, text };
}

function isWebStream(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): body is ReadableStream<Uint8Array> {
  return typeof (body as ReadableStream<Uint8Array>).getReader === "function";
}

async function cancel(body: BodySource["body"]): Promise<void> {
  if (body === null) return;
  if (isWebStream(body)) await body.cancel().catch(() => {});
  else await body[Symbol.asyncIterator]().return?.();
}

/**
 * A web stream's chunks as an async iterable whose every read goes through `wait` (a host's
 * meter, so the body's arrival is counted as I/O, not the host's time: `BusyMeter.waiting`), for
 * {@link readBoundedBody}: it reads chunk by chunk and, refusing the rest, calls `return`, which
 * cancels the stream. Null for no body.
 */
export function waitedBody(body: ReadableStream<Uint8Array> | null, wait: <T>(io: Promise<T>) => Promise<T>): AsyncIterable<Uint8Array> | null {
  if (body === null) return null;
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      const reader = body.getReader();
      return {
        next: async () => {
          const r = await wait(reader.read());
          return r.done ? { done: true, value: undefined } : { done: false, value: r.value };
        },
        return: async () => {
          await reader.cancel().catch(() => {});
          return { done: true, value: undefined };
        },
      };
    },
  };
}
