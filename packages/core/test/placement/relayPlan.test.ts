/**
 * Where a room is placed (placement/): how a kind's rooms are relayed (`ROOM_RELAYS`, the join's
 * overrides, the definition's defaults), the relays a room is made over, when a single room is
 * promoted, and which relay a join goes to.
 */
import { describe, expect, it } from "vitest";
import { parseRoomRelays, promotionDue, relayedFromStart, relaysAtMaking, relaysFor, SINGLE_ROOM } from "../../src/placement/relayPlan";
import { relayIndexFor } from "../../src/placement/relayIndex";

describe("where a room is placed", () => {
  it("spreads identities over the relays, the same way every time", () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 400; i++) {
      const k = relayIndexFor(`player-${i}`, 4);
      expect(relayIndexFor(`player-${i}`, 4)).toBe(k);
      counts[k]!++;
    }
    // Each relay gets a fair share (a hash, so not exactly a quarter).
    for (const c of counts) expect(c).toBeGreaterThan(60);
    expect(relayIndexFor("anyone", 1)).toBe(0);
    // Without an identity: round robin, every relay in turn.
    const anonymous = new Set([0, 1, 2].map(() => relayIndexFor(undefined, 3)));
    expect([...anonymous].sort()).toEqual([0, 1, 2]);
  });

  it("reads ROOM_RELAYS as kind=K or kind=K@N pairs and refuses what is not one", () => {
    expect([...parseRoomRelays(" agar=3, fps = 2,,")]).toEqual([
      ["agar", { relays: 3, at: 0 }],
      ["fps", { relays: 2, at: 0 }],
    ]);
    expect([...parseRoomRelays("agar=3@150, fps=2 @ 40,ttt=0")]).toEqual([
      ["agar", { relays: 3, at: 150 }],
      ["fps", { relays: 2, at: 40 }],
      ["ttt", { relays: 0, at: 0 }],
    ]);
    expect(parseRoomRelays("").size).toBe(0);
    for (const bad of ["agar", "agar=x", "agar=17", "agar=-1", "a b=1", "agar=1.5", "agar=3@", "agar=3@x", "agar=3@1001", "agar=0@10", "agar=@10", "agar=3@-1"]) {
      expect(() => parseRoomRelays(bad), bad).toThrow(RangeError);
    }
    expect(() => parseRoomRelays("agar=1,agar=2@5")).toThrow(/twice/);
  });

  it("a room's relays: the join's overrides, else ROOM_RELAYS for its kind, else its definition's defaults", () => {
    const plain = { kind: "agar", defaults: {}, create: () => null as never };
    const big = { kind: "agar", defaults: { relays: 4 }, create: () => null as never };
    const grows = { kind: "agar", defaults: { relays: 2, relayAt: 100 }, create: () => null as never };
    expect(relaysFor("agar", plain, {}, undefined)).toEqual({ relays: 0, at: 0 });
    expect(relaysFor("agar", big, undefined, undefined)).toEqual({ relays: 4, at: 0 });
    expect(relaysFor("agar", grows, undefined, {})).toEqual({ relays: 2, at: 100 });
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3" }, undefined)).toEqual({ relays: 3, at: 0 });
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3@150" }, undefined)).toEqual({ relays: 3, at: 150 });
    expect(relaysFor("agar", grows, { ROOM_RELAYS: "agar=3" }, undefined)).toEqual({ relays: 3, at: 0 });
    expect(relaysFor("agar", big, { ROOM_RELAYS: "agar=0" }, undefined)).toEqual({ relays: 0, at: 0 });
    expect(relaysFor("fps", plain, { ROOM_RELAYS: "agar=3" }, undefined)).toEqual({ relays: 0, at: 0 });
    // A `relays` override alone: relayed from the start, as it always meant.
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3@150" }, { relays: 1 })).toEqual({ relays: 1, at: 0 });
    // `relayAt` alone keeps the deployment's K; both: the join's.
    expect(relaysFor("agar", plain, { ROOM_RELAYS: "agar=3@150" }, { relayAt: 4 })).toEqual({ relays: 3, at: 4 });
    expect(relaysFor("agar", plain, {}, { relays: 2, relayAt: 4 })).toEqual({ relays: 2, at: 4 });
    // A threshold for a room that is never relayed means nothing.
    expect(relaysFor("agar", plain, {}, { relayAt: 4 })).toEqual({ relays: 0, at: 0 });
  });

  it("a room is relayed from its start only without a threshold, and promoted once its seats reach it", () => {
    expect(relayedFromStart({ relays: 3, at: 0 })).toBe(true);
    expect(relayedFromStart({ relays: 3, at: 150 })).toBe(false);
    expect(relayedFromStart({ relays: 0, at: 0 })).toBe(false);
    const plan = { relays: 2, at: 4 };
    expect(promotionDue(plan, false, 3)).toBe(false);
    expect(promotionDue(plan, false, 4)).toBe(true);
    expect(promotionDue(plan, false, 9)).toBe(true);
    // Relayed already (promoted, or from the start): never again, and never back.
    expect(promotionDue(plan, true, 9)).toBe(false);
    expect(promotionDue({ relays: 2, at: 0 }, false, 100)).toBe(false);
    expect(promotionDue({ relays: 0, at: 0 }, false, 100)).toBe(false);
  });

  it("a new room is made over a promotion's relays, else a checkpoint's, else the plan's from its start", () => {
    expect(relaysAtMaking({ relays: 2, at: 3 }, 0, 0)).toBe(0);
    expect(relaysAtMaking({ relays: 2, at: 0 }, 0, 0)).toBe(2);
    expect(relaysAtMaking({ relays: 2, at: 3 }, 2, 0)).toBe(2);
    expect(relaysAtMaking({ relays: 2, at: 3 }, 0, 4)).toBe(4);
    expect(relaysAtMaking({ relays: 2, at: 0 }, 3, 4)).toBe(3);
    expect(relaysAtMaking(SINGLE_ROOM, 0, 0)).toBe(0);
    expect(relaysAtMaking(SINGLE_ROOM, 0, 2)).toBe(2);
  });
});
