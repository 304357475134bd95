import { describe, expect, it } from "vitest";
import { LocalHitscan } from "../../src/localHitscan";
import { RateMeter } from "../../src/rateMeter";
import { TRACER_LIFE_MS, TracerBuffer, TracerKind } from "../../src/tracers";

describe("LocalHitscan", () => {
  it("stops at the nearest circle on the ray", () => {
    const h = new LocalHitscan();
    h.begin(100, 100, 0, 900, 1000);
    h.target(5, 300, 100, 16);
    h.target(6, 200, 105, 16);
    h.target(7, 150, 200, 16); // off the line
    expect(h.hit).toBe(6);
    expect(h.x1).toBeCloseTo(200 - Math.sqrt(16 * 16 - 25), 9);
    expect(h.y1).toBeCloseTo(100, 9);
  });

  it("ends at the range or the arena wall when nothing is hit", () => {
    const h = new LocalHitscan();
    h.begin(100, 100, Math.PI, 900, 1000);
    expect(h.hit).toBe(0);
    expect(h.x1).toBeCloseTo(0, 9);
    h.begin(10, 10, Math.PI / 4, 50, 1000);
    expect(Math.hypot(h.x1 - 10, h.y1 - 10)).toBeCloseTo(50, 9);
    h.target(1, 5, 5, 16); // behind the shooter but covering it: point blank
    expect(h.hit).toBe(1);
    expect(h.x1).toBe(10);
  });
});

describe("TracerBuffer", () => {
  it("keeps lines for their life and overwrites the oldest when full", () => {
    const b = new TracerBuffer(2);
    b.add(TracerKind.Local, 0, 0, 1, 1, 0);
    b.add(TracerKind.Hit, 0, 0, 2, 2, 10);
    b.add(TracerKind.Miss, 0, 0, 3, 3, 20);
    const seen: [number, number, number][] = [];
    b.forEach(20, (kind, _x0, _y0, x1, _y1, life) => seen.push([kind, x1, life]));
    expect(seen).toEqual([
      [TracerKind.Hit, 2, 1 - 10 / TRACER_LIFE_MS],
      [TracerKind.Miss, 3, 1],
    ]);
    expect(b.added).toEqual([1, 1, 1]);
    seen.length = 0;
    b.forEach(20 + TRACER_LIFE_MS, (kind) => seen.push([kind, 0, 0]));
    expect(seen).toEqual([]);
  });
});

describe("RateMeter", () => {
  it("reports the rate of the last full window", () => {
    const m = new RateMeter(1000);
    expect(m.sample(0, 0)).toBe(0);
    expect(m.sample(10, 500)).toBe(0);
    expect(m.sample(20, 1000)).toBe(20);
    expect(m.sample(50, 2000)).toBe(30);
    // A counter that went backwards (new connection) restarts the window.
    expect(m.sample(0, 2100)).toBe(30);
  });
});
