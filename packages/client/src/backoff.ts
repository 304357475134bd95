/**
 * How retry delays grow. Both modes are randomised so that the players of one room, dropped by
 * the same blip, do not come back in lock-step and knock the room over again.
 * - `full`: uniform in [0, min(cap, base·2^attempt)].
 * - `decorrelated`: uniform in [base, min(cap, 3·previous)], which spreads clients further apart
 *   while keeping a floor of `base`.
 */
export type JitterMode = "full" | "decorrelated";

/** Tunables of a {@link Backoff}. */
export interface BackoffOptions {
  /** First step of the exponential schedule (ms). Default 250. */
  baseMs?: number;
  /** Cap on the jittered part of any delay (ms). Default 10 000. */
  maxMs?: number;
  /** Delays handed out before {@link Backoff.next} reports exhaustion. Default 10; `Infinity` allowed. */
  maxAttempts?: number;
  /** Default `full`. */
  jitter?: JitterMode;
  /** Uniform [0, 1) source; inject a seeded one for reproducible tests. Default `Math.random`. */
  random?: () => number;
}

/**
 * Bounded exponential backoff with jitter. Pure bookkeeping, no timers: the caller asks for the
 * next delay and schedules it itself.
 */
export class Backoff {
  /** First step of the exponential schedule (ms). */
  readonly baseMs: number;
  /** Cap on the jittered part of any delay (ms). */
  readonly maxMs: number;
  /** Delays handed out before {@link next} reports exhaustion (may be Infinity). */
  readonly maxAttempts: number;
  /** How delays are randomised. */
  readonly jitter: JitterMode;
  readonly #random: () => number;
  #attemptCount = 0;
  #prev: number;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = Math.max(0, options.baseMs ?? 250);
    this.maxMs = Math.max(this.baseMs, options.maxMs ?? 10_000);
    this.maxAttempts = Math.max(0, options.maxAttempts ?? 10);
    this.jitter = options.jitter ?? "full";
    this.#random = options.random ?? Math.random;
    this.#prev = this.baseMs;
  }

  /** Delays handed out since the last {@link reset}. */
  get attempts(): number {
    return this.#attemptCount;
  }

  /** True once {@link maxAttempts} delays have been handed out. */
  get exhausted(): boolean {
    return this.#attemptCount >= this.maxAttempts;
  }

  /**
   * The next delay in ms, or `null` when the attempts are used up. `minDelayMs` (a server's
   * `retryAfterMs`, or a floor for "room full") is added *under* the jittered part rather than
   * replacing it: clamping everyone to the same floor would line them up again.
   */
  next(minDelayMs = 0): number | null {
    if (this.exhausted) return null;
    const r = Math.min(Math.max(this.#random(), 0), 1);
    const base = this.baseMs;
    let jittered: number;
    if (this.jitter === "decorrelated") {
      // The previous delay and the cap are ≥ base, so this stays in [base, cap].
      jittered = base + r * (Math.min(this.maxMs, this.#prev * 3) - base);
      this.#prev = jittered;
    } else {
      // 2^attempt overflows to Infinity long after the cap takes over; min() keeps it finite.
      jittered = r * Math.min(this.maxMs, base * 2 ** this.#attemptCount);
    }
    this.#attemptCount++;
    return Math.max(0, minDelayMs) + jittered;
  }

  /** Forget past failures, e.g. after a connection proved stable. */
  reset(): void {
    this.#attemptCount = 0;
    this.#prev = this.baseMs;
  }
}
