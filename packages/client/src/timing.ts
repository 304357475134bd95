/**
 * Time-keeping pieces that {@link ClockSync} and the playout clock behind {@link SnapshotBuffer}
 * share: a sliding-window minimum (the lowest-RTT ping; the earliest and the latest arrival),
 * a rate-limited approach (slewing the offset, the arrival baseline and the delay) and the
 * default local clock.
 */

/** The default local monotonic clock (ms). */
export const monotonicNow = (): number => performance.now();

/**
 * `value` itself when it is undefined or a finite number ≥ 0 (> 0 when `positive`); a RangeError
 * naming the option otherwise. Tunables that are not numbers would turn every render time or
 * sample into NaN, far from the mistake.
 */
export function checkOption<T extends number | undefined>(name: string, value: T, positive?: boolean): T {
  if (value !== undefined && !((positive ? value > 0 : value >= 0) && value < Infinity)) {
    throw new RangeError(`${name} must be a finite number ${positive ? ">" : "≥"} 0, not ${value}`);
  }
  return value;
}

/** `from` moved toward `to` by at most `maxStep` (≥ 0); exactly `to` once within reach. */
export function approach(from: number, to: number, maxStep: number): number {
  return to > from + maxStep ? from + maxStep : to < from - maxStep ? from - maxStep : to;
}

/**
 * The lowest key over a sliding window of samples, and when it was seen (on equal keys, the
 * newest sample). A sample stays in the window while the newest one is at most `span` after
 * it, in whatever unit `at` counts (sample numbers, or ms), and while the ring of `capacity`
 * has room. One scan per sample; nothing allocates after construction. A caller that needs
 * more of the minimum's sample than its key keeps that by `minAt` (ClockSync does).
 */
export class WindowMin {
  /** Lowest key in the window; Infinity when empty. */
  min = Infinity;
  /** The `at` of the sample holding {@link min}; 0 when empty. */
  minAt = 0;
  readonly #span: number;
  readonly #at: Float64Array;
  readonly #key: Float64Array;
  /** Samples added since the last clear; the newest is in slot (added − 1) mod capacity. */
  #added = 0;

  constructor(capacity: number, span: number) {
    this.#span = span;
    this.#at = new Float64Array(capacity);
    this.#key = new Float64Array(capacity);
  }

  /** Adds a sample at `at` (never less than the previous one's) and recomputes the minimum. */
  add(at: number, key: number): void {
    const capacity = this.#at.length;
    const held = Math.min(++this.#added, capacity);
    let slot = (this.#added - 1) % capacity;
    this.#at[slot] = at;
    this.#key[slot] = key;
    this.min = Infinity;
    // Newest first, so on equal keys the newest wins; stop at the first sample out of the window.
    for (let k = 0; k < held && at - this.#at[slot] <= this.#span; k++) {
      if (this.#key[slot] < this.min) {
        this.min = this.#key[slot];
        this.minAt = this.#at[slot];
      }
      slot = (slot + capacity - 1) % capacity;
    }
  }

  /**
   * Moves every sample by `dAt` and its key by `dKey` (a timeline re-expressed in another
   * clock): the window keeps its samples and its minimum, shifted.
   */
  shift(dAt: number, dKey: number): void {
    const held = Math.min(this.#added, this.#at.length);
    for (let i = 0; i < held; i++) {
      this.#at[i] += dAt;
      this.#key[i] += dKey;
    }
    if (held > 0) {
      this.min += dKey;
      this.minAt += dAt;
    }
  }

  /** Empties the window. */
  clear(): void {
    this.#added = this.minAt = 0;
    this.min = Infinity;
  }
}
