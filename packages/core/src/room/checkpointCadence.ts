/**
 * When a ticking room's periodic checkpoint is due (`checkpointMs`), looked at as each flush
 * ends. By whole flushes and by the room's clock both: a count of ticks alone stretches with a
 * starved loop (one runtime thread shared by many rooms fires their tick timers late, each tick
 * still one tick, so "20 ticks" can be half a minute), while the clock says when a second has
 * passed whatever the loop managed. The first flush takes one (a room's world is kept from its
 * first flush, not a second later), and a change the game marks as one a player would lose in a
 * restart (`GameContext.keepSoon`: a score, an item) brings the next one forward to
 * `keepSoonMs` ({@link KEEP_SOON_MS} by default) after the last.
 */
import { defaultRoomOptions } from "../roomOptions";

/**
 * How soon after the last periodic checkpoint the next one comes, by default, once the game has
 * marked a change a player would lose (`GameContext.keepSoon`), ms of room time: the room option
 * `keepSoonMs`'s default (roomOptions.ts says why 200).
 */
export const KEEP_SOON_MS = defaultRoomOptions.keepSoonMs;

/** The periodic-checkpoint clock of one room (see the module comment). */
export class CheckpointCadence {
  /** Room time of the last periodic checkpoint (none yet: the next flush's is due). */
  #lastAt = -Infinity;
  /** Flushes ended since it. */
  #flushes = 0;
  /** The game marked a change a player would lose since it. */
  #soon = false;

  /** The game marked a change a player would lose: the next checkpoint is due `keepSoonMs` after the last. */
  keepSoon(): void {
    this.#soon = true;
  }

  /** A change a player would lose waits for its checkpoint ({@link keepSoon} since the last one). */
  get soonPending(): boolean {
    return this.#soon;
  }

  /**
   * The room slept through `n` flushes (`flushMs` apart, the last at `lastAt`) that would have
   * changed nothing: they count as ended, and a checkpoint due among them as taken (a sleeping
   * room skips only those that would save the world it saved already), so the next ones come
   * due on the flushes an awake room's would.
   */
  skipped(n: number, everyMs: number, flushMs: number, lastAt: number): void {
    this.#flushes += n;
    if (everyMs <= 0) return;
    const period = Math.ceil(everyMs / flushMs - 1e-9);
    if (this.#flushes < period) return;
    this.#flushes %= period;
    this.#lastAt = lastAt - this.#flushes * flushMs;
  }

  /**
   * How many flushes from now the next periodic checkpoint comes due by the count of flushes
   * (1: the next one), flushes `flushMs` apart, every `everyMs` (Infinity: none). A sleeping
   * room wakes for that flush, where {@link flushEnded} decides as it does every flush.
   */
  flushesUntilDue(everyMs: number, flushMs: number): number {
    if (everyMs <= 0) return Infinity;
    return Math.max(1, Math.ceil(everyMs / flushMs - 1e-9) - this.#flushes);
  }

  /** Whether a flush ending at `now` is due on the clock alone (`everyMs` since the last checkpoint; see {@link flushEnded}). */
  dueOnClock(now: number, everyMs: number): boolean {
    return everyMs > 0 && now - this.#lastAt >= everyMs;
  }

  /** Clock time the last periodic checkpoint was taken at (-Infinity: none yet). */
  get lastAt(): number {
    return this.#lastAt;
  }

  /**
   * A flush ended at room time `now`, flushes `flushMs` apart, checkpoints every `everyMs` (0:
   * none): whether a periodic checkpoint is due now (it is then counted as taken). Due once
   * `everyMs` has passed, in whole flushes or on the clock, whichever comes first; or, after
   * {@link keepSoon}, once `keepSoonMs` has (never later than `everyMs`; 0: never sooner).
   */
  flushEnded(now: number, everyMs: number, flushMs: number, keepSoonMs = KEEP_SOON_MS): boolean {
    if (everyMs <= 0) return false;
    this.#flushes++;
    const since = now - this.#lastAt;
    const soonMs = Math.min(everyMs, keepSoonMs);
    const due =
      this.#flushes * flushMs >= everyMs ||
      since >= everyMs ||
      (this.#soon && soonMs > 0 && (this.#flushes * flushMs >= soonMs || since >= soonMs));
    if (!due) return false;
    this.#lastAt = now;
    this.#flushes = 0;
    this.#soon = false;
    return true;
  }
}
