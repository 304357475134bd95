/** Tunables of a {@link ClockSync}. */
export interface ClockSyncOptions {
  /**
   * Samples kept for best-sample selection. A longer window rides out longer congestion; a
   * shorter one follows route changes sooner. Default 8.
   */
  windowSize?: number;
  /** Fastest the applied offset may move toward a new estimate (ms per second). Default 10. */
  maxSlewMsPerSec?: number;
  /**
   * An estimate this far (ms) from the applied offset is stepped to at once instead of slewed:
   * the local clock itself jumped (a suspended laptop, a throttled tab), and slewing a gap of
   * seconds would take minutes. Default 1000.
   */
  stepThresholdMs?: number;
  /**
   * The first this-many samples are applied directly rather than slewed: until then there is
   * no estimate worth protecting from a jump. Default 1.
   */
  warmupSamples?: number;
  /** Local monotonic clock in ms. Default `performance.now()`. */
  now?: () => number;
}

const defaultNow = (): number => performance.now();

/**
 * NTP-style clock offset estimation against the room's server clock.
 *
 * Each sample is a ping sent at local `t0`, answered with the server's time `s`, received at local
 * `t1`. Assuming equal one-way delays, `offset = s − (t0 + rtt/2)`; the error of that assumption
 * is at most half the queueing the sample suffered, so the sample with the lowest RTT in a
 * sliding window is the most trustworthy one and is the one used. The applied offset then
 * *slews* toward that target at a bounded rate, so `serverNow()` never jumps or runs backwards.
 */
export class ClockSync {
  /** Samples kept for the minimum-RTT filter. */
  readonly windowSize: number;
  /** Fastest the applied offset moves toward a new estimate (ms per second). */
  readonly maxSlewMsPerSec: number;
  /** A correction this large is applied at once instead of slewed (ms). */
  readonly stepThresholdMs: number;
  /** Samples applied directly before slewing starts. */
  readonly warmupSamples: number;
  readonly #now: () => number;

  readonly #winOffset: Float64Array;
  readonly #winRtt: Float64Array;
  #winCount = 0;
  #winHead = 0;

  #current = 0;
  #target = 0;
  #lastAdvance = 0;
  #samples = 0;
  #srtt = 0;
  #lastRtt = 0;
  #bestRtt = 0;
  #stepCount = 0;

  constructor(options: ClockSyncOptions = {}) {
    this.windowSize = Math.max(1, Math.floor(options.windowSize ?? 8));
    this.maxSlewMsPerSec = Math.max(0, options.maxSlewMsPerSec ?? 10);
    this.stepThresholdMs = options.stepThresholdMs ?? 1000;
    this.warmupSamples = Math.max(1, Math.floor(options.warmupSamples ?? 1));
    this.#now = options.now ?? defaultNow;
    this.#winOffset = new Float64Array(this.windowSize);
    this.#winRtt = new Float64Array(this.windowSize);
  }

  /** True once at least one sample arrived; before that {@link serverNow} is the local clock. */
  get synced(): boolean {
    return this.#samples > 0;
  }

  /** Samples accepted since construction or {@link reset}. */
  get sampleCount(): number {
    return this.#samples;
  }

  /** Smoothed round-trip time (ms), weighted like TCP's SRTT. */
  get rttMs(): number {
    return this.#srtt;
  }

  /** Round-trip time of the latest sample (ms). */
  get lastRttMs(): number {
    return this.#lastRtt;
  }

  /** Lowest round-trip time in the current window (ms): the sample the target comes from. */
  get minRttMs(): number {
    return this.#bestRtt;
  }

  /** Offset (server − local, ms) the estimate is slewing toward. */
  get targetOffsetMs(): number {
    return this.#target;
  }

  /** Times the offset was stepped instead of slewed (after warm-up). */
  get steps(): number {
    return this.#stepCount;
  }

  /** Applied offset (server − local, ms) at local time `localNow`. */
  offsetAt(localNow: number = this.#now()): number {
    this.#advance(localNow);
    return this.#current;
  }

  /** Applied offset right now (server − local, ms). */
  get offsetMs(): number {
    return this.offsetAt();
  }

  /** Estimated server clock at local time `localNow` (default: now). Monotonic in `localNow`. */
  serverNow(localNow: number = this.#now()): number {
    return localNow + this.offsetAt(localNow);
  }

  /**
   * Adds one ping/pong sample: sent at local `t0`, server clock `serverTime`, received at local
   * `t1`. Returns false (and ignores the sample) when it cannot be a real round trip.
   */
  addSample(t0: number, serverTime: number, t1: number): boolean {
    const rtt = t1 - t0;
    if (!Number.isFinite(rtt) || !Number.isFinite(serverTime) || rtt < 0) return false;
    const offset = serverTime - (t0 + rtt / 2);

    this.#advance(t1);
    this.#winOffset[this.#winHead] = offset;
    this.#winRtt[this.#winHead] = rtt;
    this.#winHead = (this.#winHead + 1) % this.windowSize;
    if (this.#winCount < this.windowSize) this.#winCount++;

    // Lowest RTT wins; on ties the newest, so a stable path tracks slow drift.
    let best = -1;
    for (let k = 0; k < this.#winCount; k++) {
      const i = (this.#winHead - 1 - k + this.windowSize) % this.windowSize;
      if (best < 0 || this.#winRtt[i] < this.#winRtt[best]) best = i;
    }
    this.#target = this.#winOffset[best];
    this.#bestRtt = this.#winRtt[best];

    this.#samples++;
    this.#lastRtt = rtt;
    this.#srtt = this.#samples === 1 ? rtt : this.#srtt + (rtt - this.#srtt) / 8;

    if (this.#samples <= this.warmupSamples) {
      this.#current = this.#target;
    } else if (Math.abs(this.#target - this.#current) > this.stepThresholdMs) {
      this.#current = this.#target;
      this.#stepCount++;
    }
    this.#lastAdvance = Math.max(this.#lastAdvance, t1);
    return true;
  }

  /** Forget every sample (e.g. connected to a different server). */
  reset(): void {
    this.#winCount = 0;
    this.#winHead = 0;
    this.#samples = 0;
    this.#current = 0;
    this.#target = 0;
    this.#srtt = 0;
    this.#lastRtt = 0;
    this.#bestRtt = 0;
    this.#lastAdvance = 0;
  }

  #advance(localNow: number): void {
    if (this.#samples === 0) {
      this.#lastAdvance = localNow;
      return;
    }
    const dt = localNow - this.#lastAdvance;
    // Asking about an earlier instant must not move the offset backwards in time.
    if (!(dt > 0)) return;
    const maxStep = (dt * this.maxSlewMsPerSec) / 1000;
    const diff = this.#target - this.#current;
    this.#current += diff > maxStep ? maxStep : diff < -maxStep ? -maxStep : diff;
    this.#lastAdvance = localNow;
  }
}
