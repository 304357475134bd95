/**
 * A still room's sleep (room/roomSleep.ts) on a fake clock: it sleeps when nothing would change,
 * ticks then only at its idle beats (and due checkpoints), wakes on an input, a join, a leave,
 * a drop, a seat's expiry and the game's own timer, and never sleeps for a game without `still`
 * or while a dot is still gliding. The scheduler's own sleep and wake keep its tick grid.
 */
import { describe, expect, it } from "vitest";
import { FakeClock, TickScheduler } from "../src";
import { isIdleBeat, nextIdleBeat } from "../src/room/idleBeat";
import { DRIFT_STEP, DriftRoom } from "./support/driftGame";

describe("TickScheduler: sleep and wake", () => {
  it("skips the ticks slept through, runs the one slept until on its grid, and wakes to the index of the time", () => {
    const clock = new FakeClock(0);
    const fired: [number, number][] = [];
    const s: TickScheduler = new TickScheduler(clock, 50, (k, now) => {
      fired.push([k, now]);
      if (k === 2) s.sleepUntil(10);
    });
    s.start();
    clock.advance(200);
    expect(fired).toEqual([
      [1, 50],
      [2, 100],
    ]);
    expect(s.asleep).toBe(true);
    clock.advance(330); // t = 530: tick 10 ran at 500
    expect(fired.at(-1)).toEqual([10, 500]);
    expect(s.asleep).toBe(false);
    s.sleepUntil(Infinity);
    clock.advance(1000); // t = 1530, nothing runs
    expect(fired.length).toBe(3);
    expect(clock.pending).toBe(0);
    expect(s.running).toBe(true);
    expect(s.wake()).toBe(true);
    expect(s.tickIndex).toBe(30); // 1530 ms: ticks up to 30 passed
    clock.advance(20);
    expect(fired.at(-1)).toEqual([31, 1550]);
    expect(s.wake()).toBe(false);
  });

  it("never wakes to the tick it slept until, and a start after a stop begins at 0", () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    const s = new TickScheduler(clock, 50, (k) => fired.push(k));
    s.start();
    clock.advance(50);
    s.sleepUntil(4);
    clock.advance(149); // t = 199: tick 3 passed, tick 4 not yet
    s.wake();
    expect(s.tickIndex).toBe(3);
    clock.advance(1);
    expect(fired).toEqual([1, 4]);
    s.stop();
    expect(s.running).toBe(false);
    s.start();
    clock.advance(50);
    expect(fired.at(-1)).toBe(1);
  });
});

describe("idle beats", () => {
  it("are the first flush at or after each multiple of idleFrameMs, and nextIdleBeat finds the next one", () => {
    for (const [tickMs, every, idle] of [
      [50, 1, 250],
      [20, 3, 250],
      [33, 2, 120],
      [50, 2, 700],
    ] as const) {
      const beats: number[] = [];
      for (let k = 0; k <= 400; k += every) if (isIdleBeat(k, tickMs, every, idle)) beats.push(k);
      // Each beat is the first flush past a multiple of idle (no two between one pair of multiples).
      for (const k of beats) expect(Math.floor((k * tickMs) / idle)).not.toBe(Math.floor(((k - every) * tickMs) / idle));
      for (let i = 0; i + 1 < beats.length; i++) expect(nextIdleBeat(beats[i]!, tickMs, every, idle)).toBe(beats[i + 1]);
    }
    expect(isIdleBeat(5, 50, 1, 0)).toBe(false);
    expect(nextIdleBeat(5, 50, 1, 0)).toBe(Infinity);
  });
});

describe("Room: a still room sleeps", () => {
  it("ticks 4 times a second instead of 20 once still, sending every client the same idle frames as an awake room", () => {
    // No periodic checkpoint here: each would be a tick of its own (see the test after).
    const asleep = new DriftRoom(true, { checkpointMs: 0 });
    const awake = new DriftRoom(false, { checkpointMs: 0 });
    for (const r of [asleep, awake]) {
      for (let i = 0; i < 8; i++) r.join();
      r.clock.advance(1000);
    }
    const ticks0 = [asleep.room.snapshot().ticks, awake.room.snapshot().ticks];
    const beats0 = asleep.sleep!.beats;
    for (const r of [asleep, awake]) r.clock.advance(10_000);
    expect(asleep.room.snapshot().ticks - ticks0[0]!).toBe(40);
    expect(awake.room.snapshot().ticks - ticks0[1]!).toBe(200);
    for (let i = 0; i < 8; i++) expect(asleep.frames(i)).toEqual(awake.frames(i));
    // An idle frame per client per beat: 4 a second.
    expect(asleep.frames(0).length).toBeGreaterThanOrEqual(40);
    const sleep = asleep.sleep!;
    expect(sleep.asleep).toBe(true);
    expect(sleep.sleeps).toBe(1);
    expect(sleep.beats - beats0).toBe(40);
    expect(sleep.asleepMs).toBeGreaterThan(10_000);
    expect(asleep.room.loopRunning).toBe(true);
  });

  it("wakes on an input: applied at the next tick on the grid, acked, and the dot glides until it is there", () => {
    const r = new DriftRoom(true);
    r.join();
    r.clock.advance(2_010);
    expect(r.sleep!.asleep).toBe(true);
    const before = r.frames(0).length;
    r.input(0, 150); // target x 750: 250 units away
    expect(r.sleep!.asleep).toBe(false);
    expect(r.sleep!.wakes).toBe(1);
    r.clock.advance(40); // the tick at 2050 applies it
    expect(r.game.dots.get(1)!.rec.x).toBe(500 + DRIFT_STEP);
    expect(r.frames(0).length).toBe(before + 1);
    // Gliding: never asleep until it arrives (36 ticks).
    for (let t = 0; t < 34; t++) {
      r.clock.advance(50);
      expect(r.sleep!.asleep).toBe(false);
    }
    r.clock.advance(500);
    expect(r.game.dots.get(1)!.rec.x).toBe(750);
    expect(r.sleep!.asleep).toBe(true);
  });

  it("wakes on a join, a leave, a drop and the seat's expiry, and on the game's own timer", () => {
    const r = new DriftRoom(true, { reconnectWindowMs: 1_000 });
    r.join();
    r.join();
    r.clock.advance(1_000);
    expect(r.sleep!.asleep).toBe(true);
    let wakes = r.sleep!.wakes;
    const woke = (): boolean => {
      const now = r.sleep!.wakes;
      const did = now > wakes;
      wakes = now;
      return did;
    };
    r.join();
    expect(woke()).toBe(true);
    r.clock.advance(1_000);
    r.leave(2);
    expect(woke()).toBe(true);
    r.clock.advance(1_000);
    r.drop(1);
    expect(woke()).toBe(true);
    r.clock.advance(600);
    expect(r.sleep!.asleep).toBe(true);
    expect(r.game.dots.has(2)).toBe(true);
    r.clock.advance(500); // the reconnection window ran out: the seat's expiry freed it
    expect(woke()).toBe(true);
    expect(r.game.dots.has(2)).toBe(false);
    r.clock.advance(1_000);
    // The lamp's timer (6 × 30 ms): the room stays awake until it flips.
    r.input(0, 205);
    expect(woke()).toBe(true);
    r.clock.advance(100);
    expect(r.sleep!.asleep).toBe(false);
    r.clock.advance(200);
    expect(r.game.lamp.on).toBe(1);
    r.clock.advance(500);
    expect(r.sleep!.asleep).toBe(true);
  });

  it("takes the periodic checkpoint due after it fell asleep, then none until something changes", () => {
    const r = new DriftRoom(true, { checkpointMs: 1_000 });
    r.join();
    r.clock.advance(60);
    r.input(0, 110); // target x 550: the dot glides for 8 ticks, after the first checkpoint (tick 1)
    r.clock.advance(570);
    expect(r.sleep!.asleep).toBe(true);
    expect(r.kept).toEqual(["1:500,173 lamp 0"]);
    const ticks = r.room.snapshot().ticks;
    r.clock.advance(10_000);
    // The one due at tick 21 (a tick of its own, between two beats) saves where the dot stopped; no more after it.
    expect(r.kept).toEqual(["1:500,173 lamp 0", "1:550,173 lamp 0"]);
    expect(r.room.snapshot().ticks - ticks).toBe(41);
    expect(r.sleep!.wakes).toBe(0);
    // A change (the lamp) and the next due checkpoint saves it.
    r.input(0, 210);
    r.clock.advance(1_500);
    expect(r.kept.at(-1)).toBe("1:550,173 lamp 1");
  });

  it("never sleeps for a game that does not declare stillness", () => {
    const r = new DriftRoom(false);
    r.join();
    r.clock.advance(5_000);
    expect(r.sleep).toBeUndefined();
    expect(r.room.snapshot().ticks).toBe(100);
  });
});
