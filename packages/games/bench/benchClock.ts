import type { Clock, TimerHandle } from "@tikron/core";

/**
 * A fake clock that allocates nothing of its own but the timer records a real runtime makes
 * too (index loops, no iterators or filtered copies), so what is measured is the room.
 */
export class BenchClock implements Clock {
  private t = 1_000_000;
  private nextId = 1;
  private readonly timers: { id: number; at: number; fn: () => void }[] = [];
  /** Timers fired so far: each is an entry into the object a real runtime runs the room in. */
  fired = 0;
  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    this.timers.push({ id, at: this.t + Math.max(0, delayMs), fn });
    return id;
  }
  clearTimer(handle: TimerHandle): void {
    for (let i = 0; i < this.timers.length; i++) if (this.timers[i]!.id === handle) return this.removeAt(i);
  }
  nextTask(fn: () => void): void {
    this.setTimer(fn, 0);
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let best = -1;
      for (let i = 0; i < this.timers.length; i++) {
        const x = this.timers[i]!;
        if (x.at <= end && (best < 0 || x.at < this.timers[best]!.at || (x.at === this.timers[best]!.at && x.id < this.timers[best]!.id))) best = i;
      }
      if (best < 0) break;
      const timer = this.timers[best]!;
      this.removeAt(best);
      this.t = Math.max(this.t, timer.at);
      this.fired++;
      timer.fn();
    }
    this.t = end;
  }
  private removeAt(i: number): void {
    for (let j = i + 1; j < this.timers.length; j++) this.timers[j - 1] = this.timers[j]!;
    this.timers.length--;
  }
}
