/**
 * Token bucket: `ratePerSec` tokens refill continuously up to `burst`. Used for per-connection
 * message limits and per-room join admission. Time is passed in, so it works with any clock.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly ratePerSec: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.ratePerSec) / 1000);
      this.last = now;
    }
  }

  /** Takes `n` tokens if available. */
  take(now: number, n = 1): boolean {
    this.refill(now);
    if (this.tokens >= n) {
      this.tokens -= n;
      return true;
    }
    return false;
  }

  /** ms until `n` tokens will be available (0 if now). */
  waitMs(now: number, n = 1): number {
    this.refill(now);
    return this.tokens >= n ? 0 : Math.ceil(((n - this.tokens) * 1000) / this.ratePerSec);
  }
}
