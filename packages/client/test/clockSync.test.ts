import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CLOCK_SLEW_MS_PER_MS, CLOCK_STEP_MS, CLOCK_WINDOW, ClockSync, PING_BURST } from "../src/clockSync";

/** One direction's queueing delay: usually a quiet network (< 1.5 ms), sometimes a spike. */
const jitterArb = fc.oneof(
  { weight: 3, arbitrary: fc.double({ min: 0, max: 1.5, noNaN: true }) },
  { weight: 2, arbitrary: fc.double({ min: 0, max: 300, noNaN: true }) },
);

describe("ClockSync", () => {
  it("converges within 2 ms of the true offset under asymmetric jitter", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }), // offset on top of an epoch-ms server clock
        fc.double({ min: -20e-6, max: 20e-6, noNaN: true }), // relative drift, ±20 ppm
        fc.double({ min: 0.5, max: 150, noNaN: true }), // base one-way delay (same both ways)
        fc.array(fc.tuple(jitterArb, jitterArb), { minLength: 80, maxLength: 80 }),
        (offset, drift, base, jitter) => {
          const epoch = 1.7e12 + offset;
          const serverAt = (local: number) => epoch + local * (1 + drift);
          const cs = new ClockSync({ warmupSamples: 1 });
          let t = 1000;
          const errors: number[] = [];
          jitter.forEach(([up, down], i) => {
            // Every fourth ping crosses a quiet network both ways, so every window holds one.
            if (i % 4 === 3) {
              up = Math.min(up, 1.5);
              down = Math.min(down, 1.5);
            }
            const t0 = t;
            const s = serverAt(t0 + base + up);
            const t1 = t0 + 2 * base + up + down;
            cs.addSample(t0, s, t1);
            t += 2000;
            if (i >= 60) errors.push(Math.abs(cs.serverNow(t) - serverAt(t)));
          });
          expect(Math.max(...errors)).toBeLessThan(2);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("uses the lowest-RTT sample of the window", () => {
    const cs = new ClockSync({ warmupSamples: 10 });
    cs.addSample(0, 1000 + 10, 20); // rtt 20, offset 1000
    cs.addSample(100, 1100 + 90, 200); // rtt 100, queued on the way up: offset 1040
    // Warm-up applies the target directly: the offset is the lowest-RTT sample's, not the newest's.
    expect(cs.offsetAt(200)).toBeCloseTo(1000, 9);
    expect(cs.minRttMs).toBe(20);
    expect(cs.rttMs).toBeGreaterThan(20);
  });

  it("aims at the offset of the lowest-RTT sample among the last CLOCK_WINDOW (the newest on ties), across resets", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ rtt: fc.integer({ min: 0, max: 20 }), offset: fc.integer({ min: -1e6, max: 1e6 }), reset: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        (samples) => {
          // Every sample applied directly, so the applied offset is the target itself.
          const cs = new ClockSync({ warmupSamples: 1000 });
          const kept: { rtt: number; offset: number }[] = [];
          let t = 0;
          for (const s of samples) {
            if (s.reset && kept.length > 0) {
              cs.reset();
              kept.length = 0;
            }
            t += 100;
            cs.addSample(t - s.rtt, t - s.rtt / 2 + s.offset, t);
            kept.push(s);
            const window = kept.slice(-CLOCK_WINDOW);
            const minRtt = Math.min(...window.map((w) => w.rtt));
            expect(cs.minRttMs).toBe(minRtt);
            expect(cs.offsetAt(t)).toBe(window.filter((w) => w.rtt === minRtt).at(-1)!.offset);
          }
        },
      ),
    );
  });

  it("applies a connection's welcome round trip and its PING_BURST directly by default, then slews", () => {
    const cs = new ClockSync();
    // Offsets 1000, 1010, 1020, 1030, each with a lower RTT than the one before: all applied at once.
    for (let i = 0; i <= PING_BURST; i++) cs.addSample(i * 100, 1000 + i * 10 + i * 100 + (10 - i), i * 100 + 2 * (10 - i));
    expect(cs.offsetAt(400)).toBeCloseTo(1030, 9);
    cs.addSample(1000, 1000 + 1040 + 0.5, 1001); // the fifth: slewed from 1030, not jumped to 1040
    expect(cs.offsetAt(1001)).toBeCloseTo(1030, 9);
    expect(cs.offsetAt(2001)).toBeCloseTo(1040, 9);
  });

  it("counts room time from the epoch of the last reset", () => {
    const cs = new ClockSync({ warmupSamples: 1 });
    cs.addSample(0, 5000, 0);
    expect(cs.roomTime(10)).toBe(5010); // no epoch yet: the server clock itself
    cs.reset(4000);
    expect(cs.synced).toBe(false);
    cs.addSample(100, 5100, 100);
    expect(cs.roomTime(110)).toBe(5110 - 4000);
    expect(cs.serverNow(110)).toBe(5110);
  });

  it("applies the first sample at once, then slews at a bounded rate", () => {
    expect(CLOCK_SLEW_MS_PER_MS).toBe(0.01); // the rate the numbers below are written for
    const cs = new ClockSync({ warmupSamples: 1 });
    expect(cs.synced).toBe(false);
    cs.addSample(0, 5000 + 5, 10); // offset 5000
    expect(cs.synced).toBe(true);
    expect(cs.offsetAt(10)).toBeCloseTo(5000, 9);

    cs.addSample(1000, 1000 + 5100 + 2, 1004); // better RTT, offset 5100: a 100 ms correction
    expect(cs.offsetAt(1004)).toBe(5000); // nothing has moved at the instant the sample lands // ~10 ms/s over ~1 s so far, not a jump

    let prevServer = cs.serverNow(1004);
    let prevOffset = cs.offsetAt(1004);
    for (let t = 1020; t <= 20_000; t += 16) {
      const off = cs.offsetAt(t);
      expect(off - prevOffset).toBeLessThanOrEqual((16 * 10) / 1000 + 1e-9);
      const s = cs.serverNow(t);
      expect(s).toBeGreaterThan(prevServer); // never runs backwards
      prevServer = s;
      prevOffset = off;
    }
    // 100 ms at 10 ms/s: arrived after 10 s, never sooner (a step would have been a jump above).
    expect(cs.offsetAt(11_003)).toBeLessThan(5100);
    expect(cs.offsetAt(11_004)).toBeCloseTo(5100, 6);
    expect(cs.offsetAt(20_000)).toBeCloseTo(5100, 6);
  });

  it("slews downward as well, and steps when the local clock jumped", () => {
    expect(CLOCK_STEP_MS).toBe(1000);
    const cs = new ClockSync({ warmupSamples: 1 });
    cs.addSample(0, 100 + 5, 10);
    cs.addSample(1000, 1005 + 60 - 0.5, 1009); // rtt 9 (< 10): offset 60
    expect(cs.offsetAt(1009)).toBe(100); // nothing has moved at the instant the sample lands
    const before = cs.offsetAt(1999);
    expect(before).toBeLessThan(100);
    expect(before).toBeCloseTo(100 - 10 * 0.99, 9);
    cs.addSample(2000, 2001 + 1160, 2002); // 1.1 s away (rtt 2): a suspended laptop, not jitter
    expect(cs.offsetAt(2002)).toBeCloseTo(1160, 6);
    cs.addSample(3000, 3001 + 2100, 3002); // 940 ms away (rtt 2): within the threshold, slewed
    expect(cs.offsetAt(3002)).toBe(1160);
    expect(cs.offsetAt(4002)).toBeCloseTo(1170, 6);
  });

  it("the applied offset is a function of local time: reading it moves nothing", () => {
    const read = (order: number[]) => {
      const cs = new ClockSync({ warmupSamples: 1 });
      cs.addSample(0, 5000 + 5, 10);
      cs.addSample(1000, 1000 + 5100 + 2, 1004);
      return order.map((t) => cs.offsetAt(t));
    };
    const times = [1004, 1500, 3000, 9000, 30_000];
    const forward = read(times);
    // Asked out of order (an earlier instant after a later one), every instant gets the same answer.
    expect(read([...times].reverse()).reverse()).toEqual(forward);
    expect(forward[1]! - forward[0]!).toBeCloseTo((496 * 10) / 1000, 9);
    expect(forward.at(-1)).toBe(5100);
  });

  it("ignores impossible samples", () => {
    const cs = new ClockSync({ warmupSamples: 1 });
    expect(cs.addSample(10, 500, 5)).toBe(false);
    expect(cs.addSample(10, Number.NaN, 20)).toBe(false);
    expect(cs.synced).toBe(false);
  });
});
