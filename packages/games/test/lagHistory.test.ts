import { describe, expect, it } from "vitest";
import { LagHistory, type HistoryPoint } from "../src/fps/lagHistory";

const p: HistoryPoint = { x: NaN, y: NaN };

function sample(h: LagHistory, slot: number, t: number, now: number, live: [number, number, boolean]): [number, number] | null {
  return h.sample(slot, t, now, live[0], live[1], live[2], p) ? [p.x, p.y] : null;
}

describe("LagHistory", () => {
  it("sizes itself to cover the rewind window at the tick rate", () => {
    expect(LagHistory.framesFor(200, 16)).toBe(15);
    expect(LagHistory.framesFor(200, 50)).toBe(6);
    const h = new LagHistory(LagHistory.framesFor(200, 50), 2);
    for (let k = 0; k < 20; k++) h.beginFrame(k * 50);
    expect(h.newestTime - h.oldestTime).toBeGreaterThanOrEqual(200);
  });

  it("interpolates between frames and from the newest frame to the live position", () => {
    const h = new LagHistory(8, 2);
    h.beginFrame(100);
    h.put(0, 10, 0);
    h.beginFrame(150);
    h.put(0, 20, 10);
    const live: [number, number, boolean] = [40, 10, true];
    expect(sample(h, 0, 100, 190, live)).toEqual([10, 0]);
    expect(sample(h, 0, 125, 190, live)).toEqual([15, 5]);
    expect(sample(h, 0, 150, 190, live)).toEqual([20, 10]);
    expect(sample(h, 0, 170, 190, live)).toEqual([30, 10]);
    expect(sample(h, 0, 190, 190, live)).toEqual([40, 10]);
    expect(sample(h, 0, 500, 190, live)).toEqual([40, 10]);
    // Older than every frame: the oldest one.
    expect(sample(h, 0, 0, 190, live)).toEqual([10, 0]);
    // A slot never recorded is absent in the past, present when live.
    expect(sample(h, 1, 120, 190, [1, 2, true])).toBeNull();
    expect(sample(h, 1, 190, 190, [1, 2, true])).toEqual([1, 2]);
  });

  it("does not smear a respawn across the map, and keeps the last position of a death", () => {
    const h = new LagHistory(8, 1);
    h.beginFrame(0);
    h.put(0, 100, 100);
    h.beginFrame(50); // died between 0 and 50: absent from this frame on
    h.beginFrame(100);
    h.put(0, 900, 900); // respawned far away
    expect(sample(h, 0, 25, 120, [900, 900, true])).toEqual([100, 100]);
    expect(sample(h, 0, 75, 120, [900, 900, true])).toBeNull();
    expect(sample(h, 0, 100, 120, [900, 900, true])).toEqual([900, 900]);
  });

  it("overwrites the oldest frame when full, and forgets a slot handed to someone else", () => {
    const h = new LagHistory(3, 2);
    for (let k = 0; k < 5; k++) {
      h.beginFrame(k * 10);
      h.put(1, k, k);
    }
    expect(h.frames).toBe(3);
    expect(h.oldestTime).toBe(20);
    expect(sample(h, 1, 0, 45, [9, 9, true])).toEqual([2, 2]);
    h.clearSlot(1);
    expect(sample(h, 1, 30, 45, [9, 9, true])).toBeNull();
  });

  it("keeps recorded frames when it grows to more slots", () => {
    const h = new LagHistory(4, 1);
    h.beginFrame(0);
    h.put(0, 5, 6);
    h.beginFrame(10);
    h.put(0, 7, 8);
    h.ensureSlots(9);
    h.beginFrame(20);
    h.put(0, 9, 10);
    h.put(8, 1, 1);
    expect(sample(h, 0, 0, 30, [0, 0, true])).toEqual([5, 6]);
    expect(sample(h, 0, 10, 30, [0, 0, true])).toEqual([7, 8]);
    expect(sample(h, 8, 20, 30, [0, 0, true])).toEqual([1, 1]);
    expect(sample(h, 8, 10, 30, [0, 0, true])).toBeNull();
  });
});
