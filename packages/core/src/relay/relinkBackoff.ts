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

/** One attempt of a host to link a relay again: the link, or the simulation's refusal (HTTP status and text). */
export type LinkAttempt<L> =
  | {
      /** The link made. */
      link: L;
    }
  | {
      /** The refusal's HTTP status (5xx: try again; else for good). */
      status: number;
      /** What the refusal said. */
      text: string;
    };

/** How a relay's attempts to link again ended (see {@link relinkRelay}). */
export type RelinkOutcome =
  | {
      /** Linked; the relay is not the host's any more; or nobody waited. */
      outcome: "linked" | "stale" | "empty";
    }
  | {
      /** Past the give-up time, or refused for good. */
      outcome: "gave-up";
      /** The last refusal: its status and text. */
      why: string;
    };

/** What {@link relinkRelay} asks of the host. */
export interface RelinkSteps<L> {
  /** One attempt to link to the simulation (a throw counts as a 503). */
  attempt(): Promise<LinkAttempt<L>>;
  /** Whether the relay is still the host's (it may be dropped or made anew meanwhile). */
  current(): boolean;
  /** Takes `link` as the relay's (the relay is current). */
  linked(link: L): void;
  /** Lets `link` go: it came for a relay no longer current. */
  discard(link: L): void;
}

/**
 * Links a relay whose link closed again: at once, then with {@link RelinkBackoff}'s waits on
 * `clock`, while any client it kept still waits (`waitingCount`). Ends `linked`; `stale` (the
 * relay is not the host's any more); `empty` (everyone it kept left: nothing to link for); or
 * `gave-up` with the last refusal (past {@link RELINK_GIVE_UP_MS}, or refused for good): the
 * host then closes the relay's clients, who rejoin their held seats through the gateway.
 */
export async function relinkRelay<L>(relay: { readonly waitingCount: number }, steps: RelinkSteps<L>, clock: Clock): Promise<RelinkOutcome> {
  const backoff = new RelinkBackoff(clock);
  for (;;) {
    if (relay.waitingCount === 0) return { outcome: "empty" };
    let a: LinkAttempt<L>;
    try {
      a = await steps.attempt();
    } catch (e) {
      a = { status: 503, text: e instanceof Error ? e.message : String(e) };
    }
    if (!steps.current()) {
      if ("link" in a) steps.discard(a.link);
      return { outcome: "stale" };
    }
    if ("link" in a) {
      steps.linked(a.link);
      return { outcome: "linked" };
    }
    const wait = backoff.next(a.status);
    if (wait === null) return { outcome: "gave-up", why: `${a.status} ${a.text}` };
    await new Promise<void>((resolve) => clock.setTimer(resolve, wait));
    if (!steps.current()) return { outcome: "stale" };
  }
}
