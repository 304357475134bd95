import type { Clock, TimerHandle } from "../clock";
import type { Seat } from "./clientLink";

/**
 * Frees held seats whose reconnection window has run out. One timer for the whole room, armed
 * for the earliest deadline; a sweep frees every expired seat and re-arms for the next one.
 * This timer is all that stays scheduled in a room whose last socket dropped.
 */
export class SeatExpiry {
  private timer: TimerHandle | null = null;
  private at = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly seats: () => readonly Seat[],
    private readonly free: (seat: Seat) => void,
  ) {}

  /** Makes sure a sweep runs at `at` (room time) or earlier. */
  arm(at: number): void {
    if (at >= this.at && this.timer !== null) return;
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.at = at;
    this.timer = this.clock.setTimer(() => this.sweep(), at - this.clock.now());
  }

  /** Cancels the timer (room shutdown). */
  stop(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private sweep(): void {
    this.timer = null;
    this.at = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    // A copy: freeing a seat replaces the registry's list.
    for (const seat of [...this.seats()]) {
      if (seat.link) continue;
      if (seat.heldUntil <= now) this.free(seat);
      else if (seat.heldUntil < next) next = seat.heldUntil;
    }
    if (next !== Infinity) this.arm(next);
  }
}
