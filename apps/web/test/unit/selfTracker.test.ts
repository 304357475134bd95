import { describe, expect, it } from "vitest";
import { SelfTracker } from "../../src/selfTracker";

describe("SelfTracker", () => {
  it("takes the only candidate", () => {
    const t = new SelfTracker();
    t.begin();
    t.addCandidate(7, 100, 100);
    expect(t.end()).toBe(7);
  });

  it("picks the candidate nearest the view's centre among equal names, then keeps it", () => {
    const t = new SelfTracker();
    t.begin();
    // Orbs around (500, 500): the area of interest is centred there.
    for (const [x, y] of [[400, 500], [600, 500], [500, 400], [500, 600]]) t.addHint(x!, y!);
    t.addCandidate(3, 900, 900);
    t.addCandidate(4, 510, 490);
    expect(t.end()).toBe(4);
    // Sticky: the same entity while it remains a candidate, wherever the hints go.
    t.begin();
    t.addHint(900, 900);
    t.addCandidate(3, 900, 900);
    t.addCandidate(4, 520, 490);
    expect(t.end()).toBe(4);
  });

  it("is -1 without candidates and after reset", () => {
    const t = new SelfTracker();
    t.begin();
    expect(t.end()).toBe(-1);
    t.begin();
    t.addCandidate(1, 0, 0);
    t.end();
    t.reset();
    expect(t.id).toBe(-1);
  });
});
