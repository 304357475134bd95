/**
 * Per-second rate of an ever-growing counter (frames, bytes, rendered frames), measured over
 * the last completed window so the overlay shows a steady number instead of a flicker.
 */
export class RateMeter {
  private windowStart = NaN;
  private startValue = 0;
  private perSec = 0;

  /** @param windowMs length of one measuring window */
  constructor(private readonly windowMs = 1000) {}

  /** Feeds the counter's current total at local time `now`; returns the latest rate. */
  sample(total: number, now: number): number {
    if (Number.isNaN(this.windowStart) || total < this.startValue) {
      this.windowStart = now;
      this.startValue = total;
      return this.perSec;
    }
    const elapsed = now - this.windowStart;
    if (elapsed >= this.windowMs) {
      this.perSec = ((total - this.startValue) * 1000) / elapsed;
      this.windowStart = now;
      this.startValue = total;
    }
    return this.perSec;
  }

  /** Rate of the last completed window (per second). */
  get rate(): number {
    return this.perSec;
  }
}
