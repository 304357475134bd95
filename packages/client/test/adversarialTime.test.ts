import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ClockSync } from "../src/clockSync";
import { SampleKind } from "../src/sampling";
import { SnapshotBuffer } from "../src/snapshotBuffer";

/**
 * The clocks and the snapshot buffer under hostile time: non-numbers from the caller, clocks
 * that jump, snapshots in bursts and out of order, frames without render updates.
 */

const X = new Float64Array(1);
function snap(b: SnapshotBuffer, time: number, receivedAt: number, ids: number[], x = time): boolean {
  const ok = b.beginSnapshot(time, receivedAt);
  X[0] = x;
  for (const id of ids) b.setEntity(id, X);
  b.endSnapshot();
  return ok;
}

describe("SnapshotBuffer under hostile input", () => {
  it("a render frame at a local time that is not a number changes nothing (render time never NaN or stuck)", () => {
    for (const bad of [Number.NaN, Infinity, -Infinity]) {
      const b = new SnapshotBuffer({ fields: ["x"] });
      snap(b, 0, 100, [1]);
      snap(b, 50, 150, [1]);
      const before = b.update(220);
      expect(b.update(bad)).toBe(before);
      expect(b.renderTime).toBe(before);
      // The next real frame carries on from where the timeline stood, 10 ms later.
      expect(b.update(230)).toBeCloseTo(before + 10, 6);
      expect(b.sample(1, b.renderTime)![0]).not.toBeNaN();
    }
  });

  it("a snapshot received at a local time that is not a number is refused and poisons nothing", () => {
    for (const bad of [Number.NaN, Infinity, -Infinity]) {
      const b = new SnapshotBuffer({ fields: ["x"] });
      expect(snap(b, 0, bad, [1])).toBe(false);
      expect(b.size).toBe(0);
      snap(b, 0, 100, [1]);
      expect(snap(b, 50, bad, [1])).toBe(false);
      snap(b, 50, 150, [1]);
      const rt = b.update(200);
      expect(Number.isFinite(rt)).toBe(true);
      expect(b.sample(1, rt)![0]).not.toBeNaN();
    }
  });

  it("refuses options that would make every sample or render time NaN, with a RangeError", () => {
    const bad = [Number.NaN, Infinity, -1];
    for (const v of bad) {
      expect(() => new SnapshotBuffer({ fields: ["x"], maxExtrapolationMs: v })).toThrow(RangeError);
      expect(() => new SnapshotBuffer({ fields: ["x"], minDelayMs: v })).toThrow(RangeError);
      expect(() => new SnapshotBuffer({ fields: ["x"], maxDelayMs: v })).toThrow(RangeError);
      expect(() => new SnapshotBuffer({ fields: ["x"], initialDelayMs: v })).toThrow(RangeError);
    }
    // An angle's period is a length: 0 and −1 were silently a linear and a step field.
    for (const period of [...bad, 0]) {
      expect(() => new SnapshotBuffer({ fields: [{ name: "a", interp: "angle", period }] })).toThrow(RangeError);
    }
    expect(() => new SnapshotBuffer({ fields: ["x"], minDelayMs: 0, maxDelayMs: 0, initialDelayMs: 0, maxExtrapolationMs: 0 })).not.toThrow();
  });

  it("a timeline restart (arrivals far earlier than the baseline) never takes render time backwards", () => {
    // Found by the fuzz below: the local clock went back 1 s (a caller's clock, not
    // performance.now) and the restart's new baseline sat 1 ms later than the old one.
    const b = new SnapshotBuffer({ fields: ["x"] });
    b.beginSnapshot(0, 993, false);
    const before = b.update(1002);
    expect(before).toBe(-91);
    b.beginSnapshot(1, -7, false); // offset −8: over a second before the baseline (993)
    expect(b.update(0)).toBeGreaterThanOrEqual(before);
    // The server's time went on, so render time goes on from where it stood.
    expect(b.update(20)).toBeGreaterThan(before);
  });

  it("keeps the gone entities bounded when frames arrive without render updates (a hidden tab)", () => {
    const b = new SnapshotBuffer({ fields: ["x"] });
    snap(b, 0, 30, [0]);
    b.update(40);
    // Ten minutes of frames, a fresh entity in each (food spawning and being eaten), no update.
    for (let k = 1; k < 12_000; k++) snap(b, k * 50, k * 50 + 30, [k]);
    // What render time can still reach: the delay band's top plus the baseline's tolerance.
    expect(b.size).toBeLessThan(30);
    // Back in view: render time is 100 ms (the delay) behind the newest snapshot; what was
    // there then is drawn, what was gone by then is not.
    const rt = b.update(12_000 * 50 + 30);
    expect(rt).toBeGreaterThanOrEqual(11_998 * 50);
    expect(rt).toBeLessThan(11_999 * 50);
    expect(b.sample(11_998, rt)).not.toBeNull();
    expect(b.sample(11_997, rt)).toBeNull();
    expect(b.sample(5, rt)).toBeNull();
  });

  it("fuzz: render time never NaN, never backwards without clear(); samples never NaN; extrapolation capped", () => {
    const maxExtrapolationMs = 50;
    const timeArb = fc.oneof(
      { weight: 8, arbitrary: fc.double({ min: -1e4, max: 1e6, noNaN: true }) },
      { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Infinity, -Infinity) },
    );
    const op = fc.oneof(
      // A snapshot some ms after the newest (or a duplicate / older one), received some ms after the last arrival.
      { weight: 6, arbitrary: fc.record({ kind: fc.constant("snap" as const), dt: fc.integer({ min: -100, max: 3000 }), lag: fc.integer({ min: -2000, max: 5000 }), ids: fc.uniqueArray(fc.integer({ min: 0, max: 7 }), { maxLength: 4 }), changed: fc.boolean() }) },
      { weight: 6, arbitrary: fc.record({ kind: fc.constant("frame" as const), dt: fc.oneof(fc.integer({ min: -50, max: 100 }), fc.integer({ min: 0, max: 600_000 })) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("raw" as const), time: timeArb, at: timeArb }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("rawFrame" as const), at: timeArb }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("clear" as const) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("interval" as const), ms: timeArb }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const b = new SnapshotBuffer({ fields: ["x", { name: "a", interp: "angle" }], maxExtrapolationMs });
        const v = new Float64Array(2);
        let serverT = 0;
        let local = 0;
        let lastRender = -Infinity;
        const check = (rt: number) => {
          expect(rt).not.toBeNaN();
          expect(rt).toBeGreaterThanOrEqual(lastRender);
          lastRender = rt;
          b.forEach(rt, (_id, values, kind) => {
            expect(values[0]).not.toBeNaN();
            expect(values[1]).not.toBeNaN();
            if (kind === SampleKind.Extrapolated) expect(rt - b.latestTime).toBeLessThanOrEqual(maxExtrapolationMs);
          });
          expect(b.delayMs).toBeGreaterThanOrEqual(60);
          expect(b.delayMs).toBeLessThanOrEqual(200);
        };
        for (const o of ops) {
          if (o.kind === "snap") {
            serverT += o.dt;
            local += Math.max(0, o.lag);
            if (b.beginSnapshot(serverT, local + Math.min(0, o.lag), o.changed)) {
              for (const id of o.ids) {
                v[0] = serverT * 0.1 + id;
                v[1] = serverT * 0.01;
                b.setEntity(id, v);
              }
              b.endSnapshot();
            }
          } else if (o.kind === "frame") {
            local += o.dt;
            check(b.update(local));
          } else if (o.kind === "raw") {
            if (b.beginSnapshot(o.time, o.at)) b.endSnapshot();
          } else if (o.kind === "rawFrame") {
            check(b.update(o.at));
          } else if (o.kind === "clear") {
            b.clear();
            lastRender = -Infinity;
          } else {
            b.setSendInterval(o.ms);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("ClockSync under hostile input", () => {
  it("a sample received before the newest one (handled out of order) moves nothing already past", () => {
    const cs = new ClockSync({ warmupSamples: 1 });
    cs.addSample(-100, 0, 0); // rtt 100, offset 50: applied at once (warm-up)
    cs.addSample(9990, 10_500, 10_000); // rtt 10, offset 505: slewed toward
    const at = cs.serverNow(10_000);
    // Received at 5 s, added after the one received at 10 s; the best RTT, offset −500.
    expect(cs.addSample(4999, 4500, 5000)).toBe(true);
    expect(cs.serverNow(10_000)).toBe(at);
    // From there on it slews toward the new target at the bounded rate, never backwards.
    let prev = at;
    for (let t = 10_016; t < 200_000; t += 16) {
      const s = cs.serverNow(t);
      expect(s).toBeGreaterThan(prev);
      prev = s;
    }
  });

  it("a local clock that jumped back an hour is stepped to, and small corrections slew again at once", () => {
    const cs = new ClockSync({ warmupSamples: 1 });
    const hour = 3_600_000;
    cs.addSample(hour - 10, hour + 1000 - 5, hour); // offset 1000
    // The local clock went back an hour (a clock that is not monotonic): the offset steps.
    cs.addSample(-10, hour + 1100 - 5, 0); // offset hour + 1100
    expect(cs.offsetAt(0)).toBeCloseTo(hour + 1100, 6);
    // A better sample 50 ms away is slewed toward at 10 ms/s from its arrival, not an hour later.
    cs.addSample(1000 - 2, 1000 + hour + 1150 - 1, 1000);
    expect(cs.offsetAt(1000)).toBeCloseTo(hour + 1100, 6);
    expect(cs.offsetAt(2000)).toBeCloseTo(hour + 1110, 6);
  });

  it("fuzz: serverNow is never NaN and never runs backwards between samples added in order", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 120_000 }),
            rtt: fc.oneof(fc.double({ min: -10, max: 1e6, noNaN: true }), fc.constantFrom(Number.NaN, Infinity)),
            offset: fc.oneof(fc.double({ min: -5000, max: 5000, noNaN: true }), fc.constantFrom(Number.NaN, -Infinity)),
          }),
          { maxLength: 60 },
        ),
        (samples) => {
          const cs = new ClockSync({ warmupSamples: 1 });
          let t = 0;
          let prev = -Infinity;
          for (const s of samples) {
            // Reads up to the sample's arrival, then the sample: the offset applied at that instant
            // stays, unless it is the first or more than a second off (a step, on purpose).
            t += s.gap;
            const before = cs.serverNow(t);
            expect(before).not.toBeNaN();
            expect(before).toBeGreaterThanOrEqual(prev);
            const first = !cs.synced;
            cs.addSample(t - s.rtt, t - s.rtt / 2 + s.offset, t);
            prev = cs.serverNow(t);
            expect(prev).not.toBeNaN();
            if (!first && Math.abs(prev - before) <= 1000) expect(prev).toBe(before);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
