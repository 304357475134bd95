/** Who drew a tracer: the page at the click, or the server's authoritative shot. */
export const TracerKind = {
  /** Drawn by the page the moment the player clicked (feedback only). */
  Local: 0,
  /** A server tracer that hit nobody. */
  Miss: 1,
  /** A server tracer that hit a player. */
  Hit: 2,
} as const;
export type TracerKind = (typeof TracerKind)[keyof typeof TracerKind];

/** How long a tracer stays on screen (ms), fading out. */
export const TRACER_LIFE_MS = 350;
const FIELDS = 6;

/**
 * Recent shot lines in a fixed ring (no allocation per shot or per frame). When full, the
 * oldest line is overwritten: they fade within a third of a second anyway.
 */
export class TracerBuffer {
  private readonly data: Float64Array;
  private head = 0;
  private count = 0;
  /** Lines added so far, by kind (the debug handle and tests read these). */
  readonly added = [0, 0, 0];

  constructor(private readonly capacity = 64) {
    this.data = new Float64Array(capacity * FIELDS);
  }

  /** Adds a line from (x0, y0) to (x1, y1) born at local time `now`. */
  add(kind: TracerKind, x0: number, y0: number, x1: number, y1: number, now: number): void {
    const i = this.head * FIELDS;
    const d = this.data;
    d[i] = kind;
    d[i + 1] = x0;
    d[i + 2] = y0;
    d[i + 3] = x1;
    d[i + 4] = y1;
    d[i + 5] = now;
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    this.added[kind]!++;
  }

  /**
   * Calls `fn` for every line still alive at `now`, oldest first, with its remaining life in
   * (0, 1] (1 = just fired).
   */
  forEach(now: number, fn: (kind: TracerKind, x0: number, y0: number, x1: number, y1: number, life: number) => void): void {
    const d = this.data;
    for (let k = 0; k < this.count; k++) {
      const slot = (this.head - this.count + k + this.capacity) % this.capacity;
      const i = slot * FIELDS;
      const age = now - d[i + 5]!;
      if (age < 0 || age >= TRACER_LIFE_MS) continue;
      fn(d[i]! as TracerKind, d[i + 1]!, d[i + 2]!, d[i + 3]!, d[i + 4]!, 1 - age / TRACER_LIFE_MS);
    }
  }

  /** Forgets every line. */
  clear(): void {
    this.count = 0;
  }
}
