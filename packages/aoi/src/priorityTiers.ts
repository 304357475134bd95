/** One ring of interest: entities within `radius` of the viewer are refreshed every `every` flushes. */
export interface PriorityTier {
  /** Outer radius of the ring, in world units. */
  radius: number;
  /** Refresh period in flushes (1 = every flush). */
  every: number;
}

/**
 * Distance-based refresh tiers, e.g. `[{ radius: 300, every: 1 }, { radius: 600, every: 4 }]`:
 * near entities go out every flush, far ones every 4th. The outermost radius is the AOI radius.
 * Each viewer gets its own phase so far-tier traffic spreads over flushes instead of spiking
 * on one. Enters and leaves are not subject to tiers: they go out at once.
 *
 * Extension point: a per-client byte budget would replace the yes/no {@link isDue} with a
 * priority accumulator per (client, entity): each flush adds `1 / every` of the entity's tier
 * (times a game weight), the encoder sends changed entities in descending accumulated priority
 * until the budget is spent, and sending resets an entity's accumulator. The encoder calls
 * this class at exactly one place per visible entity, which is where that selection goes.
 */
export class PriorityTiers {
  /** The tiers, innermost first. */
  readonly tiers: readonly PriorityTier[];
  /** The outermost radius: how far a viewer sees at all. */
  readonly radius: number;
  private readonly r2: Float64Array;
  private readonly every: Int32Array;

  constructor(tiers: readonly PriorityTier[]) {
    if (tiers.length === 0) throw new RangeError("at least one priority tier is required");
    const sorted = [...tiers].sort((a, b) => a.radius - b.radius);
    for (const t of sorted) {
      if (!(t.radius >= 0)) throw new RangeError(`tier radius must be >= 0, got ${t.radius}`);
      if (!Number.isInteger(t.every) || t.every < 1) throw new RangeError(`tier every must be a positive integer, got ${t.every}`);
    }
    this.tiers = sorted.map((t) => ({ radius: t.radius, every: t.every }));
    this.radius = sorted[sorted.length - 1].radius;
    this.r2 = Float64Array.from(sorted, (t) => t.radius * t.radius);
    this.every = Int32Array.from(sorted, (t) => t.every);
  }

  /** The tier of an entity at squared distance `dist2` (inclusive radii), or -1 beyond all. */
  tierOf(dist2: number): number {
    const r2 = this.r2;
    for (let i = 0; i < r2.length; i++) if (dist2 <= r2[i]) return i;
    return -1;
  }

  /** Refresh period of tier `tier`. */
  everyOf(tier: number): number {
    return this.every[tier];
  }

  /** Whether an entity in `tier` is refreshed at `flushIndex` for a viewer with `phase`. */
  isDue(tier: number, flushIndex: number, phase: number): boolean {
    const every = this.every[tier];
    return every === 1 || (flushIndex + phase) % every === 0;
  }

  /** Whether an entity at squared distance `dist2` is refreshed at `flushIndex` for `phase`. */
  isDueAt(dist2: number, flushIndex: number, phase: number): boolean {
    const r2 = this.r2;
    for (let i = 0; i < r2.length; i++) {
      if (dist2 <= r2[i]) {
        const every = this.every[i];
        return every === 1 || (flushIndex + phase) % every === 0;
      }
    }
    return false;
  }

  /** A well-spread, non-negative phase for a viewer key (e.g. a player id). */
  static phaseFor(key: number): number {
    return (Math.imul(key | 0, 0x9e3779b1) >>> 8) & 0xffff;
  }
}
