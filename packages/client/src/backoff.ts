/**
 * How retry delays are randomised, so that the players of one room, dropped by the same blip, do
 * not come back in lock-step and knock the room over again. One mode, `full`: uniform in
 * [0, min(cap, base·2^attempt)] (a second, `decorrelated`, was an option nobody set; see
 * docs/sdk.md "Tuning").
 */
export type JitterMode = "full";

/** Tunables of a {@link Backoff}. */
export interface BackoffOptions {
  /** First step of the exponential schedule (ms). Default 250. */
  baseMs?: number;
  /** Cap on the jittered part of any delay (ms). Default 10 000. */
  maxMs?: number;
  /** Delays handed out before {@link Backoff.next} reports exhaustion. Default 10; `Infinity` allowed. */
  maxAttempts?: number;
  /** Uniform [0, 1) source; inject a seeded one for reproducible tests. Default `Math.random`. */
  random?: () => number;
}

/** @internal {@link BackoffOptions} with their defaults and bounds applied: the one reading of them. */
export type BackoffTunables = Required<BackoffOptions>;

/** @internal Reads {@link BackoffOptions} (defaults, and bounds that keep the schedule sane). */
export function backoffTunables(options: BackoffOptions = {}): BackoffTunables {
  const baseMs = Math.max(0, options.baseMs ?? 250);
  return { baseMs, maxMs: Math.max(baseMs, options.maxMs ?? 10_000), maxAttempts: Math.max(0, options.maxAttempts ?? 10), random: options.random ?? Math.random };
}

/**
 * @internal Delay number `attempt` (0 first) of a schedule, or null once `maxAttempts` are used
 * up. `minDelayMs` (a server's `retryAfterMs`) goes *under* the jittered part rather than
 * replacing it: clamping everyone to the same floor would line them up again. {@link Backoff}
 * and the connection both schedule with it.
 */
export function backoffDelay(t: BackoffTunables, attempt: number, minDelayMs = 0): number | null {
  if (attempt >= t.maxAttempts) return null;
  const r = Math.min(Math.max(t.random(), 0), 1);
  // 2^attempt overflows to Infinity long after the cap takes over; min() keeps it finite. A
  // server may ask for up to 2^32-1 ms; setTimeout fires anything over 2^31-1 ms at once.
  return Math.min(Math.max(0, minDelayMs) + r * Math.min(t.maxMs, t.baseMs * 2 ** attempt), 0x7fffffff);
}

/**
 * Bounded exponential backoff with full jitter (see {@link JitterMode}). Pure bookkeeping, no
 * timers: the caller asks for the next delay and schedules it itself.
 */
export class Backoff {
  // Declared, not defined: as ES2022 class fields each name would be emitted twice (see Field).
  /** First step of the exponential schedule (ms). */
  declare readonly baseMs: number;
  /** Cap on the jittered part of any delay (ms). */
  declare readonly maxMs: number;
  /** Delays handed out before {@link next} reports exhaustion (may be Infinity). */
  declare readonly maxAttempts: number;
  readonly #tunables: BackoffTunables;
  #attemptCount = 0;

  constructor(options: BackoffOptions = {}) {
    const t = (this.#tunables = backoffTunables(options));
    this.baseMs = t.baseMs;
    this.maxMs = t.maxMs;
    this.maxAttempts = t.maxAttempts;
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
    const delay = backoffDelay(this.#tunables, this.#attemptCount, minDelayMs);
    if (delay !== null) this.#attemptCount++;
    return delay;
  }

  /** Forget past failures, e.g. after a connection proved stable. */
  reset(): void {
    this.#attemptCount = 0;
  }
}
