/**
 * The joins waiting for the game's answer (`JoinAdmissions`): when a game's `admit` answers a
 * joining player with a promise, the join waits here, its seat counted against the cap (so
 * concurrent hellos never seat past it) until the game decides or the room's
 * `admissionTimeoutMs` runs out, whichever comes first, once.
 */
import type { Clock, TimerHandle } from "../clock";
import type { AdmitVerdict, JoiningPlayer } from "../player";
import type { AdmissionCounts } from "../roomStats";
import type { ClientLink } from "./clientLink";

/** One join waiting for the game's answer. */
export interface Admitting {
  /** The socket that said hello. */
  readonly link: ClientLink;
  /** The player as it would be seated. */
  readonly joining: JoiningPlayer;
  /** Its identity is a verified one (the seat is bound to it). */
  readonly bound: boolean;
  /** It came with a seat reservation (used up by the hello): a lock does not keep it out. */
  readonly reserved: boolean;
}

/** How a wait ended: the game's verdict, out of time, or the game's promise rejected. */
export type AdmissionOutcome =
  | {
      /** The game answered. */
      kind: "answered";
      /** What it answered. */
      verdict: AdmitVerdict;
    }
  | {
      /** `admissionTimeoutMs` ran out first. */
      kind: "timeout";
    }
  | {
      /** The game's promise rejected. */
      kind: "failed";
      /** With what. */
      error: unknown;
    };

/** Whether `v` is a promise (or any thenable) rather than an answer. */
export function isThenable(v: unknown): v is PromiseLike<AdmitVerdict> {
  return typeof v === "object" && v !== null && typeof (v as PromiseLike<unknown>).then === "function";
}

/**
 * The joins a room's game has not answered yet. {@link size} counts those whose socket is still
 * open: each holds a seat against the cap. A socket that closes meanwhile stops counting at once
 * (its answer, when it comes, seats nobody). One identity waits once: a newer join of it
 * supersedes the older ({@link supersede}).
 */
export class JoinAdmissions {
  /** Each waiting join and its deadline's timer. */
  private readonly waiting = new Map<Admitting, TimerHandle>();
  /** Counters behind `tk:stats` `admissions`. */
  readonly counts: AdmissionCounts = { asked: 0, admitted: 0 };

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: () => number,
  ) {}

  /** Joins waiting whose socket is still open (each holds a seat against the cap). */
  get size(): number {
    let n = 0;
    for (const a of this.waiting.keys()) if (!a.link.closed) n++;
    return n;
  }

  /** Whether `link` waits for the game's answer (a second hello on it is a protocol error). */
  has(link: ClientLink): boolean {
    for (const a of this.waiting.keys()) if (a.link === link) return true;
    return false;
  }

  /** The open join of verified identity `identity` still waiting, if any (a newer one supersedes it). */
  supersede(identity: string): Admitting | undefined {
    for (const a of this.waiting.keys()) {
      if (a.bound && a.joining.identity === identity && !a.link.closed) {
        this.forget(a);
        return a;
      }
    }
    return undefined;
  }

  /**
   * Waits for `answer` on behalf of `a`: `decided` is called once, with the answer or the
   * timeout (or the rejection), unless `a` was superseded meanwhile. A socket that closed
   * meanwhile is still told (the caller checks `link.closed`).
   */
  wait(a: Admitting, answer: PromiseLike<AdmitVerdict>, decided: (a: Admitting, outcome: AdmissionOutcome) => void): void {
    const end = (outcome: AdmissionOutcome): void => {
      if (!this.forget(a)) return;
      decided(a, outcome);
    };
    this.waiting.set(
      a,
      this.clock.setTimer(() => end({ kind: "timeout" }), this.timeoutMs()),
    );
    answer.then(
      (verdict) => end({ kind: "answered", verdict }),
      (error: unknown) => end({ kind: "failed", error }),
    );
  }

  /** Forgets every waiting join (room shutdown; their sockets are closed by the room). */
  clear(): void {
    for (const timer of this.waiting.values()) this.clock.clearTimer(timer);
    this.waiting.clear();
  }

  /** Stops waiting for `a` (its timer too); false when it was not waiting. */
  private forget(a: Admitting): boolean {
    // A handle is opaque (it may be anything, undefined too): membership is the map's.
    if (!this.waiting.has(a)) return false;
    this.clock.clearTimer(this.waiting.get(a));
    this.waiting.delete(a);
    return true;
  }
}
