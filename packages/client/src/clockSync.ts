import { approach, monotonicNow, WindowMin } from "./timing";

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
  /** The window's lowest-RTT sample: key its RTT, value its offset (the target). */
  readonly #best: WindowMin;
  // The applied offset is a function of local time: `#from` at local `#since`, slewing from
  // there toward the target at the bounded rate. A sample restarts it from where it stood.
  #from = 0;
  #since = 0;
  #samples = 0;
  #srtt = 0;
  #lastRtt = 0;
  #steps = 0;

  constructor(options: ClockSyncOptions = {}) {
    this.windowSize = Math.max(1, Math.floor(options.windowSize ?? 8));
    this.maxSlewMsPerSec = Math.max(0, options.maxSlewMsPerSec ?? 10);
    this.stepThresholdMs = options.stepThresholdMs ?? 1000;
    this.warmupSamples = Math.max(1, Math.floor(options.warmupSamples ?? 1));
    this.#now = options.now ?? monotonicNow;
    // Samples are numbered, so a span of windowSize − 1 keeps the newest windowSize of them.
    this.#best = new WindowMin(this.windowSize, this.windowSize - 1);
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
    return this.synced ? this.#best.min : 0;
  }

  /** Offset (server − local, ms) the estimate is slewing toward. */
  get targetOffsetMs(): number {
    return this.#best.value;
  }

  /** Times the offset was stepped instead of slewed (after warm-up). */
  get steps(): number {
    return this.#steps;
  }

  /** Applied offset (server − local, ms) at local time `localNow`. */
  offsetAt(localNow: number = this.#now()): number {
    return approach(this.#from, this.#best.value, (Math.max(0, localNow - this.#since) * this.maxSlewMsPerSec) / 1000);
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
    this.#from = this.offsetAt(t1);
    this.#since = t1;
    this.#best.add(this.#samples++, rtt, serverTime - (t0 + rtt / 2));
    this.#lastRtt = rtt;
    this.#srtt = this.#samples === 1 ? rtt : this.#srtt + (rtt - this.#srtt) / 8;
    const target = this.#best.value;
    if (this.#samples <= this.warmupSamples) {
      this.#from = target;
    } else if (Math.abs(target - this.#from) > this.stepThresholdMs) {
      this.#from = target;
      this.#steps++;
    }
    return true;
  }

  /** Forget every sample (e.g. connected to a different server). */
  reset(): void {
    this.#best.clear();
    this.#samples = this.#from = this.#since = this.#srtt = this.#lastRtt = 0;
  }
}
