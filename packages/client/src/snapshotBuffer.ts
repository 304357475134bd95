/**
 * How a field moves between two snapshots.
 * - `linear`: straight-line interpolation, velocity extrapolation.
 * - `angle`: like linear, but the short way round a circle of `period` (default 2π, radians).
 * - `step`: no blending; the older snapshot's value until the next one is reached (health,
 *   colours, animation states).
 */
export type FieldInterp = "linear" | "angle" | "step";

/** One numeric field of an entity, by position in the values array. */
export interface FieldSpec {
  name: string;
  interp?: FieldInterp;
  /** Length of a full turn for `angle` fields. Default 2π. */
  period?: number;
}

/** What {@link SnapshotBuffer.sample} did to produce its value. */
export const SampleKind = {
  /** No value: unknown entity, not yet spawned at that time, or already gone. */
  None: 0,
  /** Blended between two snapshots, or exactly at one. */
  Interpolated: 1,
  /** Past the newest snapshot, projected along the last velocity (within the cap). */
  Extrapolated: 2,
  /** Past the extrapolation cap (or despawning): frozen. */
  Held: 3,
} as const;
export type SampleKind = (typeof SampleKind)[keyof typeof SampleKind];

/** Tunables of a {@link SnapshotBuffer}. */
export interface SnapshotBufferOptions {
  /** The numeric fields of every entity, in the order `setEntity` values use. */
  fields: readonly (string | FieldSpec)[];
  /** Server send interval (ms); the delay grows by this on each starvation. Default 50. */
  sendIntervalMs?: number;
  /** Lower edge of the interpolation-delay band (ms). Default 60. */
  minDelayMs?: number;
  /** Upper edge of the interpolation-delay band (ms). Default 200. */
  maxDelayMs?: number;
  /** Delay before any feedback (ms). Default two send intervals, clamped to the band. */
  initialDelayMs?: number;
  /** Longest velocity extrapolation past the newest snapshot before holding (ms). Default 50. */
  maxExtrapolationMs?: number;
  /** Snapshots kept per entity. Must cover the maximum delay at the send rate. Default 32. */
  historySize?: number;
  /** Time without starvation before the delay starts shrinking (ms). Default 3000. */
  stableMs?: number;
  /** Shrink rate of the delay while stable (ms per second). Default 5. */
  shrinkMsPerSec?: number;
  /** How far back arrival jitter is remembered when deciding how far to shrink (ms). Default 10 000. */
  jitterWindowMs?: number;
  /** Slack kept above the worst observed need when shrinking (ms). Default 5. */
  headroomMs?: number;
  /** Local monotonic clock (ms) used to stamp arrivals. Default `performance.now()`. */
  now?: () => number;
}

/** Rate at which a grown delay is taken up: render time runs at half speed until it is. */
const GROW_MS_PER_MS = 0.5;
/** Rate at which the arrival baseline follows a new best arrival (render time runs ±5 %). */
const BASE_SLEW_MS_PER_MS = 0.05;
/** An arrival this much earlier than the baseline means the local clock jumped: restart. */
const TIMELINE_RESET_MS = 1000;
/** Arrival records kept for the jitter window (an upper bound; the window is by time). */
const ARRIVAL_CAPACITY = 1024;

class Track {
  id = 0;
  head = 0;
  count = 0;
  /** True once the ring has wrapped: older history was dropped, not absent. */
  wrapped = false;
  seen = -1;
  goneAt = Infinity;
  readonly times: Float64Array;
  readonly values: Float64Array;
  constructor(history: number, fields: number) {
    this.times = new Float64Array(history);
    this.values = new Float64Array(history * fields);
  }
  clear(): void {
    this.head = 0;
    this.count = 0;
    this.wrapped = false;
    this.seen = -1;
    this.goneAt = Infinity;
  }
}

const defaultNow = (): number => performance.now();

/**
 * Snapshot interpolation for remote entities.
 *
 * Feed it every state frame (`beginSnapshot(serverTime)`, `setEntity(...)` for each entity
 * present, `endSnapshot()`); once per render frame call {@link update} for the render time, then
 * {@link sample} or {@link forEach} entities at that time. Nothing on the render path allocates.
 *
 * Render time follows the arrival timeline, not the synced server clock: it is
 * `localNow − baseline − delay`, where the baseline is the earliest arrival offset
 * (arrival − server time) seen in the jitter window. That removes clock offset and one-way
 * latency exactly, so the delay only has to cover send interval plus jitter, which is what the
 * 60–200 ms band is sized for.
 *
 * The delay adapts: each starvation (render time overtaking the newest snapshot) grows it by one
 * send interval; after `stableMs` without starvation it shrinks slowly, but never below the worst
 * interval-plus-lateness seen in the jitter window, so shrinking cannot undercut a jitter the
 * link has recently shown.
 */
export class SnapshotBuffer {
  /** Field layout, in `setEntity` order. */
  readonly fields: readonly Required<FieldSpec>[];
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxExtrapolationMs: number;
  readonly historySize: number;
  readonly stableMs: number;
  readonly shrinkMsPerSec: number;
  readonly jitterWindowMs: number;
  readonly headroomMs: number;
  private sendInterval: number;
  private readonly explicitInitialDelay: number | undefined;
  private readonly now: () => number;
  private readonly nFields: number;
  private readonly interpKind: Uint8Array;
  private readonly period: Float64Array;

  private readonly tracks = new Map<number, Track>();
  private readonly pool: Track[] = [];
  private readonly scratch: Float64Array;
  private readonly forEachScratch: Float64Array;

  // Arrival timeline.
  private readonly arrTime = new Float64Array(ARRIVAL_CAPACITY);
  private readonly arrOffset = new Float64Array(ARRIVAL_CAPACITY);
  private readonly arrNeedBase = new Float64Array(ARRIVAL_CAPACITY);
  private arrHead = 0;
  private arrCount = 0;
  private baseTarget = 0;
  private base = 0;
  private maxNeed = 0;

  private latest = -Infinity;
  private snapshotIndex = -1;
  private accepting = false;
  private pendingTime = 0;

  private delay: number;
  private delayTarget: number;
  private lastUpdate = NaN;
  private lastRender = -Infinity;
  private starvedNow = false;
  private starvationCount = 0;
  private lastStarveAt = -Infinity;
  private lastKind: SampleKind = SampleKind.None;

  // forEach state, kept in fields so the callback passed to Map.forEach is allocated once.
  private feTime = 0;
  private feFn: ((id: number, values: Float64Array, kind: SampleKind) => void) | null = null;

  constructor(options: SnapshotBufferOptions) {
    this.fields = options.fields.map((f) => {
      const spec = typeof f === "string" ? { name: f } : f;
      return { name: spec.name, interp: spec.interp ?? "linear", period: spec.period ?? 2 * Math.PI };
    });
    this.nFields = this.fields.length;
    this.interpKind = new Uint8Array(this.nFields);
    this.period = new Float64Array(this.nFields);
    this.fields.forEach((f, i) => {
      this.interpKind[i] = f.interp === "linear" ? 0 : f.interp === "angle" ? 1 : 2;
      this.period[i] = f.period;
    });
    this.minDelayMs = options.minDelayMs ?? 60;
    this.maxDelayMs = Math.max(this.minDelayMs, options.maxDelayMs ?? 200);
    this.maxExtrapolationMs = Math.max(0, options.maxExtrapolationMs ?? 50);
    this.historySize = Math.max(2, Math.floor(options.historySize ?? 32));
    this.stableMs = options.stableMs ?? 3000;
    this.shrinkMsPerSec = options.shrinkMsPerSec ?? 5;
    this.jitterWindowMs = options.jitterWindowMs ?? 10_000;
    this.headroomMs = options.headroomMs ?? 5;
    this.sendInterval = options.sendIntervalMs ?? 50;
    this.explicitInitialDelay = options.initialDelayMs;
    this.now = options.now ?? defaultNow;
    this.scratch = new Float64Array(this.nFields);
    this.forEachScratch = new Float64Array(this.nFields);
    this.delay = this.delayTarget = this.initialDelay();
  }

  /** Index of a field by name (for readable `values[X]` access), or -1. */
  fieldIndex(name: string): number {
    return this.fields.findIndex((f) => f.name === name);
  }

  /** Current interpolation delay (ms). */
  get delayMs(): number {
    return this.delay;
  }

  /** The delay the buffer is moving toward (ms). */
  get targetDelayMs(): number {
    return this.delayTarget;
  }

  /** Starvation episodes so far: render time overtook the newest snapshot. */
  get starvations(): number {
    return this.starvationCount;
  }

  /** True while render time is past the newest snapshot. */
  get starved(): boolean {
    return this.starvedNow;
  }

  /** Server time of the newest snapshot, or -Infinity before the first. */
  get latestTime(): number {
    return this.latest;
  }

  /** Render time computed by the last {@link update}. */
  get renderTime(): number {
    return this.lastRender;
  }

  /** Lowest delay the buffer would currently shrink to (ms): recent worst need plus headroom. */
  get floorDelayMs(): number {
    return this.floor();
  }

  /** How {@link sample} produced its last result. */
  get lastSampleKind(): SampleKind {
    return this.lastKind;
  }

  /** Entities tracked (present, or gone but still inside the render window). */
  get size(): number {
    return this.tracks.size;
  }

  /** Server send interval (ms): the step by which a starvation grows the delay. */
  get sendIntervalMs(): number {
    return this.sendInterval;
  }

  /**
   * Sets the server's send interval (from the welcome). Before the first snapshot this also
   * re-derives the initial delay, which defaults to two intervals.
   */
  setSendInterval(ms: number): void {
    if (!(ms > 0)) return;
    this.sendInterval = ms;
    if (this.arrCount === 0 && this.starvationCount === 0) this.delay = this.delayTarget = this.initialDelay();
  }

  /**
   * Starts the snapshot for server time `serverTime` (room ms), received at local `receivedAt`.
   * Returns false, and ignores the following `setEntity` calls, for a snapshot not newer than
   * the newest one (a duplicate, or one from before a reconnect).
   */
  beginSnapshot(serverTime: number, receivedAt: number = this.now()): boolean {
    if (!(serverTime > this.latest) || !Number.isFinite(serverTime)) {
      this.accepting = false;
      return false;
    }
    this.recordArrival(serverTime, receivedAt);
    this.latest = serverTime;
    this.pendingTime = serverTime;
    this.snapshotIndex++;
    this.accepting = true;
    return true;
  }

  /**
   * Records one entity present in the current snapshot. `values` follows {@link fields}; it is
   * copied, so the caller may reuse one array for every entity.
   */
  setEntity(id: number, values: ArrayLike<number>): void {
    if (!this.accepting) return;
    let tr = this.tracks.get(id);
    if (tr === undefined) {
      tr = this.pool.pop() ?? new Track(this.historySize, this.nFields);
      tr.clear();
      tr.id = id;
      this.tracks.set(id, tr);
    } else if (tr.goneAt !== Infinity) {
      // Back after an absence (e.g. re-entered the area of interest): blending across the gap
      // would slide it over the map, so it starts a fresh history.
      tr.clear();
    }
    const slot = tr.head;
    tr.times[slot] = this.pendingTime;
    const base = slot * this.nFields;
    for (let f = 0; f < this.nFields; f++) tr.values[base + f] = values[f];
    tr.head = (slot + 1) % this.historySize;
    if (tr.count < this.historySize) tr.count++;
    else tr.wrapped = true;
    tr.seen = this.snapshotIndex;
  }

  /** Ends the current snapshot: entities not set in it are gone from its time on. */
  endSnapshot(): void {
    if (!this.accepting) return;
    this.accepting = false;
    this.tracks.forEach(this.sweep);
  }

  /**
   * Advances the render clock to local time `localNow` (call once per render frame) and
   * returns the render time in server room ms; -Infinity before the first snapshot.
   */
  update(localNow: number = this.now()): number {
    if (this.arrCount === 0) {
      this.lastUpdate = localNow;
      return this.lastRender;
    }
    const dt = Number.isNaN(this.lastUpdate) ? 0 : Math.max(0, localNow - this.lastUpdate);
    this.lastUpdate = localNow;

    const baseStep = dt * BASE_SLEW_MS_PER_MS;
    const db = this.baseTarget - this.base;
    this.base += db > baseStep ? baseStep : db < -baseStep ? -baseStep : db;

    if (!this.starvedNow && localNow - this.lastStarveAt >= this.stableMs) {
      const floor = this.floor();
      if (this.delayTarget > floor) this.delayTarget = floor;
    }
    if (this.delay < this.delayTarget) {
      this.delay = Math.min(this.delayTarget, this.delay + dt * GROW_MS_PER_MS);
    } else if (this.delay > this.delayTarget) {
      this.delay = Math.max(this.delayTarget, this.delay - (dt * this.shrinkMsPerSec) / 1000);
    }

    let rt = localNow - this.base - this.delay;
    if (rt < this.lastRender) rt = this.lastRender;
    this.lastRender = rt;

    if (rt > this.latest) {
      if (!this.starvedNow) {
        this.starvedNow = true;
        this.starvationCount++;
        this.delayTarget = Math.min(this.maxDelayMs, Math.max(this.delayTarget, this.delay) + this.sendInterval);
      }
      this.lastStarveAt = localNow;
    } else if (this.starvedNow) {
      this.starvedNow = false;
      this.lastStarveAt = localNow;
    }
    return rt;
  }

  /**
   * The entity's fields at `renderTime`, written into `out` (default: a scratch array owned by
   * the buffer, valid until the next call). Returns null when the entity has no value then.
   * {@link lastSampleKind} says whether the value was interpolated, extrapolated or held.
   */
  sample(entityId: number, renderTime: number, out: Float64Array = this.scratch): Float64Array | null {
    const tr = this.tracks.get(entityId);
    if (tr === undefined) {
      this.lastKind = SampleKind.None;
      return null;
    }
    this.lastKind = this.sampleTrack(tr, renderTime, out);
    return this.lastKind === SampleKind.None ? null : out;
  }

  /**
   * Calls `fn` for every entity that has a value at `renderTime`. `values` is a scratch array
   * reused between calls; copy what must outlive the callback.
   */
  forEach(renderTime: number, fn: (id: number, values: Float64Array, kind: SampleKind) => void): void {
    this.feTime = renderTime;
    this.feFn = fn;
    try {
      this.tracks.forEach(this.visit);
    } finally {
      this.feFn = null;
    }
  }

  /** Drops every entity and the timeline (e.g. the room restarted with a new epoch). */
  clear(): void {
    this.tracks.forEach((tr) => this.pool.push(tr));
    this.tracks.clear();
    this.arrHead = 0;
    this.arrCount = 0;
    this.latest = -Infinity;
    this.lastRender = -Infinity;
    this.lastUpdate = NaN;
    this.starvedNow = false;
    this.accepting = false;
  }

  private readonly visit = (tr: Track): void => {
    const kind = this.sampleTrack(tr, this.feTime, this.forEachScratch);
    if (kind !== SampleKind.None) this.feFn!(tr.id, this.forEachScratch, kind);
  };

  private readonly sweep = (tr: Track, id: number): void => {
    if (tr.seen !== this.snapshotIndex && tr.goneAt === Infinity) tr.goneAt = this.pendingTime;
    // Once render time has passed its disappearance nothing will sample it again.
    if (tr.goneAt <= this.lastRender) {
      this.tracks.delete(id);
      this.pool.push(tr);
    }
  };

  private initialDelay(): number {
    const d = this.explicitInitialDelay ?? 2 * this.sendInterval;
    return Math.min(this.maxDelayMs, Math.max(this.minDelayMs, d));
  }

  private floor(): number {
    return Math.min(this.maxDelayMs, Math.max(this.minDelayMs, this.maxNeed + this.headroomMs));
  }

  private recordArrival(serverTime: number, receivedAt: number): void {
    const offset = receivedAt - serverTime;
    if (this.arrCount > 0 && offset < this.base - TIMELINE_RESET_MS) {
      // Arriving far *earlier* than ever can only mean the local clock stood still while the
      // server's ran (a suspended device): the old baseline means nothing now. Arriving late is
      // a network stall and is left to starvation feedback.
      this.arrCount = 0;
      this.lastRender = -Infinity;
    }
    const prevTime = this.arrCount > 0 ? this.arrTime[(this.arrHead - 1 + ARRIVAL_CAPACITY) % ARRIVAL_CAPACITY] : NaN;
    const gap = Number.isNaN(prevTime) ? this.sendInterval : serverTime - prevTime;
    const i = this.arrHead;
    this.arrTime[i] = serverTime;
    this.arrOffset[i] = offset;
    // need = gap + (offset − baseline); stored without the baseline, which is subtracted later.
    this.arrNeedBase[i] = gap + offset;
    this.arrHead = (i + 1) % ARRIVAL_CAPACITY;
    if (this.arrCount < ARRIVAL_CAPACITY) this.arrCount++;
    const first = this.arrCount === 1;

    // Recompute baseline and worst need over the window: once per snapshot, O(window).
    let minOffset = Infinity;
    let maxNeedBase = -Infinity;
    let kept = 0;
    for (let k = 0; k < this.arrCount; k++) {
      const j = (this.arrHead - 1 - k + ARRIVAL_CAPACITY) % ARRIVAL_CAPACITY;
      if (serverTime - this.arrTime[j] > this.jitterWindowMs) break;
      kept++;
      if (this.arrOffset[j] < minOffset) minOffset = this.arrOffset[j];
      if (this.arrNeedBase[j] > maxNeedBase) maxNeedBase = this.arrNeedBase[j];
    }
    this.arrCount = kept;
    this.baseTarget = minOffset;
    if (first) {
      this.base = minOffset;
      // Jitter not yet seen cannot be ruled out: no shrinking for a stable period from the start.
      this.lastStarveAt = receivedAt;
    }
    let need = maxNeedBase - minOffset;
    // A gap far beyond the band is an outage, not jitter: no delay in the band would cover it,
    // and remembering it would pin the delay at the top for the whole window.
    if (need > 2 * this.maxDelayMs) need = this.recomputeNeedWithoutOutages(minOffset);
    this.maxNeed = need;
  }

  private recomputeNeedWithoutOutages(minOffset: number): number {
    let worst = 0;
    for (let k = 0; k < this.arrCount; k++) {
      const j = (this.arrHead - 1 - k + ARRIVAL_CAPACITY) % ARRIVAL_CAPACITY;
      const n = this.arrNeedBase[j] - minOffset;
      if (n <= 2 * this.maxDelayMs && n > worst) worst = n;
    }
    return worst;
  }

  private sampleTrack(tr: Track, t: number, out: Float64Array): SampleKind {
    if (tr.count === 0 || t >= tr.goneAt || Number.isNaN(t)) return SampleKind.None;
    const H = this.historySize;
    const F = this.nFields;
    const newest = (tr.head - 1 + H) % H;
    const oldest = (tr.head - tr.count + H) % H;
    const tNewest = tr.times[newest];

    if (t >= tNewest) {
      const dt = t - tNewest;
      const nb = newest * F;
      if (dt === 0 || tr.count < 2 || tr.goneAt !== Infinity) {
        for (let f = 0; f < F; f++) out[f] = tr.values[nb + f];
        return dt === 0 ? SampleKind.Interpolated : SampleKind.Held;
      }
      const prev = (newest - 1 + H) % H;
      const pb = prev * F;
      const span = tNewest - tr.times[prev];
      const e = dt < this.maxExtrapolationMs ? dt : this.maxExtrapolationMs;
      for (let f = 0; f < F; f++) {
        const b = tr.values[nb + f];
        const kind = this.interpKind[f];
        if (kind === 2 || span <= 0) {
          out[f] = b;
          continue;
        }
        const d = kind === 1 ? shortDelta(tr.values[pb + f], b, this.period[f]) : b - tr.values[pb + f];
        out[f] = b + (d / span) * e;
      }
      return dt <= this.maxExtrapolationMs ? SampleKind.Extrapolated : SampleKind.Held;
    }

    if (t < tr.times[oldest]) {
      // Before its first snapshot it did not exist yet; before dropped history, clamp.
      if (!tr.wrapped) return SampleKind.None;
      const ob = oldest * F;
      for (let f = 0; f < F; f++) out[f] = tr.values[ob + f];
      return SampleKind.Held;
    }

    // Walk back from the newest: render time sits a few snapshots behind it.
    let b = newest;
    let a = (b - 1 + H) % H;
    while (tr.times[a] > t) {
      b = a;
      a = (a - 1 + H) % H;
    }
    const ta = tr.times[a];
    const ab = a * F;
    if (t === ta) {
      for (let f = 0; f < F; f++) out[f] = tr.values[ab + f];
      return SampleKind.Interpolated;
    }
    const bb = b * F;
    const alpha = (t - ta) / (tr.times[b] - ta);
    for (let f = 0; f < F; f++) {
      const va = tr.values[ab + f];
      const kind = this.interpKind[f];
      if (kind === 2) out[f] = va;
      else if (kind === 1) out[f] = va + shortDelta(va, tr.values[bb + f], this.period[f]) * alpha;
      else out[f] = va + (tr.values[bb + f] - va) * alpha;
    }
    return SampleKind.Interpolated;
  }
}

/** Signed difference b − a the short way round a circle of length `period`. */
function shortDelta(a: number, b: number, period: number): number {
  let d = (b - a) % period;
  if (d > period / 2) d -= period;
  else if (d < -period / 2) d += period;
  return d;
}
