import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_BYTES_PER_CHAR, bodyByteLimit, declaredTooLarge, readBoundedBody, waitedBody, type BodySource } from "../../src/match/boundedBody";

const enc = new TextEncoder();

/** A web stream of `chunks`, recording how many were pulled and whether it was cancelled. */
function stream(chunks: Uint8Array[] | (() => Uint8Array)) {
  const seen = { pulled: 0, cancelled: false };
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      seen.pulled++;
      if (typeof chunks === "function") return c.enqueue(chunks());
      if (i < chunks.length) c.enqueue(chunks[i++]!);
      else c.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

/** An async iterable of `chunks`, recording pulls and whether `return` was called. */
function iterable(chunks: () => Uint8Array, withReturn: boolean) {
  const seen = { pulled: 0, returned: false };
  const it: AsyncIterator<Uint8Array> = {
    next: async () => {
      seen.pulled++;
      return { done: false, value: chunks() };
    },
  };
  if (withReturn)
    it.return = async () => {
      seen.returned = true;
      return { done: true, value: undefined };
    };
  return { body: { [Symbol.asyncIterator]: () => it }, seen };
}

describe("readBoundedBody: every body bounded before it is read", () => {
  it("refuses a declared length over the bound without reading a byte, and cancels the stream", async () => {
    const { body, seen } = stream([enc.encode("{}")]);
    const r = await readBoundedBody({ contentLength: String(64 * 1024 * 1024), body }, 4096);
    expect(r).toEqual({ ok: false, status: 413, reason: "the body is over 4096 characters" });
    expect(seen.cancelled).toBe(true);
    expect(declaredTooLarge(String(bodyByteLimit(4096)), 4096)).toBeNull();
    expect(declaredTooLarge(String(bodyByteLimit(4096) + 1), 4096)).toMatchObject({ status: 413 });
    expect(declaredTooLarge("12abc", 4096)).toMatchObject({ status: 400 });
    expect(declaredTooLarge("-1", 4096)).toMatchObject({ status: 400 });
  });

  it("stops an endless body without a length at the bound and cancels it", async () => {
    const chunk = new Uint8Array(1024);
    const { body, seen } = stream(() => chunk);
    expect(await readBoundedBody({ contentLength: null, body }, 4096)).toMatchObject({ ok: false, status: 413 });
    expect(seen.cancelled).toBe(true);
    // Never more than the bound plus one chunk was pulled (a stream may pull one ahead).
    expect(seen.pulled * 1024).toBeLessThanOrEqual(bodyByteLimit(4096) + 2 * 1024);
    const endless = iterable(() => chunk, true);
    expect(await readBoundedBody({ contentLength: null, body: endless.body }, 4096)).toMatchObject({ ok: false, status: 413 });
    expect(endless.seen.returned).toBe(true);
    expect(endless.seen.pulled).toBe(Math.floor(bodyByteLimit(4096) / 1024) + 1);
    // An iterator without `return` (the Node host's) is simply no longer read.
    const node = iterable(() => chunk, false);
    expect(await readBoundedBody({ contentLength: null, body: node.body }, 4096)).toMatchObject({ ok: false, status: 413 });
    expect(node.seen.pulled).toBe(Math.floor(bodyByteLimit(4096) / 1024) + 1);
  });

  it("does not trust a declared length that is short of the body", async () => {
    const { body } = stream(() => new Uint8Array(4096));
    expect(await readBoundedBody({ contentLength: "10", body }, 100)).toMatchObject({ ok: false, status: 413 });
  });

  it("reads what fits, across chunks and split characters, and refuses text over the limit in characters", async () => {
    const text = '{"name":"é😀"}';
    const bytes = enc.encode(text);
    const { body } = stream([bytes.slice(0, 11), bytes.slice(11)]);
    expect(await readBoundedBody({ contentLength: String(bytes.length), body }, 64)).toEqual({ ok: true, text });
    expect(await readBoundedBody({ contentLength: null, body: null }, 64)).toEqual({ ok: true, text: "" });
    const ascii = "x".repeat(101);
    expect(await readBoundedBody({ contentLength: null, body: stream([enc.encode(ascii)]).body }, 100)).toMatchObject({ ok: false, status: 413 });
  });

  it("never refuses text within the limit however its characters encode (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 64 }), fc.integer({ min: 1, max: 16 }), async (s, parts) => {
        const bytes = enc.encode(s);
        const size = Math.ceil(bytes.length / parts) || 1;
        const chunks: Uint8Array[] = [];
        for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size));
        const source: BodySource = { contentLength: null, body: stream(chunks).body };
        const r = await readBoundedBody(source, Math.max(1, s.length));
        expect(bytes.length).toBeLessThanOrEqual(Math.max(1, s.length) * MAX_BYTES_PER_CHAR);
        expect(r).toEqual({ ok: true, text: s });
      }),
      { numRuns: 60 },
    );
  });
});

describe("waitedBody: a stream read through the host's wait", () => {
  const streamOf = (n: number, cancelled: { at: boolean }) => {
    const chunks = Array.from({ length: n }, () => new Uint8Array(40));
    return new ReadableStream<Uint8Array>({
      pull: (c) => void (chunks.length > 0 ? c.enqueue(chunks.shift()!) : c.close()),
      cancel: () => void (cancelled.at = true),
    });
  };

  it("sends every read through the wait (each chunk and the end), and cancels the stream when the rest is refused", async () => {
    let waits = 0;
    const wait = <T,>(io: Promise<T>): Promise<T> => {
      waits++;
      return io;
    };
    const kept = { at: false };
    expect((await readBoundedBody({ contentLength: null, body: waitedBody(streamOf(3, kept), wait) }, 1_000)).ok).toBe(true);
    expect(waits).toBe(4);
    expect(kept.at).toBe(false);
    const refused = { at: false };
    expect((await readBoundedBody({ contentLength: null, body: waitedBody(streamOf(100, refused), wait) }, 10)).ok).toBe(false);
    expect(refused.at).toBe(true);
    expect(waitedBody(null, wait)).toBeNull();
  });
});
