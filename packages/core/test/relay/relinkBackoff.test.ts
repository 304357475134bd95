/** A relay's attempts to link again (relay/relinkBackoff.ts) on a fake clock: doubling waits, a cap, a give-up time, a 4xx ends it. */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/fakeClock";
import { RELINK_FIRST_WAIT_MS, RELINK_GIVE_UP_MS, RELINK_MAX_WAIT_MS, RelinkBackoff, relinkRelay, type LinkAttempt } from "../../src/relay/relinkBackoff";

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

describe("relinkRelay: a host's attempts to link a relay again", () => {
  /** Lets awaited attempts settle, then moves the clock on. */
  async function run(clock: FakeClock, ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 10) {
      await new Promise((r) => setImmediate(r));
      clock.advance(10);
    }
  }

  it("tries again with the backoff's waits while clients wait, and takes the first link", async () => {
    const clock = new FakeClock();
    const answers: LinkAttempt<string>[] = [{ status: 503, text: "restarting" }, { status: 503, text: "restarting" }, { link: "ws" }];
    const linked: string[] = [];
    const at: number[] = [];
    const ended = relinkRelay({ waitingCount: 1 }, { attempt: async () => (at.push(clock.now()), answers.shift()!), current: () => true, linked: (l) => linked.push(l), discard: () => {} }, clock);
    await run(clock, 500);
    expect(await ended).toEqual({ outcome: "linked" });
    expect(linked).toEqual(["ws"]);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(RELINK_FIRST_WAIT_MS);
  });

  it("gives up at once on a refusal for good, and names it; a throw counts as a 503", async () => {
    const clock = new FakeClock();
    let n = 0;
    const ended = relinkRelay(
      { waitingCount: 1 },
      {
        attempt: async () => {
          if (n++ === 0) throw new Error("network");
          return { status: 404, text: "no room" };
        },
        current: () => true,
        linked: () => {},
        discard: () => {},
      },
      clock,
    );
    await run(clock, 200);
    expect(await ended).toEqual({ outcome: "gave-up", why: "404 no room" });
    expect(n).toBe(2);
  });

  it("stops when nobody waits, and lets a link go that came for a relay no longer the host's", async () => {
    expect(await relinkRelay({ waitingCount: 0 }, { attempt: async () => ({ link: 1 }), current: () => true, linked: () => {}, discard: () => {} }, new FakeClock())).toEqual({ outcome: "empty" });
    const discarded: number[] = [];
    expect(await relinkRelay({ waitingCount: 2 }, { attempt: async () => ({ link: 7 }), current: () => false, linked: () => {}, discard: (l) => discarded.push(l) }, new FakeClock())).toEqual({ outcome: "stale" });
    expect(discarded).toEqual([7]);
  });
});
