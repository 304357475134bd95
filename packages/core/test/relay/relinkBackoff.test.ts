/** A relay's attempts to link again (relay/relinkBackoff.ts) on a fake clock: doubling waits, a cap, a give-up time, a 4xx ends it. */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/fakeClock";
import { RELINK_GIVE_UP_MS, RELINK_MAX_WAIT_MS, RelinkBackoff } from "../../src/relay/relinkBackoff";

describe("relink backoff", () => {
  it("waits 50 ms doubling to its cap, and gives up when the next attempt would pass the give-up time", () => {
    const clock = new FakeClock(0);
    const backoff = new RelinkBackoff(clock);
    const waits: number[] = [];
    for (let wait = backoff.next(503); wait !== null; wait = backoff.next(503)) {
      waits.push(wait);
      clock.advance(wait);
    }
    expect(waits.slice(0, 6)).toEqual([50, 100, 200, 400, 800, RELINK_MAX_WAIT_MS]);
    expect(waits.every((w) => w <= RELINK_MAX_WAIT_MS)).toBe(true);
    expect(clock.now()).toBeLessThanOrEqual(RELINK_GIVE_UP_MS);
    expect(clock.now() + RELINK_MAX_WAIT_MS).toBeGreaterThan(RELINK_GIVE_UP_MS);
  });

  it("gives up at once on a refusal for good (4xx)", () => {
    const backoff = new RelinkBackoff(new FakeClock(0));
    expect(backoff.next(404)).toBeNull();
  });
});
