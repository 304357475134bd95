import { EntityTrack } from "./entityTrack";
import { PlayoutClock, type PlayoutClockOptions } from "./playoutClock";
import { FieldLayout, SampleKind, type FieldSpec } from "./sampling";


/** Tunables of a {@link SnapshotBuffer}. */
/**
 * How far render time may run past a "nothing changed" snapshot before it counts as starving:
 * idle rooms send such a frame every 250 ms by default (`idleFrameMs`), so this covers a few
 * of them and still notices a real outage within a second.
 */
export const QUIET_HOLD_MS = 1000;

export interface SnapshotBufferOptions extends PlayoutClockOptions {
  /** The numeric fields of every entity, in the order `setEntity` values use. */
  fields: readonly (string | FieldSpec)[];
  /** Longest velocity extrapolation past the newest snapshot before holding (ms). Default 50. */
  maxExtrapolationMs?: number;
  /** Snapshots kept per entity. Must cover the maximum delay at the send rate. Default 32. */
  historySize?: number;
  /** Local monotonic clock (ms) used to stamp arrivals. Default `performance.now()`. */
  now?: () => number;
}

const defaultNow = (): number => performance.now();

/**
 * Snapshot interpolation for remote entities.
 *
 * Feed it every state frame (`beginSnapshot(serverTime)`, `setEntity(...)` for each entity
 * present, `endSnapshot()`); once per render frame call {@link update} for the render time, then
 * {@link sample} or {@link forEach} entities at that time. Nothing on the render path allocates.
 * ({@link InterpolatedView} does the feeding from a connection's state events.)
 *
 * Three parts: a `PlayoutClock` decides the render time and adapts the interpolation
 * delay to the link's jitter (60–200 ms by default); one `EntityTrack` per entity holds its
 * recent snapshots and blends them; this class ties them to the snapshot stream (entities that
 * come, go and come back) and pools the tracks.
 */
export class SnapshotBuffer {
  /** The newest snapshot said nothing changed (an idle room's empty frame). */
  #quiet = false;
  /** Field layout, in `setEntity` order. */
  readonly fields: readonly Required<FieldSpec>[];
  /** Longest extrapolation past the newest snapshot (ms). */
  readonly maxExtrapolationMs: number;
  /** Snapshots kept per entity. */
  readonly historySize: number;
  readonly #layout: FieldLayout;
  readonly #clock: PlayoutClock;
  readonly #now: () => number;

  readonly #tracks = new Map<number, EntityTrack>();
  readonly #pool: EntityTrack[] = [];
  readonly #scratch: Float64Array;
  readonly #forEachScratch: Float64Array;

  #latest = -Infinity;
  #snapshotIndex = -1;
  #accepting = false;
  #pendingTime = 0;
  #lastKind: SampleKind = SampleKind.None;

  // forEach state, kept in fields so the callback passed to Map.forEach is allocated once.
  #visitTime = 0;
  #visitFn: ((id: number, values: Float64Array, kind: SampleKind) => void) | null = null;

  constructor(options: SnapshotBufferOptions) {
    this.#layout = new FieldLayout(options.fields);
    this.fields = this.#layout.fields;
    this.#clock = new PlayoutClock(options);
    this.maxExtrapolationMs = Math.max(0, options.maxExtrapolationMs ?? 50);
    this.historySize = Math.max(2, Math.floor(options.historySize ?? 32));
    this.#now = options.now ?? defaultNow;
    this.#scratch = new Float64Array(this.#layout.count);
    this.#forEachScratch = new Float64Array(this.#layout.count);
  }

  /** Lower edge of the interpolation-delay band (ms). */
  get minDelayMs(): number {
    return this.#clock.minDelayMs;
  }

  /** Upper edge of the interpolation-delay band (ms). */
  get maxDelayMs(): number {
    return this.#clock.maxDelayMs;
  }

  /** Time without starvation before the delay shrinks (ms). */
  get stableMs(): number {
    return this.#clock.stableMs;
  }

  /** Shrink rate of the delay while stable (ms per second). */
  get shrinkMsPerSec(): number {
    return this.#clock.shrinkMsPerSec;
  }

  /** How far back arrival jitter is remembered (ms). */
  get jitterWindowMs(): number {
    return this.#clock.jitterWindowMs;
  }

  /** Slack kept above the worst observed need when shrinking (ms). */
  get headroomMs(): number {
    return this.#clock.headroomMs;
  }

  /** Index of a field by name (for readable `values[X]` access), or -1. */
  fieldIndex(name: string): number {
    return this.fields.findIndex((f) => f.name === name);
  }

  /** Current interpolation delay (ms). */
  get delayMs(): number {
    return this.#clock.delayMs;
  }

  /** The delay the buffer is moving toward (ms). */
  get targetDelayMs(): number {
    return this.#clock.targetDelayMs;
  }

  /** Starvation episodes so far: render time overtook the newest snapshot. */
  get starvations(): number {
    return this.#clock.starvations;
  }

  /** True while render time is past the newest snapshot. */
  get starved(): boolean {
    return this.#clock.starved;
  }

  /** Server time of the newest snapshot, or -Infinity before the first. */
  get latestTime(): number {
    return this.#latest;
  }

  /** Render time computed by the last {@link update}. */
  get renderTime(): number {
    return this.#clock.renderTime;
  }

  /** Lowest delay the buffer would currently shrink to (ms): recent worst need plus headroom. */
  get floorDelayMs(): number {
    return this.#clock.floorDelayMs;
  }

  /** How {@link sample} produced its last result. */
  get lastSampleKind(): SampleKind {
    return this.#lastKind;
  }

  /** Entities tracked (present, or gone but still inside the render window). */
  get size(): number {
    return this.#tracks.size;
  }

  /** Server send interval (ms): the step by which a starvation grows the delay. */
  get sendIntervalMs(): number {
    return this.#clock.sendIntervalMs;
  }

  /**
   * Sets the server's send interval (from the welcome). Before the first snapshot this also
   * re-derives the initial delay, which defaults to two intervals.
   */
  setSendInterval(ms: number): void {
    this.#clock.setSendInterval(ms);
  }

  /**
   * Starts the snapshot for server time `serverTime` (room ms), received at local `receivedAt`.
   * Returns false, and ignores the following `setEntity` calls, for a snapshot not newer than
   * the newest one (a duplicate, or one from before a reconnect).
   */
  beginSnapshot(serverTime: number, receivedAt: number = this.#now(), changed = true): boolean {
    if (!(serverTime > this.#latest) || !Number.isFinite(serverTime)) {
      this.#accepting = false;
      return false;
    }
    this.#quiet = !changed;
    this.#clock.recordArrival(serverTime, receivedAt);
    this.#latest = serverTime;
    this.#pendingTime = serverTime;
    this.#snapshotIndex++;
    this.#accepting = true;
    return true;
  }

  /**
   * Records one entity present in the current snapshot. `values` follows {@link fields}; it is
   * copied, so the caller may reuse one array for every entity.
   */
  setEntity(id: number, values: ArrayLike<number>): void {
    if (!this.#accepting) return;
    let tr = this.#tracks.get(id);
    if (tr === undefined) {
      tr = this.#pool.pop() ?? new EntityTrack(this.historySize, this.#layout);
      tr.clear();
      tr.id = id;
      this.#tracks.set(id, tr);
    } else if (tr.goneAt !== Infinity) {
      // Back after an absence (e.g. re-entered the area of interest): blending across the gap
      // would slide it over the map, so it starts a fresh history.
      tr.clear();
    }
    tr.push(this.#pendingTime, values, this.#snapshotIndex);
  }

  /** Ends the current snapshot: entities not set in it are gone from its time on. */
  endSnapshot(): void {
    if (!this.#accepting) return;
    this.#accepting = false;
    this.#tracks.forEach(this.#sweep);
  }

  /**
   * Advances the render clock to local time `localNow` (call once per render frame) and
   * returns the render time in server room ms; -Infinity before the first snapshot.
   */
  update(localNow: number = this.#now()): number {
    // After a "no change at time t" frame the world is known to hold still until the next
    // frame, which an idle room sends within its idle interval: render time may run up to
    // QUIET_HOLD_MS past it without that being a starvation (or growing the delay).
    return this.#clock.update(localNow, this.#quiet ? this.#latest + QUIET_HOLD_MS : this.#latest);
  }

  /**
   * The entity's fields at `renderTime`, written into `out` (default: a scratch array owned by
   * the buffer, valid until the next call). Returns null when the entity has no value then.
   * {@link lastSampleKind} says whether the value was interpolated, extrapolated or held.
   */
  sample(entityId: number, renderTime: number, out: Float64Array = this.#scratch): Float64Array | null {
    const tr = this.#tracks.get(entityId);
    if (tr === undefined) {
      this.#lastKind = SampleKind.None;
      return null;
    }
    this.#lastKind = tr.sample(renderTime, out, this.maxExtrapolationMs);
    return this.#lastKind === SampleKind.None ? null : out;
  }

  /**
   * Calls `fn` for every entity that has a value at `renderTime`. `values` is a scratch array
   * reused between calls; copy what must outlive the callback.
   */
  forEach(renderTime: number, fn: (id: number, values: Float64Array, kind: SampleKind) => void): void {
    this.#visitTime = renderTime;
    this.#visitFn = fn;
    try {
      this.#tracks.forEach(this.#visit);
    } finally {
      this.#visitFn = null;
    }
  }

  /** Drops every entity and the timeline (e.g. the room restarted with a new epoch). */
  clear(): void {
    this.#quiet = false;
    this.#tracks.forEach((tr) => this.#pool.push(tr));
    this.#tracks.clear();
    this.#clock.reset();
    this.#latest = -Infinity;
    this.#accepting = false;
  }

  readonly #visit = (tr: EntityTrack): void => {
    const kind = tr.sample(this.#visitTime, this.#forEachScratch, this.maxExtrapolationMs);
    if (kind !== SampleKind.None) this.#visitFn!(tr.id, this.#forEachScratch, kind);
  };

  readonly #sweep = (tr: EntityTrack, id: number): void => {
    if (tr.seen !== this.#snapshotIndex && tr.goneAt === Infinity) tr.goneAt = this.#pendingTime;
    // Once render time has passed its disappearance nothing will sample it again.
    if (tr.goneAt <= this.#clock.renderTime) {
      this.#tracks.delete(id);
      this.#pool.push(tr);
    }
  };
}
