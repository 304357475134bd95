import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MatchQueue, ratingWindow, type QueueEntry } from "../../src/match";

const spec = (groupSize: number, initial = 50, widenPerSec = 100, max = 400) => ({ groupSize, ratingWindow: { initial, widenPerSec, max }, timeoutMs: 30_000 });

describe("MatchQueue", () => {
  it("groups players within the window, widening with time, oldest first", () => {
    const q = new MatchQueue(spec(2));
    q.add({ queueId: "a", identity: "a", rating: 1000, enqueuedAt: 0 });
    q.add({ queueId: "b", identity: "b", rating: 1200, enqueuedAt: 0 });
    q.add({ queueId: "c", identity: "c", rating: 1500, enqueuedAt: 0 });
    expect(q.takeGroups(0)).toEqual([]);
    // After 1.5 s the window is 200: a and b fit, c (300 away from b) waits.
    const groups = q.takeGroups(1500);
    expect(groups.map((g) => g.map((e) => e.queueId).sort())).toEqual([["a", "b"]]);
    expect(q.size).toBe(1);
    expect(q.takeExpired(29_999)).toEqual([]);
    expect(q.takeExpired(30_000).map((e) => e.queueId)).toEqual(["c"]);
  });

  it("one identity waits once: queueing again replaces the older entry", () => {
    const q = new MatchQueue(spec(2));
    q.add({ queueId: "a1", identity: "ann", rating: 1000, enqueuedAt: 0 });
    expect(q.add({ queueId: "a2", identity: "ann", rating: 1000, enqueuedAt: 5 })?.queueId).toBe("a1");
    expect(q.size).toBe(1);
    expect(q.takeGroups(10_000)).toEqual([]);
  });

  it("property: every group has exactly groupSize distinct players whose spread fits every member's window", () => {
    const entry = fc.record({ rating: fc.integer({ min: 0, max: 3000 }), enqueuedAt: fc.integer({ min: 0, max: 20_000 }) });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 6 }), fc.array(entry, { maxLength: 60 }), fc.integer({ min: 0, max: 40_000 }), (size, raw, now) => {
        const s = spec(size, 20, 60, 500);
        const q = new MatchQueue(s);
        const entries: QueueEntry[] = raw.map((r, i) => ({ queueId: `q${i}`, identity: `p${i}`, ...r }));
        for (const e of entries) q.add(e);
        const groups = q.takeGroups(now);
        const seen = new Set<string>();
        for (const g of groups) {
          expect(g).toHaveLength(size);
          const ratings = g.map((e) => e.rating);
          const spread = Math.max(...ratings) - Math.min(...ratings);
          for (const e of g) {
            expect(seen.has(e.queueId)).toBe(false);
            seen.add(e.queueId);
            expect(spread).toBeLessThanOrEqual(ratingWindow(s, now - e.enqueuedAt));
            expect(q.get(e.queueId)).toBeUndefined();
          }
        }
        // Nobody lost: grouped + still waiting = everyone.
        expect(seen.size + q.size).toBe(entries.length);
      }),
      { numRuns: 300 },
    );
  });

  it("property: a queue whose players all share one rating is emptied down to fewer than a group", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 0, max: 50 }), (size, n) => {
        const q = new MatchQueue(spec(size, 0, 0, 0));
        for (let i = 0; i < n; i++) q.add({ queueId: `q${i}`, identity: `p${i}`, rating: 7, enqueuedAt: i });
        const groups = q.takeGroups(100);
        expect(groups.length).toBe(Math.floor(n / size));
        expect(q.size).toBe(n % size);
      }),
    );
  });
});
