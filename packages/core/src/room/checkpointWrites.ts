/**
 * When a host that keeps its room's checkpoint writes it (`RoomHooks.onCheckpointDue`): one
 * pending write at a time, taken on a later turn, never inside a tick, and at most one per
 * {@link CHECKPOINT_SPACING_MS}. A rule of the core, on its `Clock`, so a host keeps only the
 * write itself (core storage/roomKeeping.ts, a room's Durable Object's keeping).
 */
import type { Clock, TimerHandle } from "../clock";

/**
 * Least time between two checkpoint writes: a burst of changes (a turn-based game's moves, a
 * client looping hello and leave) is written as one, at most this late; a change after a quiet
 * spell is written at once.
 */
export const CHECKPOINT_SPACING_MS = 100;

/** Batches a room's checkpoint writes (see the module comment). */
export class CheckpointWrites {
  private timer: TimerHandle | null = null;
  /** The pending write was asked for by a change (not only the periodic checkpoint). */
  private confirmed = false;
  private lastAt = -Infinity;

  /**
   * @param clock the host's clock (its metered one: the write's turn is an entry of the host).
   * @param write takes and writes the checkpoint; `confirmed` as {@link due} says.
   */
  constructor(
    private readonly clock: Clock,
    private readonly write: (confirmed: boolean) => void,
  ) {}

  /**
   * A checkpoint is due (`RoomHooks.onCheckpointDue(soon)`). A change (`soon`: a turn-based
   * move, the game's store, the room going quiet) is written confirmed — the room's next frames
   * wait for it, it is what a player would lose — batched within its event. A ticking room's
   * periodic checkpoint (asked for right after a tick's flush) is taken in the slack before the
   * next tick and written unconfirmed: the next one follows anyway.
   */
  due(soon: boolean): void {
    this.confirmed ||= soon;
    if (this.timer !== null) return;
    const wait = Math.max(0, this.lastAt + CHECKPOINT_SPACING_MS - this.clock.now());
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      this.lastAt = this.clock.now();
      const confirmed = this.confirmed;
      this.confirmed = false;
      this.write(confirmed);
    }, wait);
  }
}
