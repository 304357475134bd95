/** How a viewer picks the center of what it sees. */
export const ViewerMode = {
  /** No center: sees global entities only (the default, e.g. before spawning). */
  Blind: 0,
  /** A fixed point (spectator camera, or where a followed entity was last seen). */
  Fixed: 1,
  /** An entity's position, usually the player's own. */
  Follow: 2,
} as const;

/**
 * Where one player looks from. Kept per player id by the {@link SyncWorld}, so it outlives
 * reconnects (a reconnecting client gets a new baseline but the same viewer). When a followed
 * entity is despawned the viewer stays fixed where it last saw it, until told otherwise.
 */
export class Viewer {
  /** Blind (sees only global entities), fixed at `center`, or following `target`. */
  mode: (typeof ViewerMode)[keyof typeof ViewerMode] = ViewerMode.Blind;
  /**
   * Center while fixed; last seen position of the target while following. A typed array, so
   * refreshing it every flush stores raw doubles instead of boxing them.
   */
  readonly center = new Float64Array(2);
  /** Followed entity id and its spawn serial (so a reused id is not followed by mistake). */
  target = -1;
  /** Spawn serial of the followed entity. */
  targetSerial = 0;
  /**
   * @internal Times {@link fixed} placed the centre. A followed viewer keeps a placed centre
   * while its target has none to track (a global entity, or one gone), so the world feed
   * writes a followed viewer again when this moves, even if it follows the same entity.
   */
  placements = 0;

  /** @internal Made by the world; use {@link SyncWorld.viewer}. */
  constructor(
    /** The player who looks. */
    readonly playerId: number,
    private readonly entities: { serialOf(id: number): number },
  ) {}

  /** See from entity `id` (usually the player's own); throws if it is not alive. */
  follow(id: number): this {
    const serial = this.entities.serialOf(id);
    if (serial === 0) throw new RangeError(`entity ${id} is not alive`);
    this.mode = ViewerMode.Follow;
    this.target = id;
    this.targetSerial = serial;
    return this;
  }

  /** See from a fixed point. */
  fixed(x: number, y: number): this {
    this.mode = ViewerMode.Fixed;
    this.center[0] = x;
    this.center[1] = y;
    this.target = -1;
    this.placements++;
    return this;
  }

  /** Current center x (meaningful unless blind). */
  get x(): number {
    return this.center[0];
  }

  /** Current center y (meaningful unless blind). */
  get y(): number {
    return this.center[1];
  }

  /**
   * @internal Brings a followed viewer to its target as of this flush (the encoder's
   * `beginFlush`, once per viewer): its centre to the target's position (a global target, or
   * one in no grid cell, has none, so the centre stays), or, the target gone, fixed where it
   * was last seen. Per flush rather than per encoded client: the centre is then the same in a
   * world whose clients are held back or never encoded (a relayed simulation encodes none)
   * and in every mirror of it, so what the feed writes of a viewer is what a mirror holds.
   */
  track(grid: { copyPosition(id: number, out: Float64Array): boolean }): void {
    if (this.mode !== ViewerMode.Follow) return;
    if (this.entities.serialOf(this.target) === this.targetSerial) {
      grid.copyPosition(this.target, this.center);
    } else {
      this.mode = ViewerMode.Fixed;
      this.target = -1;
    }
  }

  /** See global entities only (e.g. dead with no camera). */
  blind(): this {
    this.mode = ViewerMode.Blind;
    this.target = -1;
    return this;
  }
}
