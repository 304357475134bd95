/**
 * When a relay sends its clients' inputs to the simulation (`InputPhase`): once per simulation
 * tick, just before that tick, with the phase learned from the simulation's flushes.
 */
import type { Clock, TimerHandle } from "../clock";
import { MAX_LAG_TICKS } from "../tickScheduler";

/**
 * The least lead a relay's batch goes with before the simulation's predicted tick, ms (and the
 * one it starts with). The prediction is where the fastest recent flush arrived, so it is later
 * than the tick itself by that flush's delay: the tick's and the flush's work (~1 ms at 100
 * players relayed) and a transit (sub-ms between objects of one process, ~1 ms within a colo).
 * The lead covers that, the transit back, and the relay's own timer firing late (p99 ~2 ms at
 * 100 players). An input that arrives within the lead before a tick waits for the next one, so
 * the lead is also what relaying adds to the longest wait: small, and at most a quarter tick.
 * Where the delays are longer (a relay whose flush waits behind another relay's encoding on a
 * shared thread, a farther link), batches miss their tick and the lead grows
 * ({@link InputPhase.landed}).
 */
export function inputLeadMs(tickMs: number): number {
  return Math.min(4, tickMs / 4);
}

/** A batch that missed its tick raises the lead by this much, ms: one miss says the lead was short by an unknown amount, so by more than a little. */
const LEAD_RAISE_MS = 2;
/** After this many batches in a row made their ticks (~5 s at 20 Hz), the lead comes down by {@link LEAD_EASE_MS}: slowly, since each miss costs a batch a whole tick. */
const EASE_AFTER = 100;
/** How much the lead comes down after {@link EASE_AFTER} batches made their ticks, ms. */
const LEAD_EASE_MS = 0.5;

/**
 * Flushes a window of the phase estimate spans: the estimate is the earliest arrival of the
 * last one to two windows (~1 s at 20 Hz), so one slow flush does not move it, and flushes that
 * come later for good (a link that got slower) are followed within two windows.
 */
const WINDOW_FLUSHES = 20;

/**
 * The clock of a relay's input batches. A simulation drains its input queue at its tick, so a
 * batch sent on a timer of the relay's own makes an input wait twice: for the relay's timer,
 * then for the next tick after the batch arrives (up to two ticks where a single room makes it
 * wait one). This sends the batch just before each of the simulation's ticks instead.
 *
 * The phase comes from the simulation's flushes, which leave right after its tick: a flush of
 * tick `k` arriving at relay time `a` says tick 0 fell at `a − k·tickMs` at the latest (less
 * the tick's work, the flush's and the transit, which are ≥ 0). The estimate of that origin is
 * the earliest such value over the last one to two windows of flushes, so it sits near the
 * tick's true time plus the fastest delay seen; the batch for tick `j` goes at
 * `origin + j·tickMs − lead`. A simulation whose ticks start again from 0 (it restarted, or
 * slept and woke) or whose grid jumped later after a stall (`TickScheduler` re-anchors past
 * `MAX_LAG_TICKS`) starts the estimate again from that flush. The relay tells it whether each
 * batch made its tick ({@link landed}); the lead grows on a miss and eases back slowly.
 *
 * At most one batch per simulation tick: ~`1000 / tickMs` messages a second per relay with
 * inputs, whatever its client count (20/s at 20 Hz for 100 clients, where sending each input
 * frame would be 2,000/s). Before the first flush no phase is known, and a batch goes in the
 * task after its first input arrived ({@link queued}): a timer of the relay's own could only
 * add a tick's wait, and a relay with seated clients hears a flush within one flush interval
 * (the simulation ticks while it has players, and flushes to every relay it has).
 */
export class InputPhase {
  private timer: TimerHandle | null = null;
  private isRunning = false;
  /** Relay-clock time of the simulation's tick 0, as its fastest flush would show it. */
  private origin = 0;
  private phased = false;
  /** Earliest `arrival − tick·tickMs` of the window being filled, and of the one before. */
  private windowMin = Infinity;
  private lastWindowMin = Infinity;
  private windowCount = 0;
  /** Tick of the last flush seen (-1: none), and when it arrived. */
  private lastTick = -1;
  private lastFlushAt = -Infinity;
  /** The tick the armed timer's batch is for. */
  private target = 0;
  /** The tick the last batch was sent for; and when it went. */
  private sentFor = -1;
  private sentAt = -Infinity;
  /** The lead now, between the least ({@link inputLeadMs}) and half a tick. */
  private lead: number;
  /** Batches in a row that made their ticks. */
  private madeInRow = 0;

  /**
   * @param clock The relay's clock.
   * @param tickMs The simulation's tick length.
   * @param send Sends the batch, told the simulation's tick it is for (-1 before a phase is
   *   known); it may {@link stop} this from inside.
   * @param minLeadMs The least lead before the predicted tick ({@link inputLeadMs}).
   */
  constructor(
    private readonly clock: Clock,
    private readonly tickMs: number,
    private readonly send: (forTick: number) => void,
    readonly minLeadMs = inputLeadMs(tickMs),
  ) {
    this.lead = minLeadMs;
  }

  /** How long before the predicted tick a batch goes now, ms. */
  get leadMs(): number {
    return this.lead;
  }

  /** True between {@link start} and {@link stop}. */
  get running(): boolean {
    return this.isRunning;
  }

  /** True once a flush has given the simulation's phase. */
  get inPhase(): boolean {
    return this.phased;
  }

  /**
   * Starts sending batches (a no-op while running). A phase whose last flush is more than
   * `MAX_LAG_TICKS` ticks old is forgotten: the simulation may have stopped ticking meanwhile
   * (a room with no players sleeps) and counts its ticks from 0 on another grid when it starts.
   */
  start(): void {
    if (this.isRunning) return;
    this.isRunning = true;
    if (this.phased && this.clock.now() - this.lastFlushAt > MAX_LAG_TICKS * this.tickMs) this.phased = false;
    if (this.phased) this.arm();
  }

  /** Stops sending batches; the phase learned so far is kept. A no-op when stopped. */
  stop(): void {
    this.isRunning = false;
    this.disarm();
  }

  /**
   * The batch got its first input. In phase the timer is set already; before it, the batch
   * goes in the next task, with whatever else arrives until then.
   */
  queued(): void {
    if (this.isRunning && !this.phased && this.timer === null) this.timer = this.clock.setTimer(this.fire, 0);
  }

  /**
   * What became of the batch for a tick, as the simulation's acks of its inputs show: applied
   * in that tick (`made`), or later. A miss raises the lead at once; a long run of batches that
   * made their ticks lowers it a little, down to the least.
   */
  landed(made: boolean): void {
    if (!made) {
      this.madeInRow = 0;
      this.lead = Math.min(this.tickMs / 2, this.lead + LEAD_RAISE_MS);
      if (this.isRunning && this.phased) this.arm();
    } else if (++this.madeInRow >= EASE_AFTER) {
      this.madeInRow = 0;
      this.lead = Math.max(this.minLeadMs, this.lead - LEAD_EASE_MS);
    }
  }

  /** Relay-clock time the simulation's tick `tick` is predicted at (the fastest a flush of it would arrive). */
  tickAt(tick: number): number {
    return this.origin + tick * this.tickMs;
  }

  /** A flush of the simulation's tick `tick` arrived now: the phase is learned again from it. */
  flushArrived(tick: number): void {
    const offset = this.clock.now() - tick * this.tickMs;
    if (!this.phased || tick <= this.lastTick || offset > this.origin + MAX_LAG_TICKS * this.tickMs) {
      // A first phase, or another grid (ticks counting from 0 again, or re-anchored later):
      // what was learned of the old one says nothing of this one.
      this.phased = true;
      this.windowMin = offset;
      this.lastWindowMin = Infinity;
      this.windowCount = 0;
      this.sentFor = -1;
    } else if (offset < this.windowMin) {
      this.windowMin = offset;
    }
    if (++this.windowCount >= WINDOW_FLUSHES) {
      this.lastWindowMin = this.windowMin;
      this.windowMin = Infinity;
      this.windowCount = 0;
    }
    this.origin = Math.min(this.windowMin, this.lastWindowMin);
    this.lastTick = tick;
    this.lastFlushAt = this.clock.now();
    if (this.isRunning) this.arm();
  }

  /**
   * Sets the timer for the next batch: for the first tick past the last batch's, past the last
   * flush's (that tick was drained) and whose send time is past the last send; at once when
   * that time has passed already (the estimate moved earlier, or the timer was late), since
   * the inputs held would only wait longer.
   */
  private arm(): void {
    this.disarm();
    const byTime = Math.floor((this.sentAt + this.lead - this.origin) / this.tickMs) + 1;
    const next = Math.max(this.sentFor + 1, this.lastTick + 1, Number.isFinite(byTime) ? byTime : 0);
    this.target = next;
    this.timer = this.clock.setTimer(this.fire, this.tickAt(next) - this.lead - this.clock.now());
  }

  private disarm(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private readonly fire = (): void => {
    this.timer = null;
    this.sentFor = this.target;
    this.sentAt = this.clock.now();
    this.send(this.phased ? this.target : -1);
    if (this.isRunning && this.phased) this.arm();
  };
}
