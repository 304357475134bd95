import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CloseCode, FINAL_JOIN_REFUSALS, MAX_CLOSE_REASON_BYTES, closeName, readCloseReason, refusalCloseCode, refusalCloseReason } from "../src";

const utf8 = new TextEncoder();
const bytes = (s: string) => utf8.encode(s).length;

/** The naive twin: the longest prefix of `reason` at a character boundary whose bytes after `head` fit. */
function naiveClip(head: string, reason: string): string {
  const chars = Array.from(reason);
  let out = "";
  for (const ch of chars) {
    if (bytes(head + out + ch) > MAX_CLOSE_REASON_BYTES) break;
    out += ch;
  }
  return out;
}

describe("refusal close reasons", () => {
  it("carry the wait and as much of the reason as fits 123 bytes of UTF-8, cut at a character boundary", () =>
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: "binary", maxLength: 200 }), fc.string({ unit: "grapheme", maxLength: 80 }), fc.string({ maxLength: 200 })),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 0xffffffff })),
        (reason, retryAfterMs) => {
          fc.pre(!/^retry in \d/.test(reason));
          const text = refusalCloseReason(reason, retryAfterMs);
          expect(bytes(text)).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES);
          const head = retryAfterMs > 0 ? `retry in ${retryAfterMs} ms: ` : "";
          expect(text).toBe(head + naiveClip(head, reason));
          const read = readCloseReason(text);
          expect(read.retryAfterMs).toBe(retryAfterMs);
          expect(read.reason).toBe(naiveClip(head, reason));
        },
      ),
      { numRuns: 2000 },
    ));

  it("round up fractional waits, ignore negative or non-finite ones and cap the wait at 2^32-1 ms", () => {
    expect(readCloseReason(refusalCloseReason("x", 0.2))).toEqual({ reason: "x", retryAfterMs: 1 });
    expect(refusalCloseReason("x", -5)).toBe("x");
    expect(refusalCloseReason("x", Number.NaN)).toBe("x");
    expect(readCloseReason(refusalCloseReason("x", Number.POSITIVE_INFINITY))).toEqual({ reason: "x", retryAfterMs: 0xffffffff });
    expect(readCloseReason("retry in 99999999999 ms: x")).toEqual({ reason: "retry in 99999999999 ms: x", retryAfterMs: 0 });
    expect(readCloseReason("retry in 9999999999 ms: x")).toEqual({ reason: "x", retryAfterMs: 0xffffffff });
    expect(readCloseReason("")).toEqual({ reason: "", retryAfterMs: 0 });
  });
});

describe("refusal close codes", () => {
  it("map the HTTP status of a refusal to its close code, and name every code", () => {
    expect([401, 403, 404, 429, 503, 400, 426].map(refusalCloseCode)).toEqual([
      CloseCode.unauthorized,
      CloseCode.forbidden,
      CloseCode.not_found,
      CloseCode.join_throttled,
      CloseCode.join_throttled,
      CloseCode.bad_request,
      CloseCode.bad_request,
    ]);
    for (const [name, code] of Object.entries(CloseCode)) expect(closeName(code)).toBe(name);
    expect(closeName(1006)).toBe("unknown");
    expect(new Set(Object.values(CloseCode)).size).toBe(Object.keys(CloseCode).length);
  });

  it("end a join for every refusal a retry meets again, and only join_throttled is left to retry", () => {
    const { room_full, unauthorized, forbidden, not_found, bad_request, unavailable, reservation_invalid, room_locked, banned, join_refused, join_throttled } = CloseCode;
    expect([...FINAL_JOIN_REFUSALS].sort()).toEqual([room_full, unauthorized, forbidden, not_found, bad_request, unavailable, reservation_invalid, room_locked, banned, join_refused].sort());
    expect(FINAL_JOIN_REFUSALS.has(join_throttled)).toBe(false);
    // Every close code a host refuses with by HTTP status is one of them, or join_throttled.
    for (const status of [400, 401, 403, 404, 429, 503]) expect(FINAL_JOIN_REFUSALS.has(refusalCloseCode(status)) || refusalCloseCode(status) === join_throttled).toBe(true);
  });
});
