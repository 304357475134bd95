/**
 * A room that sleeps while its game is still (room/roomSleep.ts) against its naive twin: the
 * same room whose game declares no stillness, so it ticks every tick. Driven by the same random
 * script (joins, inputs that set dots gliding or arm the game's own timer, leaves, drops whose
 * seats a timer frees later, waits), both must hold the same world and must have sent every
 * player the same FRAMEs, byte for byte (tick indexes, times, acks, deltas, idle beats), after
 * every step; and the sleeper checkpoints every world the awake room does (it skips only those
 * that would save the same world again).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DriftRoom } from "./support/driftGame";

type Step = { wait: number } | { join: true } | { input: number; n: number } | { leave: number } | { drop: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ wait: fc.integer({ min: 0, max: 900 }) }) },
  { weight: 2, arbitrary: fc.constant({ join: true as const }) },
  {
    weight: 4,
    arbitrary: fc.record({ input: fc.nat(7), n: fc.oneof(fc.integer({ min: 0, max: 199 }), fc.integer({ min: 200, max: 210 }), fc.constant(100)) }),
  },
  { weight: 1, arbitrary: fc.record({ leave: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ drop: fc.nat(7) }) },
);

/**
 * Options both rooms run with: the defaults, or other rates and windows. A held seat's window
 * ends half a millisecond off the whole ms every tick deadline falls on: a timer due at the very
 * instant of a tick runs before or after it by the order the two timers were made (the awake
 * room's tick timer is made a tick ahead, a sleeping room's when it falls asleep), which a
 * runtime's clock does not promise either.
 */
const roomOptions = fc.oneof(
  fc.constant({ reconnectWindowMs: 15_000.5 }),
  fc.record({
    tickMs: fc.constantFrom(20, 33, 50),
    syncIntervalMs: fc.constantFrom(50, 100),
    idleFrameMs: fc.constantFrom(0, 120, 250, 700),
    reconnectWindowMs: fc.integer({ min: 300, max: 3000 }).map((ms) => ms + 0.5),
    checkpointMs: fc.constantFrom(0, 400, 1000),
    queueInputs: fc.boolean(),
  }),
);

/** The worlds in order, each repeat of the one before dropped. */
const changes = (kept: readonly string[]): string[] => kept.filter((x, i) => i === 0 || x !== kept[i - 1]);

describe("a sleeping room sends what the same room kept awake sends", () => {
  it("same world and the same frames per player, whatever joins, inputs, leaves, drops and waits (property)", () => {
    let sleeps = 0;
    let wakes = 0;
    fc.assert(
      fc.property(roomOptions, fc.array(step, { minLength: 1, maxLength: 40 }), (options, steps) => {
        const asleep = new DriftRoom(true, options);
        const awake = new DriftRoom(false, options);
        asleep.join();
        awake.join();
        for (const s of steps) {
          for (const r of [asleep, awake]) {
            if ("wait" in s) r.clock.advance(s.wait);
            else if ("join" in s) r.join();
            else if ("input" in s) r.input(s.input % r.conns.length, s.n);
            else if ("leave" in s) r.leave(s.leave % r.conns.length);
            else r.drop(s.drop % r.conns.length);
          }
          expect(asleep.game.view()).toBe(awake.game.view());
          for (let i = 0; i < awake.conns.length; i++) expect(asleep.frames(i)).toEqual(awake.frames(i));
          // Checkpoints: the awake room's, less those a sleep skipped as saving the world already saved.
          expect(changes(asleep.kept)).toEqual(changes(awake.kept));
          expect(asleep.kept.length).toBeLessThanOrEqual(awake.kept.length);
        }
        // The twin never sleeps; the sleeper did whenever the script let it.
        expect(awake.sleep).toBeUndefined();
        sleeps += asleep.sleep!.sleeps;
        wakes += asleep.sleep!.wakes;
      }),
      { numRuns: 150 },
    );
    // Not a vacuous property: the rooms compared did sleep and were woken.
    expect(sleeps).toBeGreaterThan(50);
    expect(wakes).toBeGreaterThan(50);
  });
});
