/** A position written by {@link LagHistory.sample}: callers keep one and reuse it. */
export interface HistoryPoint {
  x: number;
  y: number;
}

/**
 * Where every player was over the last few ticks, for lag-compensated hit tests: a ring of
 * frames, one per tick, each holding (x, y, alive) per player slot. Slots are small dense
 * indexes the game assigns (not player ids), so a frame is a row of typed arrays and recording
 * a tick writes numbers into preallocated memory: no allocation per tick.
 *
 * Between two frames a position is interpolated linearly, which is also how clients render
 * the frames they receive, so a rewound target is where the shooter saw it.
 */
export class LagHistory {
  /** Frames kept. */
  readonly depth: number;
  private capacity: number;
  private readonly times: Float64Array;
  private xs: Float64Array;
  private ys: Float64Array;
  private alive: Uint8Array;
  private head = -1;
  private count = 0;

  /** Frames needed to look `windowMs` back at one frame per `tickMs` (with a frame to spare). */
  static framesFor(windowMs: number, tickMs: number): number {
    return Math.ceil(windowMs / Math.max(1, tickMs)) + 2;
  }

  constructor(depth: number, slots: number) {
    this.depth = Math.max(2, depth | 0);
    this.capacity = Math.max(1, slots | 0);
    this.times = new Float64Array(this.depth);
    this.xs = new Float64Array(this.depth * this.capacity);
    this.ys = new Float64Array(this.depth * this.capacity);
    this.alive = new Uint8Array(this.depth * this.capacity);
  }

  /** Number of frames recorded so far (at most {@link depth}). */
  get frames(): number {
    return this.count;
  }

  /** Time of the newest frame, or -Infinity before the first. */
  get newestTime(): number {
    return this.count > 0 ? this.times[this.head] : -Infinity;
  }

  /** Time of the oldest frame kept, or -Infinity before the first. */
  get oldestTime(): number {
    return this.count > 0 ? this.times[this.frameIndex(this.count - 1)] : -Infinity;
  }

  /** Makes room for slot indexes below `slots` (on join, never per tick). */
  ensureSlots(slots: number): void {
    if (slots <= this.capacity) return;
    let cap = this.capacity * 2;
    while (cap < slots) cap *= 2;
    const xs = new Float64Array(this.depth * cap);
    const ys = new Float64Array(this.depth * cap);
    const alive = new Uint8Array(this.depth * cap);
    for (let f = 0; f < this.depth; f++) {
      const from = f * this.capacity;
      const to = f * cap;
      for (let s = 0; s < this.capacity; s++) {
        xs[to + s] = this.xs[from + s];
        ys[to + s] = this.ys[from + s];
        alive[to + s] = this.alive[from + s];
      }
    }
    this.xs = xs;
    this.ys = ys;
    this.alive = alive;
    this.capacity = cap;
  }

  /** Starts the frame of time `time` (overwriting the oldest); every slot starts absent. */
  beginFrame(time: number): void {
    this.head = (this.head + 1) % this.depth;
    if (this.count < this.depth) this.count++;
    this.times[this.head] = time;
    const row = this.head * this.capacity;
    this.alive.fill(0, row, row + this.capacity);
  }

  /** Records a live (hittable) player in the current frame. */
  put(slot: number, x: number, y: number): void {
    const i = this.head * this.capacity + slot;
    this.xs[i] = x;
    this.ys[i] = y;
    this.alive[i] = 1;
  }

  /** Forgets a slot's past (it is being given to another player). */
  clearSlot(slot: number): void {
    if (slot >= this.capacity) return;
    for (let f = 0; f < this.depth; f++) this.alive[f * this.capacity + slot] = 0;
  }

  /**
   * Where slot `slot` was at time `t`, writing it to `out`; false when it was absent or dead
   * then. `now` and (liveX, liveY, liveAlive) describe the present, after the newest frame: a
   * time at or after `now` reads the present, a time between the newest frame and `now`
   * interpolates toward it, and a time older than every frame reads the oldest (callers cap
   * the rewind depth; this only covers a room younger than the cap).
   *
   * A position is interpolated only when the slot is alive at both ends; alive before and dead
   * after reads the earlier position (it died in between), dead before reads as not hittable
   * (so a respawn is never smeared across the map).
   */
  sample(slot: number, t: number, now: number, liveX: number, liveY: number, liveAlive: boolean, out: HistoryPoint): boolean {
    if (t >= now || this.count === 0) {
      out.x = liveX;
      out.y = liveY;
      return liveAlive;
    }
    const cap = this.capacity;
    // Newest frame at or before t (k = 0 is the newest); the oldest when t precedes them all.
    let k = 0;
    while (k < this.count - 1 && this.times[this.frameIndex(k)] > t) k++;
    const f = this.frameIndex(k);
    const i = f * cap + slot;
    if (this.alive[i] === 0) return false;
    const t0 = this.times[f];
    const x0 = this.xs[i];
    const y0 = this.ys[i];
    let t1: number;
    let x1: number;
    let y1: number;
    let alive1: boolean;
    if (k === 0) {
      t1 = now;
      x1 = liveX;
      y1 = liveY;
      alive1 = liveAlive;
    } else {
      const j = this.frameIndex(k - 1) * cap + slot;
      t1 = this.times[this.frameIndex(k - 1)];
      x1 = this.xs[j];
      y1 = this.ys[j];
      alive1 = this.alive[j] === 1;
    }
    if (!alive1 || t <= t0 || t1 <= t0) {
      out.x = x0;
      out.y = y0;
      return true;
    }
    const u = (t - t0) / (t1 - t0);
    out.x = x0 + (x1 - x0) * u;
    out.y = y0 + (y1 - y0) * u;
    return true;
  }

  /** Ring index of the k-th newest frame. */
  private frameIndex(k: number): number {
    const i = this.head - k;
    return i >= 0 ? i : i + this.depth;
  }
}
