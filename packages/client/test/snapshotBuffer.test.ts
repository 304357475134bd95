import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { PLAYOUT_HEADROOM_MS, PLAYOUT_STABLE_MS } from "../src/playoutClock";
import { SampleKind } from "../src/sampling";
import { SNAPSHOT_HISTORY, SnapshotBuffer } from "../src/snapshotBuffer";

const SPEED = 0.1; // units per ms of the simulated entity

interface SimOptions {
  buffer: SnapshotBuffer;
  intervalMs: number;
  /** Local-clock offset of arrivals: clock offset + base latency. */
  c: number;
  /** Extra lateness (ms) of snapshot k. */
  lateness: (k: number) => number;
  /** Gap before render frame n (ms). */
  frameGap: (n: number) => number;
  fromMs: number;
  toMs: number;
  state?: { k: number; lastArrival: number };
  /** Called after each render-frame update. */
  onFrame?: (localNow: number, renderTime: number) => void;
}

/**
 * A server sending one entity moving at SPEED every interval, over an in-order link with the
 * given lateness, and a client rendering at the given frame gaps. Returns the resume state.
 */
function simulate(o: SimOptions): { k: number; lastArrival: number } {
  const st = o.state ?? { k: 0, lastArrival: -Infinity };
  const v = new Float64Array(1);
  let n = 0;
  for (let now = o.fromMs; now < o.toMs; now += o.frameGap(n++)) {
    for (;;) {
      const T = st.k * o.intervalMs;
      // TCP delivers in order: a snapshot cannot overtake the one before it.
      const arrival = Math.max(T + o.c + o.lateness(st.k), st.lastArrival);
      if (arrival > now) break;
      o.buffer.beginSnapshot(T, arrival);
      v[0] = T * SPEED;
      o.buffer.setEntity(1, v);
      o.buffer.endSnapshot();
      st.lastArrival = arrival;
      st.k++;
    }
    const rt = o.buffer.update(now);
    o.onFrame?.(now, rt);
  }
  return st;
}

describe("SnapshotBuffer timing", () => {
  it("never starves at a steady cadence with jitter that fits the band", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 16, max: 100 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 64 }),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.array(fc.integer({ min: 4, max: 40 }), { minLength: 1, maxLength: 16 }),
        (interval, jFrac, pattern, c, gaps) => {
          const buffer = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: interval });
          const initial = buffer.delayMs;
          const maxJitter = (initial - interval - PLAYOUT_HEADROOM_MS - 1) * jFrac;
          // A stationary link: the jitter pattern repeats within the stability period.
          const period = Math.max(1, Math.min(pattern.length, Math.floor(PLAYOUT_STABLE_MS / interval)));
          let interpolatedFrames = 0;
          simulate({
            buffer,
            intervalMs: interval,
            c,
            lateness: (k) => pattern[k % period] * maxJitter,
            frameGap: (n) => gaps[n % gaps.length],
            fromMs: c,
            toMs: c + 30_000,
            onFrame: (_now, rt) => {
              const v = buffer.sample(1, rt);
              if (v === null) return; // before the first snapshot is due
              expect(buffer.lastSampleKind).toBe(SampleKind.Interpolated);
              expect(v[0]).toBeCloseTo(rt * SPEED, 6);
              interpolatedFrames++;
            },
          });
          expect(buffer.starvations).toBe(0);
          expect(buffer.delayMs).toBeGreaterThanOrEqual(60); // the default band
          expect(buffer.delayMs).toBeLessThanOrEqual(200);
          expect(interpolatedFrames).toBeGreaterThan(500);
        },
      ),
      { numRuns: 60 },
    );
  }, 30_000); // ~2 s of simulation; generous for a busy machine

  it("grows the delay by a send interval after a starvation, then shrinks back", () => {
    const buffer = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 50 });
    expect(buffer.delayMs).toBe(100);
    const c = 5000;
    let stall = { from: Infinity, to: Infinity };
    const lateness = (k: number) => {
      const T = k * 50;
      return T > stall.from && T <= stall.to ? stall.to + 150 - T : 0;
    };
    const base = { buffer, intervalMs: 50, c, lateness, frameGap: () => 16 };
    let st = simulate({ ...base, fromMs: c, toMs: c + 15_000 });
    expect(buffer.starvations).toBe(0);
    expect(buffer.delayMs).toBe(60); // a clean link needs only the bottom of the band

    stall = { from: 15_000, to: 15_050 }; // a 150 ms hiccup: two snapshots held up
    let peak = 0;
    st = simulate({ ...base, fromMs: c + 15_000, toMs: c + 16_000, state: st, onFrame: () => (peak = Math.max(peak, buffer.delayMs)) });
    expect(buffer.starvations).toBe(1);
    expect(peak).toBe(110);

    st = simulate({ ...base, fromMs: c + 16_000, toMs: c + 20_000, state: st });
    expect(buffer.starvations).toBe(1);
    expect(buffer.delayMs).toBe(110); // the hiccup is still inside the jitter window

    simulate({ ...base, fromMs: c + 20_000, toMs: c + 45_000, state: st });
    expect(buffer.starvations).toBe(1);
    expect(buffer.delayMs).toBe(60);
  });

  it("an idle room's empty frames (no change at time t, 250 ms apart) starve nothing; a real outage still does", () => {
    const run = (changed: boolean) => {
      const b = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 33 });
      const c = 5000;
      const feed = (t: number) => {
        b.beginSnapshot(t, t + c, t === 0 ? true : changed);
        b.setEntity(1, [7]);
        b.endSnapshot();
      };
      // The room sends a change at 0, says "settled" at the next flush, then every 250 ms.
      let next = 0;
      for (let local = c; local <= c + 20_000; local += 16) {
        while (next + c <= local) {
          feed(next);
          next = next === 0 ? 33 : next === 33 ? 250 : next + 250;
        }
        b.update(local);
      }
      return b;
    };
    const quiet = run(false);
    expect(quiet.starvations).toBe(0);
    expect(quiet.delayMs).toBeLessThanOrEqual(66);
    const out = new Float64Array(1);
    expect(quiet.sample(1, quiet.renderTime, out)?.[0]).toBe(7);
    // The same arrivals claiming changes: render time overtakes each one and the delay grows.
    const busy = run(true);
    expect(busy.starvations).toBeGreaterThan(10);
    // Quiet covers a second past the last empty frame, not an outage.
    for (let local = 25_000; local <= 27_000; local += 16) quiet.update(local);
    expect(quiet.starvations).toBe(1);
  });

  it("derives the initial delay from the send interval until the first snapshot; ignores an interval not > 0", () => {
    const b = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 0 });
    expect(b.sendIntervalMs).toBe(50);
    expect(b.delayMs).toBe(100);
    b.setSendInterval(40);
    expect([b.sendIntervalMs, b.delayMs, b.targetDelayMs]).toEqual([40, 80, 80]);
    b.setSendInterval(-5);
    expect([b.sendIntervalMs, b.delayMs]).toEqual([40, 80]);
    expect(new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 20, initialDelayMs: 150 }).delayMs).toBe(150);
    // Once snapshots flow the delay moves only by update(): a longer interval raises its target
    // (two intervals, within the band), a shorter one leaves it to shrink when stable.
    b.beginSnapshot(0, 1000);
    b.endSnapshot();
    b.setSendInterval(90);
    expect([b.sendIntervalMs, b.delayMs, b.targetDelayMs]).toEqual([90, 80, 180]);
    b.setSendInterval(30);
    expect([b.sendIntervalMs, b.delayMs, b.targetDelayMs]).toEqual([30, 80, 180]);
  });

  it("told of a slower cadence (CADENCE), waits for the sparser frames instead of starving on them", () => {
    const run = (told: boolean): { starvationsAfter: number; delayAfter: number } => {
      const buffer = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 50 });
      const v = new Float64Array(1);
      // 10 s at 50 ms, then the room slows to 150 ms; 20 ms latency, a render frame every 16 ms.
      const times: number[] = [];
      for (let t = 0; t <= 10_000; t += 50) times.push(t);
      for (let t = 10_150; t <= 20_000; t += 150) times.push(t);
      let next = 0;
      let before = 0;
      for (let now = 0; now < 20_000; now += 16) {
        while (next < times.length && times[next]! + 20 <= now) {
          const T = times[next++]!;
          if (told && T === 10_150) buffer.setSendInterval(150); // the CADENCE comes before the first slow frame
          buffer.beginSnapshot(T, T + 20);
          v[0] = T;
          buffer.setEntity(1, v);
          buffer.endSnapshot();
        }
        buffer.update(now);
        if (now < 10_020) before = buffer.starvations;
      }
      return { starvationsAfter: buffer.starvations - before, delayAfter: buffer.delayMs };
    };
    const blind = run(false);
    const told = run(true);
    expect(blind.starvationsAfter).toBeGreaterThan(0);
    expect(told.starvationsAfter).toBeLessThan(blind.starvationsAfter);
    expect(told.starvationsAfter).toBeLessThanOrEqual(1); // only the first, unavoidable longer gap
    expect(told.delayAfter).toBeGreaterThanOrEqual(150);
  });

  it("keeps render time monotonic through starvation and recovery", () => {
    const buffer = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 50 });
    let prev = -Infinity;
    simulate({
      buffer,
      intervalMs: 50,
      c: 0,
      lateness: (k) => (k % 40 === 0 ? 300 : 0),
      frameGap: () => 16,
      fromMs: 0,
      toMs: 20_000,
      onFrame: (_n, rt) => {
        expect(rt).toBeGreaterThanOrEqual(prev);
        prev = rt;
      },
    });
    expect(buffer.starvations).toBeGreaterThan(0);
    expect(buffer.delayMs).toBeLessThanOrEqual(200);
  });

  it("restarts the timeline when arrivals jump earlier (the local clock stood still): render time follows at once", () => {
    const buffer = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 50 });
    const c = 5000;
    const base = { buffer, intervalMs: 50, lateness: () => 0, frameGap: () => 16 };
    const st = simulate({ ...base, c, fromMs: c, toMs: c + 10_000 });
    // The device slept 8 s: the server ran on, the local clock did not.
    st.k += 8000 / 50;
    st.lastArrival = -Infinity;
    let last = { rt: -Infinity, kind: -1 as number };
    simulate({
      ...base,
      c: c - 8000,
      fromMs: c + 10_000,
      toMs: c + 12_000,
      state: st,
      onFrame: (_now, rt) => {
        buffer.sample(1, rt);
        last = { rt, kind: buffer.lastSampleKind };
      },
    });
    expect(last.rt).toBeGreaterThan(buffer.latestTime - 200 - 50);
    expect(last.kind).toBe(SampleKind.Interpolated);
    expect(buffer.starvations).toBeLessThanOrEqual(1);
  });

  it("does not let a send outage far beyond the band hold the delay up for the jitter window", () => {
    const buffer = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 50 });
    const c = 5000;
    const v = new Float64Array(1);
    let T = 0;
    for (let local = c; local < c + 20_000; local += 16) {
      while (T + c <= local) {
        buffer.beginSnapshot(T, T + c);
        v[0] = T;
        buffer.setEntity(1, v);
        buffer.endSnapshot();
        // The room sends nothing from 10 s to 13 s (e.g. paused), then carries on.
        T = T === 10_000 ? 13_000 : T + 50;
      }
      buffer.update(local);
    }
    expect(buffer.starvations).toBe(1);
    // The 3 s gap is still inside the 10 s jitter window, but it is an outage, not jitter: the
    // floor is the steady link's, and the grown delay is on its way back down.
    expect(buffer.floorDelayMs).toBe(60);
    expect(buffer.targetDelayMs).toBe(60);
    expect(buffer.delayMs).toBeLessThan(110);
  });
});

describe("SnapshotBuffer sampling", () => {
  const fields = ["x", { name: "a", interp: "angle" as const }, { name: "hp", interp: "step" as const }];

  it("is exact at the snapshot times", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 1, max: 200 }),
            fc.double({ min: -1e6, max: 1e6, noNaN: true }),
            fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
            fc.integer({ min: 0, max: 100 }),
          ),
          { minLength: 1, maxLength: SNAPSHOT_HISTORY },
        ),
        (snaps) => {
          const b = new SnapshotBuffer({ fields });
          let t = 1000;
          const times: number[] = [];
          for (const [dt, x, a, hp] of snaps) {
            t += dt;
            times.push(t);
            b.beginSnapshot(t, t);
            b.setEntity(9, [x, a, hp]);
            b.endSnapshot();
          }
          snaps.forEach(([, x, a, hp], i) => {
            const v = b.sample(9, times[i]);
            expect(v).not.toBeNull();
            expect(Array.from(v!)).toEqual([x, a, hp]);
            expect(b.lastSampleKind).toBe(SampleKind.Interpolated);
          });
        },
      ),
    );
  });

  it("samples like a scan of the snapshots it keeps, also once the history wrapped", () => {
    fc.assert(
      fc.property(
        // Up to three times the history, so it wraps around in most runs.
        fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 3 * SNAPSHOT_HISTORY }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 10 }),
        (snaps, probes) => {
          const history = SNAPSHOT_HISTORY;
          const maxExtrapolationMs = 40;
          const b = new SnapshotBuffer({ fields: ["x", { name: "hp", interp: "step" }], maxExtrapolationMs });
          const all: { t: number; x: number; hp: number }[] = [];
          let t = 0;
          for (const [dt, x, hp] of snaps) {
            t += dt;
            b.beginSnapshot(t, t);
            b.setEntity(1, [x, hp]);
            b.endSnapshot();
            all.push({ t, x, hp });
          }
          const kept = all.slice(-history);
          const first = kept[0]!;
          const last = kept.at(-1)!;
          for (const p of probes) {
            const at = first.t - 50 + p * (last.t - first.t + 150);
            // The naive answer, from the kept snapshots.
            let want: { kind: SampleKind; x?: number; hp?: number };
            if (at < first.t) {
              want = all.length > history ? { kind: SampleKind.Held, x: first.x, hp: first.hp } : { kind: SampleKind.None };
            } else if (at >= last.t) {
              const dt = at - last.t;
              const prev = kept.at(-2);
              if (dt === 0) want = { kind: SampleKind.Interpolated, x: last.x, hp: last.hp };
              else if (prev === undefined) want = { kind: SampleKind.Held, x: last.x, hp: last.hp };
              else {
                const x = last.x + ((last.x - prev.x) / (last.t - prev.t)) * Math.min(dt, maxExtrapolationMs);
                want = { kind: dt <= maxExtrapolationMs ? SampleKind.Extrapolated : SampleKind.Held, x, hp: last.hp };
              }
            } else {
              const i = kept.findIndex((s, j) => s.t <= at && at < kept[j + 1]!.t);
              const a = kept[i]!;
              const z = kept[i + 1]!;
              want = { kind: SampleKind.Interpolated, x: a.x + ((z.x - a.x) * (at - a.t)) / (z.t - a.t), hp: a.hp };
            }
            const v = b.sample(1, at);
            expect(b.lastSampleKind).toBe(want.kind);
            if (want.kind === SampleKind.None) {
              expect(v).toBeNull();
            } else {
              expect(v![0]).toBeCloseTo(want.x!, 6);
              expect(v![1]).toBe(want.hp);
            }
          }
        },
      ),
    );
  });

  it("interpolates linearly, angles the short way round, steps discrete fields", () => {
    const b = new SnapshotBuffer({ fields });
    const deg = Math.PI / 180;
    b.beginSnapshot(100, 0);
    b.setEntity(1, [0, 350 * deg, 10]);
    b.endSnapshot();
    b.beginSnapshot(200, 0);
    b.setEntity(1, [10, 10 * deg, 20]);
    b.endSnapshot();
    const v = b.sample(1, 150)!;
    expect(v[0]).toBeCloseTo(5, 12);
    // Half way from 350° to 10° is 0°, not 180°.
    expect(Math.cos(v[1])).toBeCloseTo(1, 12);
    expect(Math.abs(Math.sin(v[1]))).toBeLessThan(1e-12);
    expect(v[2]).toBe(10);
    const q = b.sample(1, 175)!;
    expect(Math.cos(q[1])).toBeCloseTo(Math.cos(5 * deg), 12);
    expect(Math.sin(q[1])).toBeCloseTo(Math.sin(5 * deg), 12);
  });

  it("interpolates and extrapolates angles like the nearest copy of the newer one, any period", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e4, noNaN: true }),
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 1.5, noNaN: true }),
        (period, ta, tb, f) => {
          const a = ta * period;
          const b = tb * period;
          // The naive twin: of b + k·period, the copy nearest a; then a straight line to it.
          let near = b;
          for (let k = -8; k <= 8; k++) if (Math.abs(b + k * period - a) < Math.abs(near - a)) near = b + k * period;
          const buf = new SnapshotBuffer({ fields: [{ name: "a", interp: "angle", period }], maxExtrapolationMs: 50 });
          buf.beginSnapshot(0, 0);
          buf.setEntity(1, [a]);
          buf.endSnapshot();
          buf.beginSnapshot(100, 0);
          buf.setEntity(1, [b]);
          buf.endSnapshot();
          const v = buf.sample(1, 100 * f)![0];
          // Past the newer snapshot it carries on along the same turn, at most 50 ms worth.
          const want = f <= 1 ? a + (near - a) * f : b + (near - a) * Math.min(f - 1, 0.5);
          expect(Math.abs(near - a)).toBeLessThanOrEqual(period / 2 + 1e-9 * period);
          // Same angle (a tie at half a turn may go either way round).
          const diff = Math.abs(v - want) % period;
          expect(Math.min(diff, period - diff)).toBeLessThan(1e-9 * period + (Math.abs(Math.abs(near - a) - period / 2) < 1e-9 * period ? period : 0));
        },
      ),
    );
  });

  it("finds fields by name, and turns angles of a given period the short way round", () => {
    const b = new SnapshotBuffer({ fields: ["x", { name: "heading", interp: "angle", period: 360 }, { name: "hp", interp: "step" }] });
    expect([b.fieldIndex("x"), b.fieldIndex("heading"), b.fieldIndex("hp"), b.fieldIndex("y")]).toEqual([0, 1, 2, -1]);
    b.beginSnapshot(100, 0);
    b.setEntity(1, [0, 350, 10]);
    b.endSnapshot();
    b.beginSnapshot(200, 0);
    b.setEntity(1, [10, 30, 20]);
    b.endSnapshot();
    // Half way from 350° to 30° the short way is 10° (360 + 10), not 190°.
    expect(Array.from(b.sample(1, 150)!)).toEqual([5, 370, 10]);
  });

  it("extrapolates along the last velocity for at most ~50 ms, then holds", () => {
    const b = new SnapshotBuffer({ fields, maxExtrapolationMs: 50 });
    for (let t = 0; t <= 500; t += 50) {
      b.beginSnapshot(t, t);
      b.setEntity(1, [t * 2, 0.001 * t, 5]);
      b.endSnapshot();
    }
    const v = b.sample(1, 530)!;
    expect(b.lastSampleKind).toBe(SampleKind.Extrapolated);
    expect(v[0]).toBeCloseTo(1060, 9);
    expect(v[1]).toBeCloseTo(0.53, 9);
    expect(v[2]).toBe(5);
    for (const late of [550.0001, 580, 700, 5000]) {
      const h = b.sample(1, late)!;
      expect(b.lastSampleKind).toBe(SampleKind.Held);
      expect(h[0]).toBeCloseTo(1100, 9);
      expect(h[1]).toBeCloseTo(0.55, 9);
    }
  });

  it("tracks entities appearing, disappearing and coming back", () => {
    const b = new SnapshotBuffer({ fields: ["x"] });
    const snap = (t: number, ids: number[]) => {
      b.beginSnapshot(t, t);
      for (const id of ids) b.setEntity(id, [t + id]);
      b.endSnapshot();
    };
    snap(100, [1]);
    snap(200, [1, 2]);
    snap(300, [2]);
    expect(b.sample(2, 150)).toBeNull(); // not spawned yet
    expect(b.sample(1, 250)![0]).toBe(201); // despawning: held, not extrapolated
    expect(b.lastSampleKind).toBe(SampleKind.Held);
    expect(b.sample(1, 300)).toBeNull(); // gone
    const seen: number[] = [];
    b.forEach(300, (id) => seen.push(id));
    expect(seen).toEqual([2]);
    snap(400, [1, 2]); // 1 re-enters: no blending across its absence
    expect(b.sample(1, 350)).toBeNull();
    expect(b.sample(1, 400)![0]).toBe(401);
    expect(b.sample(99, 400)).toBeNull();
  });

  it("ignores stale snapshots and writes into a caller array", () => {
    const b = new SnapshotBuffer({ fields: ["x"] });
    expect(b.beginSnapshot(100, 0)).toBe(true);
    b.setEntity(1, [1]);
    b.endSnapshot();
    expect(b.beginSnapshot(100, 0)).toBe(false);
    b.setEntity(1, [999]);
    b.endSnapshot();
    const out = new Float64Array(1);
    expect(b.sample(1, 100, out)).toBe(out);
    expect(out[0]).toBe(1);
  });
});

describe("SnapshotBuffer across a room restart (rebase)", () => {
  it("samples like a scan of the snapshots it keeps, re-timed into the new clock, with no blend across the restart", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: -1000, max: 1000 })), { minLength: 1, maxLength: 2 * SNAPSHOT_HISTORY }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: -1000, max: 1000 })), { minLength: 0, maxLength: 2 * SNAPSHOT_HISTORY }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 10 }),
        (before, after, delta, probes) => {
          const maxExtrapolationMs = 40;
          const b = new SnapshotBuffer({ fields: ["x"], maxExtrapolationMs });
          const all: { t: number; x: number; afterBreak: boolean }[] = [];
          let t = 0;
          const feed = (snaps: [number, number][], afterBreak: boolean) => {
            for (const [dt, x] of snaps) {
              t += dt;
              expect(b.beginSnapshot(t, t)).toBe(true);
              b.setEntity(1, [x]);
              b.endSnapshot();
              all.push({ t, x, afterBreak });
            }
          };
          feed(before, false);
          b.rebase(delta);
          // The model: every kept time moved by −delta; the new room's clock goes on from there.
          for (const s of all) s.t -= delta;
          t -= delta;
          feed(after, true);
          const kept = all.slice(-SNAPSHOT_HISTORY);
          const first = kept[0]!;
          const last = kept.at(-1)!;
          for (const p of probes) {
            const at = first.t - 50 + p * (last.t - first.t + 150);
            let want: { kind: SampleKind; x?: number };
            if (at < first.t) {
              want = all.length > SNAPSHOT_HISTORY ? { kind: SampleKind.Held, x: first.x } : { kind: SampleKind.None };
            } else if (at >= last.t) {
              const dt = at - last.t;
              const prev = kept.at(-2);
              if (dt === 0) want = { kind: SampleKind.Interpolated, x: last.x };
              else if (prev === undefined || prev.afterBreak !== last.afterBreak) want = { kind: SampleKind.Held, x: last.x };
              else {
                const x = last.x + ((last.x - prev.x) / (last.t - prev.t)) * Math.min(dt, maxExtrapolationMs);
                want = { kind: dt <= maxExtrapolationMs ? SampleKind.Extrapolated : SampleKind.Held, x };
              }
            } else {
              const i = kept.findIndex((s, j) => s.t <= at && at < kept[j + 1]!.t);
              const a = kept[i]!;
              const z = kept[i + 1]!;
              want = a.afterBreak !== z.afterBreak ? { kind: SampleKind.Held, x: a.x } : { kind: SampleKind.Interpolated, x: a.x + ((z.x - a.x) * (at - a.t)) / (z.t - a.t) };
            }
            const v = b.sample(1, at);
            expect(b.lastSampleKind).toBe(want.kind);
            if (want.kind === SampleKind.None) expect(v).toBeNull();
            else expect(v![0]).toBeCloseTo(want.x!, 6);
          }
        },
      ),
    );
  });

  // The old room: one entity at x = T·SPEED every 50 ms, arriving 5 s after its server time
  // (local clock offset plus latency). It goes down for 1.5 s; the new room's epoch is 3.5 s
  // after the old one's, and its world holds the entity at x = 1000 + t·SPEED. `skew`: how far
  // the new room's clock is off the old one's (servers whose clocks disagree).
  it.each([0, 300, -300, 3000, -3000])("the new room's clock off by %i ms: drawn at every frame, the new world shown soon after it arrives", (skew) => {
    const b = new SnapshotBuffer({ fields: ["x"], sendIntervalMs: 50 });
    const c = 5000;
    const delta = 3500 + skew;
    const v = new Float64Array(1);
    const snap = (t: number, at: number, x: number) => {
      if (!b.beginSnapshot(t, at)) return;
      v[0] = x;
      b.setEntity(1, v);
      b.endSnapshot();
    };
    let drawn = false;
    let shift = 0;
    let lastRender = -Infinity;
    let newArrivedAt = Infinity;
    let newShownAt = Infinity;
    for (let now = c; now < c + 6000; now += 16) {
      // Old room: server times 0..2000 (sent every 50 ms); new room: from 3500 on, at its time t − 3500.
      for (let T = Math.ceil((now - 16 - c) / 50) * 50; T <= now - c; T += 50) {
        if (T < 0) continue;
        if (T <= 2000) snap(T, T + c, T * SPEED);
        else if (T >= 3550) {
          if (newArrivedAt === Infinity) {
            b.rebase(delta);
            shift = delta;
            newArrivedAt = now;
          }
          snap(T - 3500, T + c, 1000 + (T - 3500) * SPEED);
        }
      }
      const rt = b.update(now);
      if (rt === -Infinity) continue;
      // Never backwards, in the clock the buffer was in before (unless it was cleared: a new timeline).
      const cleared = skew === -3000 && newArrivedAt <= now;
      if (!cleared) expect(rt + shift).toBeGreaterThanOrEqual(lastRender - 1e-9);
      lastRender = rt + shift;
      const x = b.sample(1, rt)?.[0];
      if (drawn && !cleared) expect(x, `not drawn at ${now}`).toBeDefined();
      if (cleared && x !== undefined) expect(x).toBeGreaterThanOrEqual(1000);
      if (x === undefined) continue;
      drawn = true;
      if (x >= 1000 && newShownAt === Infinity) newShownAt = now;
    }
    // A clock 3 s behind puts the new room's first snapshot before the old one's last: the old
    // timeline is dropped (a blank of one interpolation delay) rather than waited out.
    expect(newShownAt - newArrivedAt).toBeLessThanOrEqual(b.delayMs + 50);
  });
});
