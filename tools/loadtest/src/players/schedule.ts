/**
 * Fixed-schedule sender: every player's inputs are due at t0 + k·period, independent of when
 * earlier inputs actually left or were acked. A late generator therefore sends late (and the lag
 * shows in the report) instead of silently sending less, which would flatter the server.
 */

/** Something with inputs due on a fixed period. */
export interface Scheduled {
  /** Scheduled time of the next due input (ms on the scheduler's clock). */
  dueAt: number;
  /**
   * Interval between inputs (ms). Infinity makes a one-shot entry: it fires once (count 1) and
   * leaves the schedule; event-driven senders re-add it for their next input.
   */
  periodMs: number;
  /** Heap slot, owned by the scheduler; -1 when not scheduled. */
  heapIndex: number;
  /**
   * `count` inputs are due, the first scheduled at `firstDueAt`, the rest one period apart.
   * More than one means the generator fell behind; the item may batch them into one frame.
   */
  fire(firstDueAt: number, count: number, now: number): void;
}

/** Time source and timers, injectable so tests can drive the scheduler deterministically. */
export interface SchedulerClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** Real clock: performance.now() and Node timers. */
export const realClock: SchedulerClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * One timer for all players of a thread, ordered by a binary min-heap on `dueAt`: per wake-up it
 * fires every item whose input is due, then sleeps until the earliest next one.
 */
export class FixedScheduler {
  private readonly heap: Scheduled[] = [];
  private timer: unknown = null;
  private running = false;
  /** Wake-ups so far (for tests and diagnostics). */
  wakeups = 0;

  /**
   * @param endAt no input scheduled at or after this time is fired.
   */
  constructor(
    private readonly endAt: number,
    private readonly clock: SchedulerClock = realClock,
  ) {}

  /** Schedules `item` with its first input due at `firstDueAt`. */
  add(item: Scheduled, firstDueAt: number): void {
    if (item.heapIndex >= 0) this.remove(item);
    if (firstDueAt >= this.endAt) return;
    item.dueAt = firstDueAt;
    item.heapIndex = this.heap.length;
    this.heap.push(item);
    this.up(item.heapIndex);
    if (this.running && item.heapIndex === 0) this.arm();
  }

  /** Unschedules `item` (no-op when it is not scheduled). */
  remove(item: Scheduled): void {
    const i = item.heapIndex;
    if (i < 0) return;
    const last = this.heap.pop()!;
    item.heapIndex = -1;
    if (last !== item) {
      this.heap[i] = last;
      last.heapIndex = i;
      this.down(i);
      this.up(last.heapIndex);
    }
  }

  get size(): number {
    return this.heap.length;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
    if (!this.running || this.heap.length === 0) return;
    const delay = this.heap[0].dueAt - this.clock.now();
    this.timer = this.clock.setTimer(this.onTimer, delay > 0 ? delay : 0);
  }

  private readonly onTimer = (): void => {
    this.timer = null;
    this.wakeups++;
    this.runDue();
    this.arm();
  };

  /** Fires everything due now. Public so a test clock can drive it. */
  runDue(): void {
    const heap = this.heap;
    const endAt = this.endAt;
    while (heap.length > 0) {
      const item = heap[0];
      const now = this.clock.now();
      if (item.dueAt > now) break;
      const period = item.periodMs;
      const horizon = now < endAt ? now : endAt - 1e-9;
      const count = Math.floor((horizon - item.dueAt) / period) + 1;
      const first = item.dueAt;
      item.dueAt = first + count * period;
      if (item.dueAt >= endAt) this.remove(item);
      else this.down(0);
      if (count > 0) item.fire(first, count, now);
    }
  }

  private up(i: number): void {
    const heap = this.heap;
    const item = heap[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p];
      if (parent.dueAt <= item.dueAt) break;
      heap[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    heap[i] = item;
    item.heapIndex = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    if (n === 0) return;
    const item = heap[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && heap[r].dueAt < heap[l].dueAt ? r : l;
      if (heap[c].dueAt >= item.dueAt) break;
      heap[i] = heap[c];
      heap[i].heapIndex = i;
      i = c;
    }
    heap[i] = item;
    item.heapIndex = i;
  }
}
