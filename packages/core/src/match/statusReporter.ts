import type { Clock, TimerHandle } from "../clock";
import type { RoomStatus } from "./roomStatus";

/** What a {@link StatusReporter} needs from its host. */
export interface StatusReporterDeps {
  /** The room's status now (`Room.status()`). */
  current(): RoomStatus;
  /** Sends one report to the room's matchmaker; the promise settles when it arrived (or failed). */
  send(status: RoomStatus): Promise<void>;
  /** Timers for the refresh. */
  clock: Clock;
  /** Called with a failed report's error (the next change or refresh sends again). */
  onError?(e: unknown): void;
}

/**
 * Reports a room's status to its matchmaker, off the tick path and never more than one report in
 * flight: a change while one travels is folded into the next, which carries the status as it is
 * when it leaves (so a burst of joins costs a couple of reports, and the matchmaker never lags
 * more than one round trip). A room that refreshes (`status.refreshMs` > 0, ticking rooms)
 * re-reports that often while anyone is seated, so a matchmaker that lost its memory relearns it.
 */
export class StatusReporter {
  private inFlight = false;
  private dirty = false;
  private refreshTimer: TimerHandle | null = null;
  private stopped = false;

  constructor(private readonly d: StatusReporterDeps) {}

  /** The status changed: report it now, or right after the report in flight. */
  changed(): void {
    if (this.stopped) return;
    if (this.inFlight) {
      this.dirty = true;
      return;
    }
    this.sendNow();
  }

  /** Stops reporting (the room is going away). */
  stop(): void {
    this.stopped = true;
    if (this.refreshTimer !== null) this.d.clock.clearTimer(this.refreshTimer);
    this.refreshTimer = null;
  }

  private sendNow(): void {
    const status = this.d.current();
    this.inFlight = true;
    this.dirty = false;
    this.armRefresh(status);
    this.d.send(status).then(
      () => this.settled(),
      (e: unknown) => {
        this.d.onError?.(e);
        this.settled();
      },
    );
  }

  private settled(): void {
    this.inFlight = false;
    if (this.dirty && !this.stopped) this.sendNow();
  }

  private armRefresh(status: RoomStatus): void {
    if (this.refreshTimer !== null) this.d.clock.clearTimer(this.refreshTimer);
    this.refreshTimer = null;
    if (status.refreshMs <= 0 || status.clients === 0) return;
    this.refreshTimer = this.d.clock.setTimer(() => {
      this.refreshTimer = null;
      this.changed();
    }, status.refreshMs);
  }
}
