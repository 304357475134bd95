import type { RoomReport } from "@tikron/protocol";

/** Least ms between two reports of one room (changes in between are folded into one). */
export const LOBBY_REPORT_MIN_MS = 3000;
/** A room with players re-reports this often so its entry does not expire. */
export const LOBBY_REFRESH_MS = 60_000;

/** What the reporter needs from its host: the current report, a sender and timers. */
export interface LobbyReporterDeps {
  /** The room's state now. */
  current(): RoomReport;
  /** Sends one report; the host hands the promise to `waitUntil` and never awaits it. */
  send(report: RoomReport): void;
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  /** Whether to keep refreshing while players stay (ticking rooms are awake anyway). */
  refresh: boolean;
}

/**
 * Debounces a room's reports to the lobby registry: a change is sent at once if the last report
 * is at least {@link LOBBY_REPORT_MIN_MS} old, else once that much time has passed (carrying
 * whatever the room looks like then); an emptied room is reported at once so it leaves the
 * list. Nothing here runs on the tick path: hosts call {@link changed} from seat changes.
 */
export class LobbyReporter {
  private lastSentAt = -Infinity;
  private timer: unknown = null;
  private refreshTimer: unknown = null;

  constructor(private readonly d: LobbyReporterDeps) {}

  /** The room's player or bot count changed. */
  changed(): void {
    const r = this.d.current();
    if (r.players + r.bots === 0) return this.sendNow(r);
    if (this.timer !== null) return;
    const wait = this.lastSentAt + LOBBY_REPORT_MIN_MS - this.d.now();
    if (wait <= 0) return this.sendNow(r);
    this.timer = this.d.setTimer(() => {
      this.timer = null;
      this.sendNow(this.d.current());
    }, wait);
  }

  /** Stops every timer (the room is going away). */
  stop(): void {
    if (this.timer !== null) this.d.clearTimer(this.timer);
    if (this.refreshTimer !== null) this.d.clearTimer(this.refreshTimer);
    this.timer = this.refreshTimer = null;
  }

  private sendNow(r: RoomReport): void {
    if (this.timer !== null) this.d.clearTimer(this.timer);
    this.timer = null;
    this.lastSentAt = this.d.now();
    this.d.send(r);
    if (this.refreshTimer !== null) this.d.clearTimer(this.refreshTimer);
    this.refreshTimer = null;
    if (this.d.refresh && r.players + r.bots > 0) {
      this.refreshTimer = this.d.setTimer(() => {
        this.refreshTimer = null;
        this.sendNow(this.d.current());
      }, LOBBY_REFRESH_MS);
    }
  }
}
