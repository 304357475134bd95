import type { Clock, TimerHandle } from "./clock";

/**
 * Ticks a loop may fall behind its grid before it re-anchors to now (the default of
 * {@link TickScheduler}'s `maxLagTicks`): past it, the ticks in between are skipped.
 */
export const MAX_LAG_TICKS = 5;

/**
 * Runs a callback on an absolute-time grid: tick k is due at `start + k * tickMs`. Each timer is
 * set for the next grid deadline measured from the current time, so a late timer does not push
 * every later tick back (no `setInterval` drift).
 *
 * A loop may sleep ({@link sleepUntil}): the ticks its owner knows would change nothing are not
 * run, but their indexes pass with time, so the tick run next (a later one on the same grid, or
 * the one due after a {@link wake}) has the index an awake loop would have given it.
 */
export class TickScheduler {
  private timer: TimerHandle | null = null;
  private active = false;
  private origin = 0;
  private k = 0;
  /** The index the next timer runs: `k + 1` awake, later (or Infinity: none) asleep. */
  private next = 1;
  /** True while `onTick` runs: a tick length changed from inside it is armed after it returns. */
  private firing = false;
  /** Ticks skipped because the loop fell more than `maxLagTicks` behind (re-anchored). */
  skipped = 0;
  /**
   * How late the last tick's timer fired after its grid deadline, ms. A busy event loop (socket
   * messages ahead of the timer, a GC pause) shows here before it shows in frame gaps.
   */
  lastLateMs = 0;

  constructor(
    private readonly clock: Clock,
    private tickMs: number,
    private readonly onTick: (tickIndex: number, now: number) => void,
    private readonly maxLagTicks = MAX_LAG_TICKS,
  ) {}

  /**
   * Moves the loop onto a grid of `tickMs` ticks from now: the next tick is due one new tick
   * length after the current instant, and tick indexes go on counting (they never repeat).
   * Stopped, it only sets the length the next {@link start} uses.
   */
  setTickMs(tickMs: number): void {
    if (!this.active) {
      this.tickMs = tickMs;
      return;
    }
    // Asleep, the ticks passed so far count on the old grid before it moves.
    this.wake();
    this.tickMs = tickMs;
    this.origin = this.clock.now() - this.k * tickMs;
    // From inside a tick, the tick's own end arms the next deadline (on the new grid).
    if (this.firing) return;
    this.rearm();
  }

  /** True between {@link TickScheduler.start} and {@link TickScheduler.stop} (asleep too). */
  get running(): boolean {
    return this.active;
  }

  /** True while the loop sleeps (see {@link sleepUntil}). */
  get asleep(): boolean {
    return this.next > this.k + 1;
  }

  /** Clock time tick `k` is due at on the current grid. */
  dueAt(k: number): number {
    return this.origin + k * this.tickMs;
  }

  /**
   * The ticks before `k` would change nothing: none of them runs, the next callback is tick `k`
   * at its deadline (`Infinity`: none until {@link wake}). From inside a tick, the tick's end arms
   * it. A no-op when stopped or for a `k` not past the current tick + 1.
   */
  sleepUntil(k: number): void {
    if (!this.active || !(k > this.k + 1)) return;
    this.next = k;
    if (!this.firing) this.rearm();
  }

  /**
   * Ends a sleep now: the ticks whose deadlines passed count as run (the index moves to the last
   * of them, never to the tick slept until) and the next one is due on the grid. False when the
   * loop was not asleep.
   */
  wake(): boolean {
    if (!this.active || !this.asleep) return false;
    const passed = Math.floor((this.clock.now() - this.origin) / this.tickMs);
    this.k = Math.min(Math.max(this.k, passed), this.next - 1);
    this.next = this.k + 1;
    if (!this.firing) this.rearm();
    return true;
  }

  /** Index of the last tick run since start. */
  get tickIndex(): number {
    return this.k;
  }

  /** Starts ticking from now (tick 0 at the first deadline); a no-op while running. */
  start(): void {
    if (this.active) return;
    this.active = true;
    this.origin = this.clock.now();
    this.k = 0;
    this.next = 1;
    this.arm();
  }

  /** Stops ticking; a no-op when stopped. */
  stop(): void {
    if (!this.active) return;
    this.active = false;
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private rearm(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.arm();
  }

  private arm(): void {
    if (this.next === Infinity) {
      this.timer = null;
      return;
    }
    const deadline = this.origin + this.next * this.tickMs;
    this.timer = this.clock.setTimer(this.fire, deadline - this.clock.now());
  }

  private readonly fire = (): void => {
    if (!this.active) return;
    this.timer = null;
    const now = this.clock.now();
    this.k = this.next;
    this.next = this.k + 1;
    this.lastLateMs = Math.max(0, now - (this.origin + this.k * this.tickMs));
    // A stalled event loop must not trigger a burst of catch-up ticks: after a long stall,
    // re-anchor the grid to now and count what was skipped.
    const behind = Math.floor((now - (this.origin + this.k * this.tickMs)) / this.tickMs);
    if (behind > this.maxLagTicks) {
      this.skipped += behind;
      this.origin = now - this.k * this.tickMs;
    }
    this.firing = true;
    try {
      this.onTick(this.k, now);
    } finally {
      this.firing = false;
    }
    if (this.active) this.arm();
  };
}
