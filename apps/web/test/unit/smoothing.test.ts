import { describe, expect, it } from "vitest";
import { CorrectionBlend, SNAP_DISTANCE } from "../../src/correctionBlend";
import { OwnSmoothing } from "../../src/ownSmoothing";

describe("OwnSmoothing", () => {
  it("slides between predictions over one input interval without jumps", () => {
    const s = new OwnSmoothing(50);
    s.stepped(0, 0, 0);
    s.stepped(10, 0, 0);
    s.update(25);
    expect(s.x).toBeCloseTo(5, 9);
    s.update(50);
    expect(s.x).toBeCloseTo(10, 9);
    // A new step starts from where the cell is shown.
    s.stepped(20, 0, 60);
    s.update(60);
    expect(s.x).toBeCloseTo(10, 9);
  });

  it("blends a small correction out instead of popping", () => {
    const s = new OwnSmoothing(50);
    s.reset(100, 100, 0);
    s.update(0);
    s.corrected(104, 100, 0);
    s.update(0);
    expect(s.x).toBeCloseTo(100, 9);
    s.update(40);
    expect(s.x).toBeGreaterThan(100.5);
    expect(s.x).toBeLessThan(103.5);
    s.update(1000);
    expect(s.x).toBeCloseTo(104, 3);
    expect(s.pendingCorrection).toBeLessThan(0.01);
  });

  it("jumps on teleports", () => {
    const s = new OwnSmoothing(50);
    s.reset(0, 0, 0);
    s.corrected(SNAP_DISTANCE * 2, 0, 0);
    s.update(0);
    expect(s.x).toBe(SNAP_DISTANCE * 2);
  });
});

describe("CorrectionBlend", () => {
  it("starts at minus the correction and decays toward zero", () => {
    const b = new CorrectionBlend();
    b.update(0);
    b.corrected(3, -4);
    expect(b.x).toBe(-3);
    expect(b.y).toBe(4);
    expect(b.size).toBe(5);
    b.update(80);
    expect(b.size).toBeCloseTo(5 * Math.exp(-1), 6);
    b.corrected(SNAP_DISTANCE + 1, 0);
    expect(b.size).toBe(0);
  });
});
