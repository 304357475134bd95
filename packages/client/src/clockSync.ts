import { approach, monotonicNow, WindowMin } from "./timing";

/** Samples kept for best-sample selection: rides out a few congested pings, follows route changes within a minute. */
export const CLOCK_WINDOW = 8;
/** Fastest the applied offset moves toward a new estimate (ms per ms: 10 ms per second). */
export const CLOCK_SLEW_MS_PER_MS = 0.01;
/**
 * An estimate this far (ms) from the applied offset is stepped to at once instead of slewed:
 * the local clock itself jumped (a suspended laptop, a throttled tab), and slewing a gap of
 * seconds would take minutes.
 */
export const CLOCK_STEP_MS = 1000;

/**
 * Clock pings a connection with a clock sends right after each welcome (100 ms apart), for a
 * quick first estimate: with the welcome's own round trip they are a clock's default warm-up.
 */
export const PING_BURST = 3;

/** Options of a {@link ClockSync}. */
export interface ClockSyncOptions {
  /**
   * The first this-many samples after construction or {@link ClockSync.reset} are applied
   * directly rather than slewed: until then there is no estimate worth protecting from a jump.
   * Default 4: a connection's welcome round trip and the `PING_BURST` (3) after it.
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
 * is at most half the queueing the sample suffered, so the sample with the lowest RTT among the
 * last `CLOCK_WINDOW` is the most trustworthy one and is the one used. The applied offset then
 * *slews* toward that target at a bounded rate, so `serverNow()` never jumps or runs backwards
 * (unless the local clock itself jumped: `CLOCK_STEP_MS`). The constants are listed under
 * Tuning in docs/sdk.md.
 *
 * A page that needs the room's time opts in by handing one to `connect` (`clock: new
 * ClockSync()`): the connection then pings in a burst after each welcome, feeds every round trip
 * in, and restarts the clock at each new room epoch, so {@link roomTime} counts the room time
 * frames are stamped with. Without one the connection only sends keepalives.
 */
export class ClockSync {
  readonly #warmup: number;
  readonly #now: () => number;
  /** The window's lowest-RTT sample: key its RTT, `minAt` its sample number. */
  readonly #best = new WindowMin(CLOCK_WINDOW, CLOCK_WINDOW - 1);
  /** Offset of each sample in the window, by sample number mod the window. */
  readonly #offsets = new Float64Array(CLOCK_WINDOW);
  /** The best sample's offset: where the applied offset is heading. */
  #target = 0;
  // The applied offset is a function of local time: `#from` at local `#since`, slewing from
  // there toward the target at the bounded rate. A sample restarts it from where it stood.
  #from = 0;
  #since = 0;
  #samples = 0;
  #srtt = 0;
  #epoch = 0;

  constructor(options: ClockSyncOptions = {}) {
    this.#warmup = Math.max(1, Math.floor(options.warmupSamples ?? 1 + PING_BURST));
    this.#now = options.now ?? monotonicNow;
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

  /** Lowest round-trip time in the current window (ms): the sample the target comes from. */
  get minRttMs(): number {
    return this.synced ? this.#best.min : 0;
  }

  /** Applied offset (server − local, ms) at local time `localNow`. */
  offsetAt(localNow: number = this.#now()): number {
    return approach(this.#from, this.#target, Math.max(0, localNow - this.#since) * CLOCK_SLEW_MS_PER_MS);
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
   * Estimated room time at local time `localNow` (default: now): ms since the epoch given to the
   * last {@link reset} (a connection gives its room's `roomEpoch`), the clock of FRAME `time`.
   */
  roomTime(localNow: number = this.#now()): number {
    return this.serverNow(localNow) - this.#epoch;
  }

  /**
   * Adds one ping/pong sample: sent at local `t0`, server clock `serverTime`, received at local
   * `t1`. Returns false (and ignores the sample) when it cannot be a real round trip.
   */
  addSample(t0: number, serverTime: number, t1: number): boolean {
    const rtt = t1 - t0;
    if (!Number.isFinite(rtt) || !Number.isFinite(serverTime) || rtt < 0) return false;
    // A sample handled after a newer one restarts the slew from the newer one's instant: from
    // its own, the offset already applied between the two would change after the fact.
    const at = Math.max(t1, this.#since);
    this.#from = this.offsetAt(at);
    this.#since = at;
    const n = this.#samples++;
    this.#offsets[n % CLOCK_WINDOW] = serverTime - (t0 + rtt / 2);
    this.#best.add(n, rtt);
    this.#srtt = n === 0 ? rtt : this.#srtt + (rtt - this.#srtt) / 8;
    const target = (this.#target = this.#offsets[this.#best.minAt % CLOCK_WINDOW]);
    if (this.#samples <= this.#warmup || Math.abs(target - this.#from) > CLOCK_STEP_MS) {
      // Applied at once, from this sample on: a local clock that went back leaves no anchor in
      // its future to hold the slew still until it catches up.
      this.#from = target;
      this.#since = t1;
    }
    return true;
  }

  /**
   * Forgets every sample (e.g. connected to a different server) and counts {@link roomTime}
   * from `roomEpoch` (epoch ms; default 0).
   */
  reset(roomEpoch = 0): void {
    this.#best.clear();
    this.#samples = this.#from = this.#since = this.#srtt = this.#target = 0;
    this.#epoch = roomEpoch;
  }
}
