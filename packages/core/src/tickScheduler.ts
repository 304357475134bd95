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
 */
export class TickScheduler {
  private timer: TimerHandle | null = null;
  private origin = 0;
  private k = 0;
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
    this.tickMs = tickMs;
    if (this.timer === null) return;
    this.origin = this.clock.now() - this.k * tickMs;
    // From inside a tick, the tick's own end arms the next deadline (on the new grid).
    if (this.firing) return;
    this.clock.clearTimer(this.timer);
    this.arm();
  }

  /** True between {@link TickScheduler.start} and {@link TickScheduler.stop}. */
  get running(): boolean {
    return this.timer !== null;
  }

  /** Index of the last tick run since start. */
  get tickIndex(): number {
    return this.k;
  }

  /** Starts ticking from now (tick 0 at the first deadline); a no-op while running. */
  start(): void {
    if (this.timer !== null) return;
    this.origin = this.clock.now();
    this.k = 0;
    this.arm();
  }

  /** Stops ticking; a no-op when stopped. */
  stop(): void {
    if (this.timer === null) return;
    this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private arm(): void {
    const deadline = this.origin + (this.k + 1) * this.tickMs;
    this.timer = this.clock.setTimer(this.fire, deadline - this.clock.now());
  }

  private readonly fire = (): void => {
    if (this.timer === null) return;
    const now = this.clock.now();
    this.k++;
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
    if (this.timer !== null) this.arm();
  };
}
