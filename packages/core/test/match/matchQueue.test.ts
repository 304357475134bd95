import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MatchQueue, ratingWindow, seatsOf, type QueueEntry } from "../../src/match";

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

  it("a party is one entry of its seats: a party of the group's size is a group alone; a smaller one is filled by the nearest that fit", () => {
    const q = new MatchQueue(spec(4, 50, 0, 50));
    q.add({ queueId: "duo", identity: "party:A", rating: 1000, enqueuedAt: 0, seats: [{ identity: "a1" }, { identity: "a2" }] });
    q.add({ queueId: "trio", identity: "party:B", rating: 1010, enqueuedAt: 1, seats: [{ identity: "b1" }, { identity: "b2" }, { identity: "b3" }] });
    q.add({ queueId: "s1", identity: "s1", rating: 1020, enqueuedAt: 2 });
    // The duo (oldest) finds the solo but no fourth seat: the trio does not fit beside it (2 + 3 > 4).
    // The trio and the solo make four.
    expect(q.takeGroups(10).map((g) => g.map((e) => e.queueId).sort())).toEqual([["s1", "trio"]]);
    q.add({ queueId: "s2", identity: "s2", rating: 990, enqueuedAt: 3 });
    expect(q.takeGroups(10)).toEqual([]);
    q.add({ queueId: "s3", identity: "s3", rating: 995, enqueuedAt: 4 });
    expect(q.takeGroups(10).map((g) => g.map((e) => e.queueId).sort())).toEqual([["duo", "s2", "s3"]]);
    q.add({ queueId: "four", identity: "party:C", rating: 5000, enqueuedAt: 5, seats: [{ identity: "c1" }, { identity: "c2" }, { identity: "c3" }, { identity: "c4" }] });
    expect(q.takeGroups(10).map((g) => g.map((e) => e.queueId))).toEqual([["four"]]);
    expect(q.size).toBe(0);
  });

  it("property: groups of parties and players have exactly groupSize seats, fit every entry's window, and lose no one", () => {
    const entry = fc.record({ rating: fc.integer({ min: 0, max: 3000 }), enqueuedAt: fc.integer({ min: 0, max: 20_000 }), seats: fc.integer({ min: 1, max: 7 }) });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 6 }), fc.array(entry, { maxLength: 50 }), fc.integer({ min: 0, max: 40_000 }), (size, raw, now) => {
        const s = spec(size, 20, 60, 500);
        const q = new MatchQueue(s);
        const entries: QueueEntry[] = raw.map((r, i) => ({
          queueId: `q${i}`,
          identity: `e${i}`,
          rating: r.rating,
          enqueuedAt: r.enqueuedAt,
          ...(r.seats > 1 ? { seats: Array.from({ length: r.seats }, (_, k) => ({ identity: `e${i}.${k}` })) } : {}),
        }));
        for (const e of entries) q.add(e);
        const groups = q.takeGroups(now);
        const seen = new Set<string>();
        for (const g of groups) {
          expect(g.reduce((n, e) => n + seatsOf(e), 0)).toBe(size);
          const spread = Math.max(...g.map((e) => e.rating)) - Math.min(...g.map((e) => e.rating));
          for (const e of g) {
            expect(seen.has(e.queueId)).toBe(false);
            seen.add(e.queueId);
            expect(spread).toBeLessThanOrEqual(ratingWindow(s, now - e.enqueuedAt));
          }
        }
        expect(seen.size + q.size).toBe(entries.length);
        // An entry bigger than a group is never grouped.
        for (const e of entries) if (seatsOf(e) > size) expect(seen.has(e.queueId)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
