/**
 * A host's memory of callers its matchmakers answered `rate_limited`: until the wait they were
 * given runs out, their requests are answered from here, before their body is read and without
 * asking a matchmaker (on Cloudflare a trip to its object). The matchmaker stays the judge (its
 * token bucket per caller); this only repeats its answer. Per process or isolate, best effort:
 * forgetting costs a trip, nothing else.
 */

/** Entries kept before the memory starts over. */
const MAX_REMEMBERED = 4096;

/** Callers told to wait, by rate key (see the module comment). */
export class RateLimitMemory {
  readonly #until = new Map<string, number>();

  /** Ms `key` has still to wait at `now` (0: ask the matchmaker). */
  waitMs(key: string | undefined, now: number): number {
    if (key === undefined) return 0;
    const until = this.#until.get(key);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.#until.delete(key);
    return 0;
  }

  /** The matchmaker told `key` to wait `retryAfterMs` from `now`. */
  remember(key: string | undefined, retryAfterMs: number, now: number): void {
    if (key === undefined || !(retryAfterMs > 0)) return;
    if (this.#until.size >= MAX_REMEMBERED) this.#until.clear();
    this.#until.set(key, now + retryAfterMs);
  }
}
