import { blendDelta, SampleKind } from "./sampling";

/**
 * Snapshots kept per entity: the delay band's top (200 ms by default) at up to 150 sends per
 * second. Render time older than the history holds the oldest kept snapshot.
 */
export const SNAPSHOT_HISTORY = 32;

/**
 * The snapshot history of one remote entity: a ring of (server time, field values) and the
 * time it left the snapshots, plus sampling at any render time. Tracks are pooled by the
 * {@link SnapshotBuffer}, so nothing here allocates after construction.
 */
export class EntityTrack {
  /** Server time of the newest snapshot (valid once pushed). */
  lastTime = 0;
  /** Server time of the first snapshot without it (Infinity while present). */
  goneAt = Infinity;
  readonly #times: Float64Array;
  readonly #values: Float64Array;
  readonly #codes: Float64Array;
  readonly #maxExtrapolation: number;
  /** Snapshots pushed since the last clear; the ring holds the newest `SNAPSHOT_HISTORY` of them. */
  #pushes = 0;
  /**
   * Number of the first snapshot after a break (see {@link rebase}), 0 for none: no value
   * is blended across it, so the entity holds its last value before the break until the first
   * one after it, then takes that.
   */
  #break = 0;

  /** `codes`: the blend code per field, in values order; `maxExtrapolationMs`: see {@link sample}. */
  constructor(codes: Float64Array, maxExtrapolationMs: number) {
    this.#codes = codes;
    this.#maxExtrapolation = maxExtrapolationMs;
    this.#times = new Float64Array(SNAPSHOT_HISTORY);
    this.#values = new Float64Array(SNAPSHOT_HISTORY * codes.length);
  }

  /** Forgets everything (reuse from the pool, or a return after an absence). */
  clear(): void {
    this.#pushes = this.#break = 0;
    this.goneAt = Infinity;
  }

  /**
   * The room restarted (its world came back from a checkpoint): every time moves by `dt` (the
   * timeline re-expressed in the new room's clock), and the next snapshot starts after a break:
   * the values on either side are not one motion, so they are never blended.
   */
  rebase(dt: number): void {
    for (let i = Math.min(this.#pushes, SNAPSHOT_HISTORY) - 1; i >= 0; i--) this.#times[i] += dt;
    this.lastTime += dt;
    this.goneAt += dt;
    this.#break = this.#pushes;
  }

  /** Appends the entity's values at server time `time`. */
  push(time: number, values: ArrayLike<number>): void {
    const fieldCount = this.#codes.length;
    const slot = this.#pushes++ % SNAPSHOT_HISTORY;
    this.#times[slot] = this.lastTime = time;
    for (let f = 0; f < fieldCount; f++) this.#values[slot * fieldCount + f] = values[f];
  }

  /**
   * Writes the fields at render time `t` into `out` and says how: interpolated between the two
   * snapshots around `t`, extrapolated along the last velocity for at most `maxExtrapolationMs`
   * past the newest, held beyond that (or once gone), or none when the entity did not exist then
   * (or `t` is not a time: before the first render).
   */
  sample(t: number, out: Float64Array): SampleKind {
    const maxExtrapolationMs = this.#maxExtrapolation;
    const times = this.#times;
    const newest = this.#pushes - 1;
    const oldest = Math.max(0, this.#pushes - SNAPSHOT_HISTORY);
    if (newest < 0 || !(t > -Infinity) || t >= this.goneAt) return SampleKind.None;
    // Walk back from the newest (snapshots are numbered from the last clear; ring slot = number
    // mod SNAPSHOT_HISTORY): render time sits a few snapshots behind it.
    let k = newest;
    while (k > oldest && times[k % SNAPSHOT_HISTORY] > t) k--;
    const tk = times[k % SNAPSHOT_HISTORY];
    if (t < tk) {
      // Before its first snapshot it did not exist yet; before dropped history, clamp.
      if (oldest === 0) return SampleKind.None;
      this.#blend(out, k, k, 0);
      return SampleKind.Held;
    }
    if (k < newest) {
      if (k + 1 === this.#break) {
        this.#blend(out, k, k, 0);
        return SampleKind.Held;
      }
      this.#blend(out, k, k, (t - tk) / (times[(k + 1) % SNAPSHOT_HISTORY] - tk));
      return SampleKind.Interpolated;
    }
    // At or past the newest: extrapolate from the last two snapshots unless it is despawning
    // (or they lie on either side of a break).
    const dt = t - tk;
    const moving = dt > 0 && k > oldest && this.goneAt === Infinity && k !== this.#break;
    const span = moving ? tk - times[(k - 1) % SNAPSHOT_HISTORY] : 0;
    this.#blend(out, k, k - 1, span > 0 ? Math.min(dt, maxExtrapolationMs) / span : 0);
    return dt === 0 ? SampleKind.Interpolated : moving && dt <= maxExtrapolationMs ? SampleKind.Extrapolated : SampleKind.Held;
  }

  /**
   * Per field, `out` = snapshot `base` + `alpha` × the change from snapshot `from` to the next
   * one (by the field's blend rule). Snapshots by number since the last clear.
   */
  #blend(out: Float64Array, base: number, from: number, alpha: number): void {
    const codes = this.#codes;
    const fieldCount = codes.length;
    const values = this.#values;
    const at = (base % SNAPSHOT_HISTORY) * fieldCount;
    const a = (from % SNAPSHOT_HISTORY) * fieldCount;
    const b = ((from + 1) % SNAPSHOT_HISTORY) * fieldCount;
    for (let f = 0; f < fieldCount; f++) {
      // alpha 0 copies exactly (`v + 0` would turn −0 into 0).
      out[f] = alpha === 0 ? values[at + f] : values[at + f] + blendDelta(values[a + f], values[b + f], codes[f]) * alpha;
    }
  }
}
