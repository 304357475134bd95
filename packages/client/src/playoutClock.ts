/**
 * The render clock of snapshot interpolation: when, in server time, the page should be drawing
 * now, and how far behind the newest snapshot that is (the interpolation delay).
 *
 * Render time follows the arrival timeline, not the synced server clock: it is
 * `localNow − baseline − delay`, where the baseline is the earliest arrival offset
 * (arrival − server time) seen in the jitter window. That removes clock offset and one-way
 * latency exactly, so the delay only has to cover send interval plus jitter, which is what the
 * 60–200 ms band is sized for.
 *
 * The delay adapts: each starvation (render time overtaking the newest snapshot) grows it by one
 * send interval; after `stableMs` without starvation it shrinks slowly, but never below the worst
 * interval-plus-lateness seen in the jitter window, so shrinking cannot undercut a jitter the
 * link has recently shown.
 */

/** Tunables of a `PlayoutClock` (the delay part of `SnapshotBufferOptions`). */
export interface PlayoutClockOptions {
  /** Server send interval (ms); the delay grows by this on each starvation. Default 50. */
  sendIntervalMs?: number;
  /** Lower edge of the interpolation-delay band (ms). Default 60. */
  minDelayMs?: number;
  /** Upper edge of the interpolation-delay band (ms). Default 200. */
  maxDelayMs?: number;
  /** Delay before any feedback (ms). Default two send intervals, clamped to the band. */
  initialDelayMs?: number;
  /** Time without starvation before the delay starts shrinking (ms). Default 3000. */
  stableMs?: number;
  /** Shrink rate of the delay while stable (ms per second). Default 5. */
  shrinkMsPerSec?: number;
  /** How far back arrival jitter is remembered when deciding how far to shrink (ms). Default 10 000. */
  jitterWindowMs?: number;
  /** Slack kept above the worst observed need when shrinking (ms). Default 5. */
  headroomMs?: number;
}

/** Rate at which a grown delay is taken up: render time runs at half speed until it is. */
const GROW_MS_PER_MS = 0.5;
/** Rate at which the arrival baseline follows a new best arrival (render time runs ±5 %). */
const BASE_SLEW_MS_PER_MS = 0.05;
/** An arrival this much earlier than the baseline means the local clock jumped: restart. */
const TIMELINE_RESET_MS = 1000;
/** Arrival records kept for the jitter window (an upper bound; the window is by time). */
const ARRIVAL_CAPACITY = 1024;

/** See the module comment: arrival timeline, adaptive delay, starvation feedback. */
export class PlayoutClock {
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  readonly stableMs: number;
  readonly shrinkMsPerSec: number;
  readonly jitterWindowMs: number;
  readonly headroomMs: number;
  #sendInterval: number;
  readonly #explicitInitialDelay: number | undefined;

  // Arrival timeline: one record per accepted snapshot, newest at arrHead − 1.
  readonly #arrTime = new Float64Array(ARRIVAL_CAPACITY);
  readonly #arrOffset = new Float64Array(ARRIVAL_CAPACITY);
  readonly #arrNeedBase = new Float64Array(ARRIVAL_CAPACITY);
  #arrHead = 0;
  #arrCount = 0;
  #baseTarget = 0;
  #base = 0;
  #maxNeed = 0;

  #delay: number;
  #delayTarget: number;
  #lastUpdate = NaN;
  #lastRender = -Infinity;
  #starvedNow = false;
  #starvationCount = 0;
  #lastStarveAt = -Infinity;

  constructor(options: PlayoutClockOptions = {}) {
    this.minDelayMs = options.minDelayMs ?? 60;
    this.maxDelayMs = Math.max(this.minDelayMs, options.maxDelayMs ?? 200);
    this.stableMs = options.stableMs ?? 3000;
    this.shrinkMsPerSec = options.shrinkMsPerSec ?? 5;
    this.jitterWindowMs = options.jitterWindowMs ?? 10_000;
    this.headroomMs = options.headroomMs ?? 5;
    this.#sendInterval = options.sendIntervalMs ?? 50;
    this.#explicitInitialDelay = options.initialDelayMs;
    this.#delay = this.#delayTarget = this.#initialDelay();
  }

  /** Current interpolation delay (ms). */
  get delayMs(): number {
    return this.#delay;
  }

  /** The delay the clock is moving toward (ms). */
  get targetDelayMs(): number {
    return this.#delayTarget;
  }

  /** Starvation episodes so far. */
  get starvations(): number {
    return this.#starvationCount;
  }

  /** True while render time is past the newest snapshot. */
  get starved(): boolean {
    return this.#starvedNow;
  }

  /** Render time computed by the last {@link update} (-Infinity before any snapshot). */
  get renderTime(): number {
    return this.#lastRender;
  }

  /** Lowest delay the clock would currently shrink to (ms): recent worst need plus headroom. */
  get floorDelayMs(): number {
    return Math.min(this.maxDelayMs, Math.max(this.minDelayMs, this.#maxNeed + this.headroomMs));
  }

  /** Server send interval (ms). */
  get sendIntervalMs(): number {
    return this.#sendInterval;
  }

  /** Sets the send interval; before any arrival or starvation it also re-derives the initial delay. */
  setSendInterval(ms: number): void {
    if (!(ms > 0)) return;
    this.#sendInterval = ms;
    if (this.#arrCount === 0 && this.#starvationCount === 0) this.#delay = this.#delayTarget = this.#initialDelay();
  }

  /** Forgets the timeline (a new room instance); the delay and the starvation count stay. */
  reset(): void {
    this.#arrHead = 0;
    this.#arrCount = 0;
    this.#lastRender = -Infinity;
    this.#lastUpdate = NaN;
    this.#starvedNow = false;
  }

  /** Records that the snapshot of server time `serverTime` arrived at local `receivedAt`. */
  recordArrival(serverTime: number, receivedAt: number): void {
    const offset = receivedAt - serverTime;
    if (this.#arrCount > 0 && offset < this.#base - TIMELINE_RESET_MS) {
      // Arriving far *earlier* than ever can only mean the local clock stood still while the
      // server's ran (a suspended device): the old baseline means nothing now. Arriving late is
      // a network stall and is left to starvation feedback.
      this.#arrCount = 0;
      this.#lastRender = -Infinity;
    }
    const prevTime = this.#arrCount > 0 ? this.#arrTime[(this.#arrHead - 1 + ARRIVAL_CAPACITY) % ARRIVAL_CAPACITY] : NaN;
    const gap = Number.isNaN(prevTime) ? this.#sendInterval : serverTime - prevTime;
    const i = this.#arrHead;
    this.#arrTime[i] = serverTime;
    this.#arrOffset[i] = offset;
    // need = gap + (offset − baseline); stored without the baseline, which is subtracted later.
    this.#arrNeedBase[i] = gap + offset;
    this.#arrHead = (i + 1) % ARRIVAL_CAPACITY;
    if (this.#arrCount < ARRIVAL_CAPACITY) this.#arrCount++;
    const first = this.#arrCount === 1;

    // Recompute baseline and worst need over the window: once per snapshot, O(window).
    let minOffset = Infinity;
    let maxNeedBase = -Infinity;
    let kept = 0;
    for (let k = 0; k < this.#arrCount; k++) {
      const j = (this.#arrHead - 1 - k + ARRIVAL_CAPACITY) % ARRIVAL_CAPACITY;
      if (serverTime - this.#arrTime[j] > this.jitterWindowMs) break;
      kept++;
      if (this.#arrOffset[j] < minOffset) minOffset = this.#arrOffset[j];
      if (this.#arrNeedBase[j] > maxNeedBase) maxNeedBase = this.#arrNeedBase[j];
    }
    this.#arrCount = kept;
    this.#baseTarget = minOffset;
    if (first) {
      this.#base = minOffset;
      // Jitter not yet seen cannot be ruled out: no shrinking for a stable period from the start.
      this.#lastStarveAt = receivedAt;
    }
    let need = maxNeedBase - minOffset;
    // A gap far beyond the band is an outage, not jitter: no delay in the band would cover it,
    // and remembering it would pin the delay at the top for the whole window.
    if (need > 2 * this.maxDelayMs) need = this.#needWithoutOutages(minOffset);
    this.#maxNeed = need;
  }

  /**
   * Advances to local time `localNow` and returns the render time (server room ms); -Infinity
   * before the first arrival. `latest` is the server time of the newest snapshot: render time
   * past it is a starvation, which grows the delay.
   */
  update(localNow: number, latest: number): number {
    if (this.#arrCount === 0) {
      this.#lastUpdate = localNow;
      return this.#lastRender;
    }
    const dt = Number.isNaN(this.#lastUpdate) ? 0 : Math.max(0, localNow - this.#lastUpdate);
    this.#lastUpdate = localNow;

    const baseStep = dt * BASE_SLEW_MS_PER_MS;
    const db = this.#baseTarget - this.#base;
    this.#base += db > baseStep ? baseStep : db < -baseStep ? -baseStep : db;

    if (!this.#starvedNow && localNow - this.#lastStarveAt >= this.stableMs) {
      const floor = this.floorDelayMs;
      if (this.#delayTarget > floor) this.#delayTarget = floor;
    }
    if (this.#delay < this.#delayTarget) {
      this.#delay = Math.min(this.#delayTarget, this.#delay + dt * GROW_MS_PER_MS);
    } else if (this.#delay > this.#delayTarget) {
      this.#delay = Math.max(this.#delayTarget, this.#delay - (dt * this.shrinkMsPerSec) / 1000);
    }

    let rt = localNow - this.#base - this.#delay;
    if (rt < this.#lastRender) rt = this.#lastRender;
    this.#lastRender = rt;

    if (rt > latest) {
      if (!this.#starvedNow) {
        this.#starvedNow = true;
        this.#starvationCount++;
        this.#delayTarget = Math.min(this.maxDelayMs, Math.max(this.#delayTarget, this.#delay) + this.#sendInterval);
      }
      this.#lastStarveAt = localNow;
    } else if (this.#starvedNow) {
      this.#starvedNow = false;
      this.#lastStarveAt = localNow;
    }
    return rt;
  }

  #initialDelay(): number {
    const d = this.#explicitInitialDelay ?? 2 * this.#sendInterval;
    return Math.min(this.maxDelayMs, Math.max(this.minDelayMs, d));
  }

  #needWithoutOutages(minOffset: number): number {
    let worst = 0;
    for (let k = 0; k < this.#arrCount; k++) {
      const j = (this.#arrHead - 1 - k + ARRIVAL_CAPACITY) % ARRIVAL_CAPACITY;
      const n = this.#arrNeedBase[j] - minOffset;
      if (n <= 2 * this.maxDelayMs && n > worst) worst = n;
    }
    return worst;
  }
}
