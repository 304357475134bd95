import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CloseCode } from "@tikron/protocol";
import { Backoff } from "../src/backoff";
import { ReconnectPolicy, isRetryableClose } from "../src/reconnect";
import { seeded } from "./helpers";

function drain(b: Backoff, min = 0): number[] {
  const out: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const d = b.next(min);
    if (d === null) break;
    out.push(d);
  }
  return out;
}

describe("Backoff", () => {
  it("full jitter stays in [0, min(cap, base·2^n)] for any random source", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { minLength: 40, maxLength: 40 }),
        (base, capExtra, attempts, rs) => {
          const cap = base + capExtra;
          let i = 0;
          const b = new Backoff({ baseMs: base, maxMs: cap, maxAttempts: attempts, random: () => rs[i++ % rs.length] });
          const ds = drain(b);
          expect(ds.length).toBe(attempts);
          ds.forEach((d, n) => {
            expect(d).toBeGreaterThanOrEqual(0);
            expect(d).toBeLessThanOrEqual(Math.min(cap, base * 2 ** n));
          });
        },
      ),
    );
  });

  it("two clients do not back off in lock-step", () => {
    const a = drain(new Backoff({ maxAttempts: 8 }));
    const b = drain(new Backoff({ maxAttempts: 8 }));
    expect(a).not.toEqual(b);
    const c = drain(new Backoff({ maxAttempts: 8, random: seeded(1) }));
    const d = drain(new Backoff({ maxAttempts: 8, random: seeded(2) }));
    expect(c.filter((x, i) => x === d[i]).length).toBe(0);
  });

  it("is bounded: reports exhaustion after maxAttempts, and reset starts over", () => {
    const b = new Backoff({ baseMs: 100, maxMs: 1000, maxAttempts: 3, random: () => 0.999 });
    expect(drain(b).length).toBe(3);
    expect(b.exhausted).toBe(true);
    expect(b.next()).toBeNull();
    b.reset();
    const first = b.next();
    expect(first).not.toBeNull();
    expect(first!).toBeLessThanOrEqual(100);
  });

  it("grows toward the cap and never beyond it", () => {
    const ds = drain(new Backoff({ baseMs: 100, maxMs: 5000, maxAttempts: 30, random: () => 0.999999 }));
    expect(ds[0]).toBeLessThan(100);
    expect(ds[5]).toBeGreaterThan(3000);
    expect(Math.max(...ds)).toBeLessThanOrEqual(5000);
  });

  it("respects retryAfterMs and still spreads the clients out", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60_000 }), fc.integer(), (retryAfter, seed) => {
        const b = new Backoff({ baseMs: 200, maxMs: 4000, maxAttempts: 5, random: seeded(seed) });
        for (const d of drain(b, retryAfter)) {
          expect(d).toBeGreaterThanOrEqual(retryAfter);
          expect(d).toBeLessThanOrEqual(retryAfter + 4000);
        }
      }),
    );
    const firsts = Array.from({ length: 50 }, (_, i) => new Backoff({ baseMs: 500, random: seeded(i + 1) }).next(1000)!);
    expect(new Set(firsts.map((d) => Math.round(d))).size).toBeGreaterThan(40);
    expect(Math.max(...firsts) - Math.min(...firsts)).toBeGreaterThan(250);
  });
});

describe("ReconnectPolicy", () => {
  it("does not come back after codes that say so, refused joins among them", () => {
    const refusals = [CloseCode.room_full, CloseCode.unauthorized, CloseCode.forbidden, CloseCode.not_found, CloseCode.bad_request, CloseCode.unavailable];
    for (const code of [1000, CloseCode.bad_hello, CloseCode.replaced, CloseCode.room_closed, CloseCode.protocol_error, CloseCode.too_many_errors, ...refusals]) {
      expect(isRetryableClose(code)).toBe(false);
      expect(new ReconnectPolicy().onClose(code, { retryAfterMs: 1000 })).toMatchObject({ reconnect: false, why: "fatal_code" });
    }
    for (const code of [1001, 1006, 1011, CloseCode.join_throttled, CloseCode.slow_consumer, CloseCode.hello_timeout]) {
      expect(isRetryableClose(code)).toBe(true);
    }
  });

  it("paces join_throttled by the server's wait", () => {
    const p = new ReconnectPolicy({ baseMs: 100, maxMs: 1000, random: () => 0 });
    const throttled = p.onClose(CloseCode.join_throttled, { retryAfterMs: 4000 });
    expect(throttled.reconnect && throttled.delayMs).toBeGreaterThanOrEqual(4000);
    // A plain drop may come back quickly (here random() = 0).
    expect(p.onClose(1006)).toMatchObject({ reconnect: true, delayMs: 0 });
  });

  it("gives up after maxAttempts and starts over once stable", () => {
    const p = new ReconnectPolicy({ maxAttempts: 2 });
    expect(p.onClose(1006).reconnect).toBe(true);
    expect(p.onClose(1006)).toMatchObject({ reconnect: true, attempt: 2 });
    expect(p.onClose(1006)).toMatchObject({ reconnect: false, why: "attempts_exhausted" });
    p.markStable();
    expect(p.onClose(1006)).toMatchObject({ reconnect: true, attempt: 1 });
  });

  it("is a Backoff: its delays and attempt count are the policy's", () => {
    const p = new ReconnectPolicy({ baseMs: 100, maxMs: 100, maxAttempts: 3, random: () => 0.5 });
    expect(p).toBeInstanceOf(Backoff);
    expect(p.onClose(1006)).toEqual({ reconnect: true, delayMs: 50, attempt: 1 });
    expect(p.attempts).toBe(1);
    expect(p.next()).toBe(50);
    expect(p.onClose(1006)).toMatchObject({ attempt: 3 });
    expect(p.exhausted).toBe(true);
    p.markStable();
    expect(p.attempts).toBe(0);
  });

  it("can be disabled, and retries a bad_hello caused by a rejected token", () => {
    expect(new ReconnectPolicy(false).onClose(1006)).toMatchObject({ reconnect: false, why: "disabled" });
    expect(new ReconnectPolicy().onClose(CloseCode.bad_hello, { tokenRejected: true }).reconnect).toBe(true);
  });
});
