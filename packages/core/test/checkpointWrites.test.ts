/**
 * When a host writes its room's checkpoint (room/checkpointWrites.ts), on a fake clock: one
 * pending write at a time, on a later turn, spaced, and confirmed when any change asked for it.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../src/fakeClock";
import { CHECKPOINT_SPACING_MS, CheckpointWrites } from "../src/room/checkpointWrites";

describe("checkpoint writes", () => {
  it("batches a burst into one write on a later turn, spaced from the last, confirmed if a change asked", () => {
    const clock = new FakeClock(1_000);
    const writes: [number, boolean][] = [];
    const writesOf = new CheckpointWrites(clock, (confirmed) => writes.push([clock.now(), confirmed]));
    writesOf.due(false);
    writesOf.due(true);
    expect(writes).toEqual([]);
    clock.advance(0);
    expect(writes).toEqual([[1_000, true]]);
    // The next, periodic, waits out the spacing and is not confirmed.
    clock.advance(30);
    writesOf.due(false);
    clock.advance(CHECKPOINT_SPACING_MS - 31);
    expect(writes).toHaveLength(1);
    clock.advance(1);
    expect(writes).toEqual([[1_000, true], [1_000 + CHECKPOINT_SPACING_MS, false]]);
    // After a quiet spell a change is written at once.
    clock.advance(10 * CHECKPOINT_SPACING_MS);
    writesOf.due(true);
    clock.advance(0);
    expect(writes[2]).toEqual([1_000 + 11 * CHECKPOINT_SPACING_MS, true]);
  });
});
