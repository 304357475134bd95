/**
 * A relay's input clock (`InputPhase`) against a model of the simulation it follows: ticks on a
 * grid, each firing a little late, its flushes reaching the relay after a delay that varies,
 * the relay's batches reaching the simulation after another. An input is applied in the tick
 * it would be applied in without the relay, except one that arrives within the lead before
 * that tick; one batch per tick at most.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src";
import { InputPhase, inputLeadMs } from "../../src/relay/inputPhase";
import { MAX_LAG_TICKS } from "../../src/tickScheduler";

/** A simulation as the relay sees it; every time is on the relay's (fake) clock. */
interface Sim {
  tickMs: number;
  /** Due time of tick 0. */
  grid: number;
  /** Flushes go out every `flushEvery` ticks. */
  flushEvery: number;
  /** How late each tick's timer fires, ms. */
  late: number[];
  /** How long each flush takes to reach the relay after its tick fired (tick and flush work, transit), ms. */
  delay: number[];
  /** Transit of a batch to the simulation, ms. */
  back: number;
}

const fired = (s: Sim, k: number) => s.grid + k * s.tickMs + s.late[k % s.late.length]!;

/** Runs `phase` against `sim` until `until`; returns the times its batches went. */
function run(clock: FakeClock, s: Sim, until: number, sends: number[]): InputPhase {
  const phase = new InputPhase(clock, s.tickMs, () => sends.push(clock.now()));
  phase.start();
  for (let k = 1; fired(s, k) < until; k++) {
    if (k % s.flushEvery !== 0) continue;
    const tick = k;
    clock.setTimer(() => phase.flushArrived(tick), fired(s, k) + s.delay[k % s.delay.length]! - clock.now());
  }
  // Inputs wait in every batch: the relay keeps its timer going.
  phase.queued();
  clock.advance(until - clock.now());
  return phase;
}

describe("InputPhase", () => {
  it("puts each input in the tick it would reach without the relay, but within the lead before it; one batch per tick", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(16, 33, 50, 100),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 7 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 7 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 20, maxLength: 60 }),
        (tickMs, grid, flushEvery, lateF, delayF, backF, inputF) => {
          const lead = inputLeadMs(tickMs);
          // What the lead is chosen to cover: the flush's delay past its fastest, the timer's
          // lateness and the transit back, together under the lead.
          const share = lead / 4;
          const s: Sim = {
            tickMs,
            grid: 1_000_000 + grid,
            flushEvery,
            late: lateF.map((f) => f * share),
            delay: delayF.map((f) => (0.5 + f) * share),
            back: backF * share,
          };
          const clock = new FakeClock(1_000_000);
          const sends: number[] = [];
          const until = s.grid + 40 * tickMs;
          run(clock, s, until, sends);
          // From the first flush's arrival on (before it, no phase is known).
          const phasedAt = fired(s, flushEvery) + s.delay[flushEvery % s.delay.length]!;
          const firstTickAfter = (t: number) => {
            let k = 0;
            while (fired(s, k) <= t) k++;
            return k;
          };
          const lastSend = sends[sends.length - 1]!;
          for (const f of inputF) {
            const at = phasedAt + f * (lastSend - phasedAt - tickMs);
            const batch = sends.find((x) => x > at);
            if (batch === undefined) throw new Error(`no batch after ${at}`);
            const want = firstTickAfter(at);
            const got = firstTickAfter(batch + s.back);
            const withinLead = s.grid + want * tickMs - at <= lead;
            expect(got === want || (withinLead && got === want + 1), `input at ${at}: tick ${got}, without the relay ${want}`).toBe(true);
          }
          const perTick = new Map<number, number>();
          for (const x of sends) {
            if (x < phasedAt) continue;
            const k = firstTickAfter(x);
            perTick.set(k, (perTick.get(k) ?? 0) + 1);
          }
          expect(Math.max(...perTick.values())).toBe(1);
        },
      ),
      { numRuns: 300 },
    ));

  it("before any flush, a batch goes in the task after its first input, and no timer runs while none waits", () => {
    const clock = new FakeClock(0);
    const sends: number[] = [];
    const phase = new InputPhase(clock, 50, () => sends.push(clock.now()));
    phase.start();
    expect(clock.pending).toBe(0);
    clock.advance(7);
    phase.queued();
    phase.queued();
    clock.advance(0);
    expect(sends).toEqual([7]);
    expect(clock.pending).toBe(0);
    expect(phase.inPhase).toBe(false);
  });

  it("one slow flush does not move the phase; a faster one moves it earlier at once", () => {
    const clock = new FakeClock(0);
    const sends: number[] = [];
    const phase = new InputPhase(clock, 50, () => sends.push(clock.now()), 4);
    phase.start();
    clock.advance(51);
    phase.flushArrived(1); // tick 0 at 1 as the fastest flush shows it
    expect(phase.tickAt(2)).toBe(101);
    clock.advance(50 + 20); // the flush of tick 2 is 20 ms slow
    phase.flushArrived(2);
    expect(phase.tickAt(3)).toBe(151);
    clock.advance(50 - 20 - 1); // the flush of tick 3 is 1 ms faster than any before
    phase.flushArrived(3);
    expect(phase.tickAt(4)).toBe(200);
    clock.advance(100);
    // Batches for ticks 2, 3 (sent before the faster flush), then 4 and 5 on the new estimate.
    expect(sends).toEqual([97, 147, 196, 246]);
  });

  it("a simulation whose ticks count from 0 again, or whose grid jumped past MAX_LAG_TICKS, is followed from its next flush", () => {
    const clock = new FakeClock(0);
    const phase = new InputPhase(clock, 50, () => {});
    clock.advance(100);
    phase.flushArrived(2); // tick 0 at 0
    clock.advance(50);
    phase.flushArrived(3);
    expect(phase.tickAt(4)).toBe(200);
    // Restarted: its tick 1 arrives at 170, so its tick 0 fell at 120.
    clock.advance(20);
    phase.flushArrived(1);
    expect(phase.tickAt(2)).toBe(220);
    // Stalled and re-anchored: tick 2 arrives a whole MAX_LAG_TICKS + 1 ticks late.
    clock.advance(50 + (MAX_LAG_TICKS + 1) * 50 + 7);
    phase.flushArrived(2);
    expect(phase.tickAt(3)).toBe(220 + (MAX_LAG_TICKS + 1) * 50 + 7 + 50);
  });

  it("a batch that missed its tick raises the lead at once (to half a tick at most); a long run that made theirs eases it back", () => {
    const clock = new FakeClock(0);
    const sends: [number, number][] = [];
    const phase = new InputPhase(clock, 50, (tick) => sends.push([clock.now(), tick]));
    expect(phase.leadMs).toBe(inputLeadMs(50));
    phase.start();
    clock.advance(50);
    phase.flushArrived(1); // tick 0 at 0: the batch for tick 2 is due at 96
    phase.landed(false);
    expect(phase.leadMs).toBe(6);
    clock.advance(50);
    expect(sends).toEqual([[94, 2]]);
    for (let i = 0; i < 20; i++) phase.landed(false);
    expect(phase.leadMs).toBe(25);
    for (let i = 0; i < 99; i++) phase.landed(true);
    expect(phase.leadMs).toBe(25);
    phase.landed(true);
    expect(phase.leadMs).toBe(24.5);
    // A miss starts the run again.
    for (let i = 0; i < 99; i++) phase.landed(true);
    phase.landed(false);
    for (let i = 0; i < 99; i++) phase.landed(true);
    expect(phase.leadMs).toBe(25);
    for (let i = 0; i < 100 * 100; i++) phase.landed(true);
    expect(phase.leadMs).toBe(inputLeadMs(50));
  });

  it("a phase left stale while stopped (the simulation may have slept) is forgotten at start", () => {
    const clock = new FakeClock(0);
    const sends: number[] = [];
    const phase = new InputPhase(clock, 50, () => sends.push(clock.now()));
    phase.start();
    clock.advance(50);
    phase.flushArrived(1);
    expect(phase.inPhase).toBe(true);
    phase.stop();
    expect(clock.pending).toBe(0);
    clock.advance((MAX_LAG_TICKS + 1) * 50);
    phase.start();
    expect(phase.inPhase).toBe(false);
    expect(clock.pending).toBe(0);
    // Stopped briefly, the phase holds and the timer goes on from it.
    clock.advance(10);
    phase.flushArrived(9);
    phase.stop();
    phase.start();
    expect(phase.inPhase).toBe(true);
    expect(clock.pending).toBe(1);
  });
});
