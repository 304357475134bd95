/**
 * Per-player movement allowance against speed hacks: an aggregate token bucket of distance.
 * It refills at `maxSpeed × slack` per second of arrival time (the room's `receivedAt`) up to
 * `burst` units, and every move spends the distance it asks for.
 *
 * Why arrival time and a burst: an honest client's moves arrive bunched whenever its packets'
 * latency varies (a stall, then several at once). Over any span, the distance it asks for is
 * at most what its real elapsed time allows plus the latency variation, so a burst of
 * `maxSpeed × maxJitter` accepts every honest arrival pattern with jitter up to that, while a
 * client asking for more distance than time allows, sustained, drains the bucket and is
 * refused: over any span, accepted distance ≤ burst + maxSpeed × slack × elapsed.
 *
 * A refused move spends nothing, so a cheater keeps exactly the honest rate, not less.
 */
export class MoveBudget {
  private level: number;
  private last: number;
  private readonly ratePerMs: number;

  constructor(
    /** Top legal speed, units per second. */
    readonly maxSpeed: number,
    /** Bucket size in units (e.g. maxSpeed × 0.25 for 250 ms of tolerated jitter). */
    readonly burst: number,
    /** Time of creation (ms); the bucket starts full. */
    now: number,
    /** Refill factor over `maxSpeed` (≥ 1). */
    readonly slack = 1,
  ) {
    this.level = burst;
    this.last = now;
    this.ratePerMs = (maxSpeed * slack) / 1000;
  }

  /** Units that could be spent at time `at`. */
  available(at: number): number {
    this.refill(at);
    return this.level;
  }

  /**
   * Spends `distance` units at arrival time `at` if the budget allows and returns true;
   * otherwise spends nothing and returns false. Times earlier than the last one count as it
   * (arrivals of one socket are ordered; this only guards against a clock step back).
   */
  take(distance: number, at: number): boolean {
    this.refill(at);
    // The epsilon keeps an exactly-legal step from failing on float rounding of the refill.
    if (distance > this.level + 1e-9) return false;
    this.level = Math.max(0, this.level - distance);
    return true;
  }

  private refill(at: number): void {
    if (at <= this.last) return;
    const next = this.level + (at - this.last) * this.ratePerMs;
    this.level = next < this.burst ? next : this.burst;
    this.last = at;
  }
}
