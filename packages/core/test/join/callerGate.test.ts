import { describe, expect, it } from "vitest";
import { CallerGate, MAX_BACKOFF_MS } from "../../src/join/callerGate";

describe("CallerGate", () => {
  it("repeats a room's 429 under the caller and its ticket until the Retry-After ends, then forgets it", () => {
    const g = new CallerGate();
    g.forwarded("k");
    g.answered("k", "T", 429, 2, 1_000);
    expect(g.checkCaller("k", 8, 1_500)).toEqual({ retryAfterMs: 1_500, why: "remembered" });
    expect(g.checkTicket("T", 2_999)).toEqual({ retryAfterMs: 1, why: "remembered" });
    expect(g.checkTicket("other", 1_500)).toBeNull();
    expect(g.checkCaller("k", 8, 3_000)).toBeNull();
    expect(g.checkTicket("T", 3_000)).toBeNull();
  });

  it("remembers nothing but 429s, and a 429 without Retry-After for one second", () => {
    const g = new CallerGate();
    for (const status of [101, 200, 403, 503]) {
      g.forwarded("k");
      g.answered("k", "T", status, 5, 0);
      expect(g.checkCaller("k", 8, 1)).toBeNull();
      expect(g.checkTicket("T", 1)).toBeNull();
    }
    g.forwarded("k");
    g.answered("k", null, 429, 0, 0);
    expect(g.checkCaller("k", 8, 999)?.why).toBe("remembered");
    expect(g.checkCaller("k", 8, 1_000)).toBeNull();
  });

  it("counts a caller's upgrades in flight: a burst beyond the cap is held back, answers free the slots", () => {
    const g = new CallerGate();
    for (let i = 0; i < 3; i++) {
      expect(g.checkCaller("k", 3, 0)).toBeNull();
      g.forwarded("k");
    }
    expect(g.checkCaller("k", 3, 0)).toEqual({ retryAfterMs: 1000, why: "burst" });
    expect(g.checkCaller("other", 3, 0)).toBeNull();
    g.answered("k", null, 101, 0, 0);
    expect(g.checkCaller("k", 3, 0)).toBeNull();
    // An answer that never had a forward (e.g. a thrown fetch counted twice) never goes below zero.
    g.answered("k", null, 101, 0, 0);
    g.answered("k", null, 101, 0, 0);
    g.answered("k", null, 101, 0, 0);
    for (let i = 0; i < 3; i++) g.forwarded("k");
    expect(g.checkCaller("k", 3, 0)?.why).toBe("burst");
  });

  it("doubles the wait of a caller refused again soon after its wait ended, up to the cap; a caller who stays away starts over", () => {
    const g = new CallerGate();
    let now = 0;
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      g.forwarded("k");
      const w = g.answered("k", "T", 429, 1, now);
      waits.push(w);
      expect(g.checkCaller("k", 8, now + w * 1000 - 1)?.why).toBe("remembered");
      expect(g.checkTicket("T", now + w * 1000 - 1)?.why).toBe("remembered");
      expect(g.checkCaller("k", 8, now + w * 1000)).toBeNull();
      now += w * 1000 + 50; // comes straight back when told it may
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8].map((s) => Math.min(s, MAX_BACKOFF_MS / 1000)));
    // Away for longer than the repeat window: back to the room's own Retry-After.
    now += 10_000;
    g.forwarded("k");
    expect(g.answered("k", null, 429, 1, now)).toBe(1);
    // Never shorter than what the room asked for.
    g.forwarded("j");
    expect(g.answered("j", null, 429, 30, now)).toBe(30);
  });
});
