/**
 * How a relay whose link to its simulation closed links again (AGENTS.md "Failure"): at once,
 * then after waits from {@link RELINK_FIRST_WAIT_MS} doubling to {@link RELINK_MAX_WAIT_MS},
 * until {@link RELINK_GIVE_UP_MS} has passed or the simulation refuses for good (a 4xx). A rule
 * of the core on its `Clock`; the host does the linking (the Cloudflare adapter's relayHost.ts).
 */
import type { Clock } from "../clock";

/** First wait before a relay whose link closed links again; doubled per attempt, up to {@link RELINK_MAX_WAIT_MS}. */
export const RELINK_FIRST_WAIT_MS = 50;
/** Longest wait between two attempts to link again. */
export const RELINK_MAX_WAIT_MS = 1_000;
/**
 * How long a relay tries to link again before it gives its clients up and closes them with
 * `going_away` (they rejoin their held seats through the gateway). A simulation restarting from
 * its checkpoint answers within a second or two; a room that cannot come back should not hold
 * its players' sockets much longer than that.
 */
export const RELINK_GIVE_UP_MS = 10_000;

/** One relay's attempts to link again, from the moment its link was lost. */
export class RelinkBackoff {
  private wait = RELINK_FIRST_WAIT_MS;
  private readonly giveUpAt: number;

  constructor(private readonly clock: Clock) {
    this.giveUpAt = clock.now() + RELINK_GIVE_UP_MS;
  }

  /**
   * An attempt failed with HTTP `status`: the wait before the next one, ms, or null to give up
   * (a refusal for good, `status` < 500, or the next attempt would come past the give-up time).
   */
  next(status: number): number | null {
    const wait = this.wait;
    if (status < 500 || this.clock.now() + wait > this.giveUpAt) return null;
    this.wait = Math.min(2 * wait, RELINK_MAX_WAIT_MS);
    return wait;
  }
}
