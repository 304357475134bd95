import { EntityTrack } from "./entityTrack";
import { PlayoutClock, type PlayoutClockOptions } from "./playoutClock";
import { blendCode, SampleKind, type FieldSpec } from "./sampling";
import { checkOption } from "./timing";

export { SNAPSHOT_HISTORY } from "./entityTrack";

/** Tunables of a {@link SnapshotBuffer}. */
export interface SnapshotBufferOptions extends PlayoutClockOptions {
  /** The numeric fields of every entity, in the order `setEntity` values use. */
  fields: readonly (string | FieldSpec)[];
  /** Longest velocity extrapolation past the newest snapshot before holding (ms). Default 50. */
  maxExtrapolationMs?: number;
}

/**
 * Snapshot interpolation for remote entities.
 *
 * Feed it every state frame (`beginSnapshot(serverTime)`, `setEntity(...)` for each entity
 * present, `endSnapshot()`); once per render frame call {@link update} for the render time, then
 * {@link sample} or {@link forEach} entities at that time. Nothing on the render path allocates.
 * ({@link InterpolatedView} does the feeding from a connection's state events.)
 *
 * Two parts: the playout clock it extends (`PlayoutClock`) decides the render time and adapts
 * the interpolation delay to the link's jitter (60–200 ms by default); one `EntityTrack` per
 * entity holds its recent snapshots and blends them. This class ties them to the snapshot
 * stream (entities that come, go and come back) and pools the tracks.
 */
export class SnapshotBuffer extends PlayoutClock {
  /** Field names, in `setEntity` order. */
  readonly #names: string[];
  /** Blend code per field (see `BlendCode`). */
  readonly #codes: Float64Array;
  /** Longest extrapolation past the newest snapshot (ms). */
  readonly #maxExtrapolation: number;

  readonly #tracks = new Map<number, EntityTrack>();
  /** Cleared tracks for reuse. */
  readonly #pool: EntityTrack[] = [];
  readonly #scratch: Float64Array;
  readonly #forEachScratch: Float64Array;

  #accepting = false;
  #lastKind: SampleKind = SampleKind.None;

  // forEach state, kept in fields so the callback passed to Map.forEach is allocated once.
  #visitTime = 0;
  #visitFn: (id: number, values: Float64Array, kind: SampleKind) => void = () => {};

  constructor(options: SnapshotBufferOptions) {
    super(options);
    const fields = options.fields;
    this.#names = fields.map((f) => (typeof f === "string" ? f : f.name));
    this.#codes = Float64Array.from(fields, blendCode);
    this.#maxExtrapolation = checkOption("maxExtrapolationMs", options.maxExtrapolationMs) ?? 50;
    this.#scratch = new Float64Array(fields.length);
    this.#forEachScratch = new Float64Array(fields.length);
  }

  /** Index of a field by name (for readable `values[X]` access), or -1. */
  fieldIndex(name: string): number {
    return this.#names.indexOf(name);
  }

  /** How {@link sample} produced its last result. */
  get lastSampleKind(): SampleKind {
    return this.#lastKind;
  }

  /** Entities tracked (present, or gone but still inside the render window). */
  get size(): number {
    return this.#tracks.size;
  }

  /**
   * Starts the snapshot for server time `serverTime` (room ms), received at local `receivedAt`.
   * Returns false, and ignores the following `setEntity` calls, for a snapshot not newer than
   * the newest one (a duplicate, or one from before a reconnect). `changed` false says the
   * world held still since the previous snapshot (an idle room's empty frame).
   */
  beginSnapshot(serverTime: number, receivedAt?: number, changed = true): boolean {
    // The first snapshot after a rebase must come later than the old timeline's last: when it
    // does not, the two rooms' clocks disagree, and the old timeline is dropped instead.
    if (this.rebasePending && !(serverTime > this.latestTime)) this.clear();
    return (this.#accepting = this.recordArrival(serverTime, receivedAt, changed));
  }

  /**
   * Records one entity present in the current snapshot. `values` follows the `fields` option; it is
   * copied, so the caller may reuse one array for every entity.
   */
  setEntity(id: number, values: ArrayLike<number>): void {
    if (!this.#accepting) return;
    let track = this.#tracks.get(id);
    if (track === undefined) {
      this.#tracks.set(id, (track = this.#pool.pop() ?? new EntityTrack(this.#codes, this.#maxExtrapolation)));
    } else if (track.goneAt < Infinity) {
      // Back after an absence (e.g. re-entered the area of interest): blending across the gap
      // would slide it over the map, so it starts a fresh history.
      track.clear();
    }
    track.push(this.latestTime, values);
  }

  /** Ends the current snapshot: entities not set in it are gone from its time on. */
  endSnapshot(): void {
    if (!this.#accepting) return;
    this.#accepting = false;
    this.#tracks.forEach(this.#sweep);
  }

  /**
   * The entity's fields at `renderTime`, written into `out` (default: a scratch array owned by
   * the buffer, valid until the next call). Returns null when the entity has no value then.
   * {@link lastSampleKind} says whether the value was interpolated, extrapolated or held.
   */
  sample(entityId: number, renderTime: number, out: Float64Array = this.#scratch): Float64Array | null {
    const track = this.#tracks.get(entityId);
    this.#lastKind = track === undefined ? SampleKind.None : track.sample(renderTime, out);
    return this.#lastKind === SampleKind.None ? null : out;
  }

  /**
   * Calls `fn` for every entity that has a value at `renderTime`. `values` is a scratch array
   * reused between calls; copy what must outlive the callback.
   */
  forEach(renderTime: number, fn: (id: number, values: Float64Array, kind: SampleKind) => void): void {
    this.#visitTime = renderTime;
    this.#visitFn = fn;
    this.#tracks.forEach(this.#visit);
  }

  /** Drops every entity and the timeline (e.g. a connection switching rooms). */
  clear(): void {
    this.#tracks.forEach(this.#release);
    this.resetTimeline();
    this.#accepting = false;
  }

  /**
   * Carries the buffer across a room restart whose new epoch is `deltaMs` after the old one
   * (the welcome's `roomEpoch`s): everything it holds is re-expressed in the new room's clock
   * (see `rebaseTimeline`), so drawing goes on without a gap. Each entity holds where it was
   * last seen until render time reaches the new room's first snapshot, then takes its value
   * there: the world came back from a checkpoint, so nothing is blended across the restart.
   * Entities the new room does not have go at that snapshot; entities with the same id come
   * back in place (a restored world keeps its ids). A `deltaMs` that is not a finite number
   * ≥ 0 (clocks that disagree) clears the buffer instead.
   */
  rebase(deltaMs: number): void {
    if (!(deltaMs >= 0 && deltaMs < Infinity)) return this.clear();
    this.rebaseTimeline(deltaMs);
    this.#tracks.forEach((track) => track.rebase(-deltaMs));
  }

  readonly #visit = (track: EntityTrack, id: number): void => {
    const kind = track.sample(this.#visitTime, this.#forEachScratch);
    if (kind !== SampleKind.None) this.#visitFn(id, this.#forEachScratch, kind);
  };

  readonly #sweep = (track: EntityTrack, id: number): void => {
    const latest = this.latestTime;
    if (track.goneAt === Infinity && track.lastTime < latest) track.goneAt = latest;
    // Once render time has passed (or is bound to pass) its disappearance nothing will sample it again.
    if (track.goneAt <= this.passedTime) this.#release(track, id);
  };

  readonly #release = (track: EntityTrack, id: number): void => {
    track.clear();
    this.#pool.push(track);
    this.#tracks.delete(id);
  };
}
