/**
 * A flush in slices (`SlicedFlush`): the flusher's `beginFlush` once, then the seats in slices of
 * at most `flushSliceClients` connected clients, each slice a task of its own, so the socket
 * events and timers that arrive meanwhile run between them instead of waiting behind one long
 * task. The first slice runs in the caller's task (the tick's); a flush no bigger than one slice
 * is one task, as it was before slices.
 *
 * Why a client count and not a time budget: inside deployed Workers `performance.now()` and
 * `Date.now()` advance only across I/O, so a slice could not see its own length there. Clients
 * cost about the same each (one AOI query and one delta), so a count bounds a slice's work.
 */
import { runNextTask, type Clock } from "../clock";
import { perfNow } from "../durationStats";
import type { RoomStats } from "../roomStats";
import type { Seat } from "./clientLink";
import type { Flusher } from "./flushers";

const NO_SEATS: readonly Seat[] = [];

/** What a sliced flush needs from its room. */
export interface SlicedFlushDeps {
  readonly flusher: Flusher;
  readonly stats: RoomStats;
  /** Where the second and later slices are scheduled (`Clock.nextTask`, the host's). */
  readonly clock: Clock;
  /** Connected clients per slice (`flushSliceClients`); 0: the whole flush in one task. */
  sliceClients(): number;
  /** The flush began: the encoder quantized the world (a room's spectators take the world's feed update here: core/src/spectate). */
  begun?(tick: number, now: number): void;
  /** A later slice begins in its own task (the match recorder notes it). */
  sliceBegins?(): void;
  /** The first slice left seats for later tasks (the match recorder notes it, at the flush's instant `now`). */
  deferred?(now: number): void;
  /** The flush's last seat is done (the room's checkpoint may follow it); `now`: the instant it began at, which every frame says. */
  finished(now: number): void;
}

/**
 * One room's flush in progress, if any. Exactly once per seat per flush: the seats are the
 * ones filed when it began (the registry replaces its list when a seat goes and appends to it
 * when one comes, so the first `end` entries stay put), walked in order by one cursor. A seat
 * that loses its socket between two slices is skipped (no link); one that joins meanwhile waits
 * for the next flush (past `end`); one that reconnects before its turn gets this flush's frame
 * on its new socket, from its fresh baseline. The game does not tick while a flush is in
 * progress: the next tick, or a dispose, finishes it first ({@link SlicedFlush.finish}).
 */
export class SlicedFlush {
  private seats: readonly Seat[] = NO_SEATS;
  private end = 0;
  private next = 0;
  private active = false;
  /** A slice task is scheduled and has not run yet (one at a time; a stale one runs the next flush's slice). */
  private taskQueued = false;
  /** The instant the flush began at (every seat's frame says it). */
  private now = 0;
  private startedAt = 0;
  private longestSlice = 0;
  /** The one task function, made once: scheduling a slice allocates nothing of the room's. */
  private readonly sliceTask = (): void => {
    this.taskQueued = false;
    if (!this.active) return;
    this.d.sliceBegins?.();
    this.slice(this.d.sliceClients());
  };

  constructor(private readonly d: SlicedFlushDeps) {}

  /** Begins a flush over `seats` (the registry's list) and runs its first slice now. */
  run(seats: readonly Seat[], tick: number, now: number): void {
    if (this.active) this.finish();
    const { stats } = this.d;
    this.startedAt = perfNow();
    this.longestSlice = 0;
    stats.flushes++;
    this.d.flusher.beginFlush(tick, now);
    this.d.begun?.(tick, now);
    this.seats = seats;
    this.now = now;
    this.end = seats.length;
    this.next = 0;
    this.active = true;
    this.slice(this.d.sliceClients());
    if (this.active) this.d.deferred?.(now);
  }

  /**
   * Sends the rest of the flush in progress now, in the caller's task: before the game ticks
   * again (its next flush must not begin over this one) or the room closes. Counted in
   * `flushesFinishedAtOnce`: a busy runtime that did not get to the slices within a tick.
   */
  finish(): void {
    if (!this.active) return;
    this.d.stats.flushesFinishedAtOnce++;
    this.slice(0);
  }

  /** Up to `maxClients` connected clients (0: all that are left), then the next task or the end. */
  private slice(maxClients: number): void {
    const t0 = perfNow();
    const { flusher, stats } = this.d;
    const seats = this.seats;
    // Read once per slice: one boxed number for every seat of it (see Flusher.flushSeat).
    const now = this.now;
    const limit = maxClients > 0 ? maxClients : Infinity;
    let clients = 0;
    let i = this.next;
    while (i < this.end && clients < limit) {
      if (flusher.flushSeat(seats[i]!, i, now)) clients++;
      i++;
    }
    this.next = i;
    stats.flushSlices++;
    const t1 = perfNow();
    if (t1 - t0 > this.longestSlice) this.longestSlice = t1 - t0;
    if (i < this.end) {
      if (!this.taskQueued) {
        this.taskQueued = true;
        runNextTask(this.d.clock, this.sliceTask);
      }
      return;
    }
    this.active = false;
    this.seats = NO_SEATS;
    stats.flush.record(t1 - this.startedAt);
    stats.flushSlice.record(this.longestSlice);
    flusher.endFlush?.();
    this.d.finished(now);
  }
}
