import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchesFilters, type MatchFilters } from "@tikron/protocol";
import { RoomDirectory, freeSeats, type DirectoryEntry, type RoomStatus } from "../../src/match";

function status(roomId: string, extra: Partial<RoomStatus> = {}): RoomStatus {
  return { roomId, clients: 0, bots: 0, reserved: 0, maxClients: 4, metadata: {}, locked: false, private: false, createdAt: 0, version: [1, 1], overrides: "", refreshMs: 0, ...extra };
}

/** The naive twin of `pick`: filter everything, sort fullest-oldest-id, take the first. */
function naivePick(entries: DirectoryEntry[], filters: MatchFilters, overrides: string, exclude: Set<string>): string | undefined {
  const ok = entries.filter(
    (e) => freeSeats(e) >= 1 && !e.status.private && !e.status.locked && e.status.overrides === overrides && matchesFilters(e.status.metadata, filters) && !exclude.has(e.status.roomId),
  );
  ok.sort(
    (a, b) =>
      b.status.clients + b.status.reserved + b.inflight - (a.status.clients + a.status.reserved + a.inflight) ||
      a.status.createdAt - b.status.createdAt ||
      (a.status.roomId < b.status.roomId ? -1 : 1),
  );
  return ok[0]?.status.roomId;
}

describe("RoomDirectory", () => {
  it("keeps the newest status of a room and drops a room that empties", () => {
    const d = new RoomDirectory();
    expect(d.apply(status("a", { clients: 1, version: [1, 2] }), 0)).toBe("added");
    expect(d.apply(status("a", { clients: 3, version: [1, 1] }), 0)).toBe("stale");
    expect(d.get("a")!.status.clients).toBe(1);
    expect(d.apply(status("a", { clients: 2, version: [2, 0] }), 0)).toBe("updated");
    expect(d.apply(status("a", { clients: 0, version: [2, 1] }), 0)).toBe("removed");
    expect(d.size).toBe(0);
    expect(d.apply(status("b", { version: [1, 1] }), 0)).toBe("stale");
  });

  it("expires rooms that stopped refreshing, never those that do not refresh", () => {
    const d = new RoomDirectory();
    d.apply(status("tick", { clients: 1, refreshMs: 1000 }), 0);
    d.apply(status("turn", { clients: 1, refreshMs: 0 }), 0);
    expect(d.expire(3000)).toEqual([]);
    expect(d.expire(3001)).toEqual(["tick"]);
    expect(d.expire(1e9)).toEqual([]);
  });

  it("property: pick is the naive filter-and-sort's first room", () => {
    const meta = fc.record({ mode: fc.constantFrom("a", "b"), level: fc.integer({ min: 1, max: 5 }) });
    const room = fc.record({
      clients: fc.integer({ min: 0, max: 5 }),
      reserved: fc.integer({ min: 0, max: 3 }),
      maxClients: fc.integer({ min: 1, max: 6 }),
      inflight: fc.integer({ min: 0, max: 2 }),
      locked: fc.boolean(),
      private: fc.boolean(),
      createdAt: fc.integer({ min: 0, max: 5 }),
      overrides: fc.constantFrom("", "cap=2|"),
      metadata: meta,
    });
    const filters = fc.record({ mode: fc.constantFrom("a", "b"), level: fc.record({ gte: fc.integer({ min: 0, max: 5 }), lte: fc.integer({ min: 0, max: 6 }) }) }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.array(room, { maxLength: 25 }), filters, fc.constantFrom("", "cap=2|"), fc.array(fc.nat(24), { maxLength: 5 }), (rooms, f, overrides, excl) => {
        const d = new RoomDirectory();
        rooms.forEach((r, i) => {
          const { inflight, ...rest } = r;
          const e = d.addCreating(status(`r${i}`, rest), 0);
          e.inflight = inflight;
        });
        const exclude = new Set(excl.map((i) => `r${i}`));
        expect(d.pick(f as MatchFilters, overrides, 1, exclude)?.status.roomId).toBe(naivePick([...d.entries()], f as MatchFilters, overrides, exclude));
      }),
      { numRuns: 500 },
    );
  });
});
