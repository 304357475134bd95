import type { Clock, TimerHandle } from "../clock";
import type { RoomStatus } from "./roomStatus";

/** What a {@link StatusReporter} needs from its host. */
export interface StatusReporterDeps {
  /** The room's status now (`Room.status()`). */
  current(): RoomStatus;
  /** Sends one report to the room's matchmaker; the promise settles when it arrived (or failed). */
  send(status: RoomStatus): Promise<void>;
  /** Timers for the refresh and the coalescing. */
  clock: Clock;
  /** Called with a failed report's error (the next change or refresh sends again). */
  onError?(e: unknown): void;
  /**
   * How long a change waits for the changes after it before its report leaves (0: at once).
   * A matchmaker counts its own seat requests and learns each answer's status with it, so a
   * report a moment later steers no request wrong; meanwhile a burst of joins becomes one report.
   */
  coalesceMs?: number;
}

/** Two status versions (`[instance start, change count]`) are one. */
function sameVersion(a: RoomStatus["version"] | null, b: RoomStatus["version"]): boolean {
  return a !== null && a[0] === b[0] && a[1] === b[1];
}

/**
 * Reports a room's status to its matchmaker, off the tick path: never more than one report in
 * flight, a change waiting `coalesceMs` for the changes after it (a change while a report
 * travels is folded into the next, which carries the status as it is when it leaves), and no
 * report of a status the matchmaker already holds ({@link told}: the room's answer to a seat
 * request carries its status). So a burst of joins costs a report or two, and the matchmaker
 * never lags more than the coalescing and one round trip. A room that refreshes
 * (`status.refreshMs` > 0, ticking rooms) re-reports that often while anyone is seated, whatever
 * the matchmaker was told, so a matchmaker that lost its memory relearns it.
 */
export class StatusReporter {
  private inFlight = false;
  private dirty = false;
  private waitTimer: TimerHandle | null = null;
  private refreshTimer: TimerHandle | null = null;
  private stopped = false;
  /** The version the matchmaker holds (its last report, or the status a seat answer carried). */
  private known: RoomStatus["version"] | null = null;
  /** Reports sent (an RPC each, on the Cloudflare host). */
  sent = 0;

  constructor(private readonly d: StatusReporterDeps) {}

  /** The status changed: report it after the coalescing, or right after the report in flight. */
  changed(): void {
    if (this.stopped) return;
    if (this.inFlight || this.waitTimer !== null) {
      this.dirty ||= this.inFlight;
      return;
    }
    const wait = this.d.coalesceMs ?? 0;
    if (wait <= 0) return this.sendNow(false);
    this.waitTimer = this.d.clock.setTimer(() => {
      this.waitTimer = null;
      this.sendNow(false);
    }, wait);
  }

  /** The matchmaker learned status version `version` another way (a seat request's answer): no report of it is due. */
  told(version: RoomStatus["version"]): void {
    this.known = version;
  }

  /** Stops reporting (the room is going away). */
  stop(): void {
    this.stopped = true;
    for (const t of [this.refreshTimer, this.waitTimer]) if (t !== null) this.d.clock.clearTimer(t);
    this.refreshTimer = this.waitTimer = null;
  }

  private sendNow(refresh: boolean): void {
    const status = this.d.current();
    this.dirty = false;
    this.armRefresh(status);
    if (!refresh && sameVersion(this.known, status.version)) return;
    this.inFlight = true;
    this.known = status.version;
    this.sent++;
    this.d.send(status).then(
      () => this.settled(),
      (e: unknown) => {
        this.known = null;
        this.d.onError?.(e);
        this.settled();
      },
    );
  }

  private settled(): void {
    this.inFlight = false;
    if (this.dirty && !this.stopped) this.changed();
  }

  private armRefresh(status: RoomStatus): void {
    if (this.refreshTimer !== null) this.d.clock.clearTimer(this.refreshTimer);
    this.refreshTimer = null;
    if (status.refreshMs <= 0 || status.clients === 0) return;
    this.refreshTimer = this.d.clock.setTimer(() => {
      this.refreshTimer = null;
      if (this.stopped) return;
      if (this.inFlight) this.dirty = true;
      else this.sendNow(true);
    }, status.refreshMs);
  }
}
