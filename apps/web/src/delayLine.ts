/**
 * A first-in, first-out queue that releases each item no earlier than its due time and never
 * before an item queued ahead of it, like bytes on one TCP stream: a late item holds back
 * everything behind it (head-of-line blocking) instead of being overtaken.
 *
 * One timer serves the whole queue, so a burst of items costs one timer, not one each.
 */
export class DelayLine<T> {
  private readonly items: T[] = [];
  private readonly due: number[] = [];
  private head = 0;
  private lastDue = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  /**
   * @param deliver called for each item in queue order once it is due
   * @param now monotonic clock (ms); `performance.now()` by default
   */
  constructor(
    private readonly deliver: (item: T) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Items waiting. */
  get size(): number {
    return this.items.length - this.head;
  }

  /**
   * Queues `item` to be delivered `delayMs` from now, or right after the item ahead of it if
   * that one is due later. With nothing queued and no delay it is delivered synchronously, so
   * a line with conditions switched off adds no latency at all.
   */
  push(item: T, delayMs: number): void {
    const now = this.now();
    const at = Math.max(now + Math.max(0, delayMs), this.lastDue);
    this.lastDue = at;
    if (this.size === 0 && at <= now) {
      this.deliver(item);
      return;
    }
    this.items.push(item);
    this.due.push(at);
    this.arm();
  }

  /** Drops everything queued (the socket behind it is gone). */
  clear(): void {
    this.items.length = 0;
    this.due.length = 0;
    this.head = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private arm(): void {
    if (this.size === 0) return;
    const at = this.due[this.head]!;
    if (this.timer !== undefined && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.drain, Math.max(0, at - this.now()));
  }

  private readonly drain = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    // Timers may fire a hair early; a millisecond of slack avoids re-arming for nothing.
    while (this.head < this.items.length && this.due[this.head]! <= now + 1) {
      const item = this.items[this.head]!;
      this.items[this.head] = undefined as T;
      this.head++;
      this.deliver(item);
    }
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.due.length = 0;
      this.head = 0;
    } else if (this.head > 64 && this.head * 2 > this.items.length) {
      // Compact now and then so a long-lived busy line does not grow without bound.
      this.items.splice(0, this.head);
      this.due.splice(0, this.head);
      this.head = 0;
    }
    this.arm();
  };
}
