import { BLEND_ANGLE, BLEND_STEP, SampleKind, shortDelta, type FieldLayout } from "./sampling";

/**
 * The snapshot history of one remote entity: a ring of (server time, field values) and the
 * time it left the snapshots, plus sampling at any render time. Tracks are pooled by the
 * {@link SnapshotBuffer}, so nothing here allocates after construction.
 */
export class EntityTrack {
  /** Entity id while in use. */
  id = 0;
  /** Ring slot the next snapshot goes to. */
  head = 0;
  /** Snapshots held (≤ history size). */
  count = 0;
  /** True once the ring has wrapped: older history was dropped, not absent. */
  wrapped = false;
  /** Index of the last snapshot that contained the entity. */
  seen = -1;
  /** Server time of the first snapshot without it (Infinity while present). */
  goneAt = Infinity;
  readonly #times: Float64Array;
  readonly #values: Float64Array;
  readonly #history: number;
  readonly #layout: FieldLayout;

  constructor(history: number, layout: FieldLayout) {
    this.#history = history;
    this.#layout = layout;
    this.#times = new Float64Array(history);
    this.#values = new Float64Array(history * layout.count);
  }

  /** Forgets everything (reuse from the pool, or a return after an absence). */
  clear(): void {
    this.head = 0;
    this.count = 0;
    this.wrapped = false;
    this.seen = -1;
    this.goneAt = Infinity;
  }

  /** Appends the entity's values at server time `time` from snapshot number `snapshot`. */
  push(time: number, values: ArrayLike<number>, snapshot: number): void {
    const F = this.#layout.count;
    const slot = this.head;
    this.#times[slot] = time;
    const base = slot * F;
    for (let f = 0; f < F; f++) this.#values[base + f] = values[f];
    this.head = (slot + 1) % this.#history;
    if (this.count < this.#history) this.count++;
    else this.wrapped = true;
    this.seen = snapshot;
  }

  /**
   * Writes the fields at render time `t` into `out` and says how: interpolated between the two
   * snapshots around `t`, extrapolated along the last velocity for at most `maxExtrapolationMs`
   * past the newest, held beyond that (or once gone), or none when the entity did not exist then.
   */
  sample(t: number, out: Float64Array, maxExtrapolationMs: number): SampleKind {
    if (this.count === 0 || t >= this.goneAt || Number.isNaN(t)) return SampleKind.None;
    const H = this.#history;
    const F = this.#layout.count;
    const blend = this.#layout.blend;
    const period = this.#layout.period;
    const times = this.#times;
    const values = this.#values;
    const newest = (this.head - 1 + H) % H;
    const oldest = (this.head - this.count + H) % H;
    const tNewest = times[newest];

    if (t >= tNewest) {
      const dt = t - tNewest;
      const nb = newest * F;
      if (dt === 0 || this.count < 2 || this.goneAt !== Infinity) {
        for (let f = 0; f < F; f++) out[f] = values[nb + f];
        return dt === 0 ? SampleKind.Interpolated : SampleKind.Held;
      }
      const prev = (newest - 1 + H) % H;
      const pb = prev * F;
      const span = tNewest - times[prev];
      const e = dt < maxExtrapolationMs ? dt : maxExtrapolationMs;
      for (let f = 0; f < F; f++) {
        const b = values[nb + f];
        const kind = blend[f];
        if (kind === BLEND_STEP || span <= 0) {
          out[f] = b;
          continue;
        }
        const d = kind === BLEND_ANGLE ? shortDelta(values[pb + f], b, period[f]) : b - values[pb + f];
        out[f] = b + (d / span) * e;
      }
      return dt <= maxExtrapolationMs ? SampleKind.Extrapolated : SampleKind.Held;
    }

    if (t < times[oldest]) {
      // Before its first snapshot it did not exist yet; before dropped history, clamp.
      if (!this.wrapped) return SampleKind.None;
      const ob = oldest * F;
      for (let f = 0; f < F; f++) out[f] = values[ob + f];
      return SampleKind.Held;
    }

    // Walk back from the newest: render time sits a few snapshots behind it.
    let b = newest;
    let a = (b - 1 + H) % H;
    while (times[a] > t) {
      b = a;
      a = (a - 1 + H) % H;
    }
    const ta = times[a];
    const ab = a * F;
    if (t === ta) {
      for (let f = 0; f < F; f++) out[f] = values[ab + f];
      return SampleKind.Interpolated;
    }
    const bb = b * F;
    const alpha = (t - ta) / (times[b] - ta);
    for (let f = 0; f < F; f++) {
      const va = values[ab + f];
      const kind = blend[f];
      if (kind === BLEND_STEP) out[f] = va;
      else if (kind === BLEND_ANGLE) out[f] = va + shortDelta(va, values[bb + f], period[f]) * alpha;
      else out[f] = va + (values[bb + f] - va) * alpha;
    }
    return SampleKind.Interpolated;
  }
}
