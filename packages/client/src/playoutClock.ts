import { approach, checkOption, monotonicNow, WindowMin } from "./timing";

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
 * send interval; after `PLAYOUT_STABLE_MS` without starvation it shrinks slowly, but never
 * below the worst interval-plus-lateness seen in the jitter window (plus a little headroom), so
 * shrinking cannot undercut a jitter the link has recently shown.
 */

/** Options of a `PlayoutClock` (the delay and clock part of `SnapshotBufferOptions`). */
export interface PlayoutClockOptions {
  /** Server send interval (ms); the delay grows by this on each starvation. Default (and for a value not > 0) 50. */
  sendIntervalMs?: number;
  /** Lower edge of the interpolation-delay band (ms). Default 60. */
  minDelayMs?: number;
  /** Upper edge of the interpolation-delay band (ms). Default 200. */
  maxDelayMs?: number;
  /** Delay before any feedback (ms). Default two send intervals, clamped to the band. */
  initialDelayMs?: number;
  /** Local monotonic clock (ms) used to stamp arrivals and render frames. Default `performance.now()`. */
  now?: () => number;
}

/**
 * How far render time may run past a "nothing changed" snapshot before it counts as starving:
 * idle rooms send such a frame every 250 ms by default (`idleFrameMs`), so this covers a few
 * of them and still notices a real outage within a second.
 */
export const QUIET_HOLD_MS = 1000;

/** Time without starvation before the delay starts shrinking (ms). */
export const PLAYOUT_STABLE_MS = 3000;
/** Shrink rate of the delay while stable (ms per ms: 5 ms per second, unnoticeable on screen). */
export const PLAYOUT_SHRINK_MS_PER_MS = 0.005;
/** How far back arrival jitter is remembered when deciding how far to shrink (ms). */
export const PLAYOUT_JITTER_WINDOW_MS = 10_000;
/** Slack kept above the worst observed need when shrinking (ms). */
export const PLAYOUT_HEADROOM_MS = 5;

/** Rate at which a grown delay is taken up: render time runs at half speed until it is. */
const GROW_MS_PER_MS = 0.5;
/** Rate at which the arrival baseline follows a new best arrival (render time runs ±5 %). */
const BASE_SLEW_MS_PER_MS = 0.05;
/** An arrival this much earlier than the baseline means the local clock jumped: restart. */
const TIMELINE_RESET_MS = 1000;
/** Arrival records kept for the jitter window (an upper bound; the window is by time). */
const ARRIVAL_CAPACITY = 1024;

/**
 * See the module comment: arrival timeline, adaptive delay, starvation feedback. The base of
 * {@link SnapshotBuffer}, which feeds it the snapshots' arrivals.
 */
export abstract class PlayoutClock {
  /** The interpolation-delay band (ms). */
  readonly #minDelay: number;
  readonly #maxDelay: number;
  #sendInterval = 50;
  readonly #initialDelayOption: number | undefined;
  readonly #now: () => number;

  // The arrival timeline over the jitter window: the earliest arrival offset (arrival − server
  // time: the baseline), and the worst need, gap since the previous snapshot + offset (stored
  // negated, and without the baseline, which is subtracted when read).
  readonly #earliest = new WindowMin(ARRIVAL_CAPACITY, PLAYOUT_JITTER_WINDOW_MS);
  readonly #worst = new WindowMin(ARRIVAL_CAPACITY, PLAYOUT_JITTER_WINDOW_MS);
  /** Server time of the newest snapshot; -Infinity until the first arrival of a timeline. */
  #latest = -Infinity;
  /** The newest snapshot said nothing changed (an idle room's empty frame). */
  #quiet = false;
  /** The timeline was rebased (a room restart) and no snapshot arrived since. */
  #rebased = false;
  #base = 0;

  #delay = 0;
  #delayTarget = 0;
  #lastUpdate = NaN;
  #lastRender = -Infinity;
  #starved = false;
  #starvations = 0;
  #lastStarveAt = -Infinity;

  constructor(options: PlayoutClockOptions = {}) {
    this.#minDelay = checkOption("minDelayMs", options.minDelayMs) ?? 60;
    this.#maxDelay = Math.max(this.#minDelay, checkOption("maxDelayMs", options.maxDelayMs) ?? 200);
    this.#initialDelayOption = checkOption("initialDelayMs", options.initialDelayMs);
    this.#now = options.now ?? monotonicNow;
    this.setSendInterval(options.sendIntervalMs ?? 50);
  }

  /** Current interpolation delay (ms). */
  get delayMs(): number {
    return this.#delay;
  }

  /** The delay the clock is moving toward (ms). */
  get targetDelayMs(): number {
    return this.#delayTarget;
  }

  /** Starvation episodes so far: render time overtook the newest snapshot. */
  get starvations(): number {
    return this.#starvations;
  }

  /** True while render time is past the newest snapshot. */
  get starved(): boolean {
    return this.#starved;
  }

  /** Server time of the newest snapshot, or -Infinity before the first. */
  get latestTime(): number {
    return this.#latest;
  }

  /** Render time computed by the last `update` (-Infinity before any snapshot). */
  get renderTime(): number {
    return this.#lastRender;
  }

  /** Lowest delay the clock would currently shrink to (ms): recent worst need plus headroom. */
  get floorDelayMs(): number {
    // The worst need is −#worst.min − #earliest.min (see the fields).
    return this.#clamp(PLAYOUT_HEADROOM_MS - this.#worst.min - this.#earliest.min);
  }

  /**
   * Server time that render time reaches by the next `update` (one at a local time not before
   * the newest arrival): the newest snapshot less the band's top and the most the baseline may
   * lie above that snapshot's arrival offset without a restart. A frame that never gets a
   * render update (a hidden tab) still gets this far, so an entity gone before it is never
   * drawn again and can be let go.
   */
  protected get passedTime(): number {
    return Math.max(this.#lastRender, this.#latest - this.#maxDelay - TIMELINE_RESET_MS);
  }

  /** Server send interval (ms): the step by which a starvation grows the delay. */
  get sendIntervalMs(): number {
    return this.#sendInterval;
  }

  /**
   * Sets the server's send interval (from the welcome, or a CADENCE when the room changes its
   * rates; one not > 0 is ignored). Before the first snapshot (and any starvation) this also
   * re-derives the initial delay, which defaults to two intervals. Later, a longer interval
   * raises the delay's target to two of the new intervals (within the band) at once, so frames
   * that now come further apart are waited for instead of starved on; a shorter one lets the
   * delay shrink as it does after any stable period.
   */
  setSendInterval(ms: number): void {
    const longer = ms > this.#sendInterval;
    if (ms > 0) this.#sendInterval = ms;
    if (this.#latest === -Infinity && this.#starvations === 0) this.#delay = this.#delayTarget = this.#clamp(this.#initialDelayOption ?? 2 * this.#sendInterval);
    else if (longer) this.#delayTarget = this.#clamp(Math.max(this.#delayTarget, 2 * ms));
  }

  /**
   * Advances the render clock to local time `localNow` (call once per render frame) and
   * returns the render time in server room ms; -Infinity before the first snapshot. Render
   * time past the newest snapshot is a starvation, which grows the delay. A `localNow` that is
   * not a finite number changes nothing: NaN or Infinity would stick in the never-backwards
   * render time for the rest of the timeline.
   */
  update(localNow: number = this.#now()): number {
    if (!Number.isFinite(localNow)) return this.#lastRender;
    // 0 on the first update (#lastUpdate NaN) and when local time stood still or went back.
    const dt = Math.max(0, localNow - this.#lastUpdate) || 0;
    this.#lastUpdate = localNow;
    if (this.#latest === -Infinity) return this.#lastRender;

    this.#base = approach(this.#base, this.#earliest.min, dt * BASE_SLEW_MS_PER_MS);
    if (!this.#starved && localNow - this.#lastStarveAt >= PLAYOUT_STABLE_MS) this.#delayTarget = Math.min(this.#delayTarget, this.floorDelayMs);
    this.#delay = approach(this.#delay, this.#delayTarget, dt * (this.#delay < this.#delayTarget ? GROW_MS_PER_MS : PLAYOUT_SHRINK_MS_PER_MS));
    // Never backwards: a grown delay or a later baseline slows render time down instead.
    const renderTime = (this.#lastRender = Math.max(this.#lastRender, localNow - this.#base - this.#delay));

    // After a "no change at time t" frame the world is known to hold still until the next
    // frame, which an idle room sends within its idle interval: render time may run up to
    // QUIET_HOLD_MS past it without that being a starvation (or growing the delay).
    const starving = renderTime > this.#latest + (this.#quiet ? QUIET_HOLD_MS : 0);
    if (starving && !this.#starved) {
      this.#starvations++;
      this.#delayTarget = this.#clamp(Math.max(this.#delayTarget, this.#delay) + this.#sendInterval);
    }
    // The stable period counts from the end of the last starvation.
    if (starving || this.#starved) this.#lastStarveAt = localNow;
    this.#starved = starving;
    return renderTime;
  }

  /**
   * Re-expresses the timeline in a clock `deltaMs` later than the one it was kept in (a room
   * that restarted: its new epoch is `deltaMs` after the old one, and every server time is that
   * much smaller in it): the newest snapshot, the render time, the arrival baseline and the
   * jitter window move with it, so render time goes on at the same pace, with no gap and no
   * jump, as if the room had only been silent.
   */
  protected rebaseTimeline(deltaMs: number): void {
    this.#rebased = this.#latest > -Infinity;
    this.#latest -= deltaMs;
    this.#lastRender -= deltaMs;
    // An arrival's offset is arrival − server time: it grows by as much as server times shrink.
    this.#base += deltaMs;
    this.#earliest.shift(-deltaMs, deltaMs);
    // Keys there are −(gap + offset): the offset part grows, so the key shrinks.
    this.#worst.shift(-deltaMs, -deltaMs);
  }

  /** True from a {@link rebaseTimeline} until the next snapshot arrives. */
  protected get rebasePending(): boolean {
    return this.#rebased;
  }

  /** Forgets the timeline (a new room instance); the delay and the starvation count stay. */
  protected resetTimeline(): void {
    this.#latest = -Infinity;
    this.#quiet = false;
    this.#rebased = false;
    this.#lastRender = -Infinity;
    this.#lastUpdate = NaN;
    this.#starved = false;
  }

  /**
   * Records that the snapshot of server time `serverTime` arrived at local `receivedAt`, and
   * whether it `changed` anything. Returns false, recording nothing, for a snapshot not newer
   * than the newest one (a duplicate, or one from before a reconnect), and for times that are
   * not finite numbers (one NaN arrival would be the baseline the render time hangs on).
   */
  protected recordArrival(serverTime: number, receivedAt: number = this.#now(), changed: boolean): boolean {
    if (!(serverTime > this.#latest && Math.abs(receivedAt - serverTime) < Infinity)) return false;
    const offset = receivedAt - serverTime;
    // Arriving far *earlier* than ever can only mean the local clock stood still while the
    // server's ran (a suspended device): the old baseline means nothing now, so the timeline
    // restarts as at the first arrival. Render time keeps its never-backwards floor: server
    // time went on, and the snapshots kept are on the same clock. Arriving late is a network
    // stall and is left to starvation feedback.
    // The first arrival after a rebase anchors the baseline afresh: the new room's clock was
    // placed by its epoch, which only agrees with the old one as far as the servers' clocks do.
    const restart = this.#latest === -Infinity || this.#rebased || offset < this.#base - TIMELINE_RESET_MS;
    this.#rebased = false;
    if (restart) {
      this.#earliest.clear();
      this.#worst.clear();
      this.#base = offset;
      // Jitter not yet seen cannot be ruled out: no shrinking for a stable period from the start.
      this.#lastStarveAt = receivedAt;
    }
    const need = (restart ? this.#sendInterval : serverTime - this.#latest) + offset;
    this.#latest = serverTime;
    this.#quiet = !changed;
    this.#earliest.add(serverTime, offset);
    // A gap far beyond the band is an outage, not jitter: no delay in the band would cover it,
    // and remembering it would pin the delay at the top for the whole window.
    this.#worst.add(serverTime, need - this.#earliest.min > 2 * this.#maxDelay ? Infinity : -need);
    return true;
  }

  /** `delay` clamped to the band. */
  #clamp(delay: number): number {
    return Math.min(this.#maxDelay, Math.max(this.#minDelay, delay));
  }
}
