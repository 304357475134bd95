/** Time constant of the blend (ms): a misprediction fades out over ~3× this. */
const CORRECTION_TAU_MS = 80;
/** A correction larger than this (world units) is a teleport (respawn, eaten): shown at once. */
export const SNAP_DISTANCE = 120;

/**
 * Hides small reconciliation corrections of the own avatar: when the prediction jumps by d,
 * the avatar is drawn at `prediction + offset` with the offset starting at −d and decaying
 * exponentially, so it slides into place instead of popping. Large jumps are real teleports
 * and are not blended.
 */
export class CorrectionBlend {
  /** Current offset to add to the predicted position (world units). */
  x = 0;
  y = 0;
  private lastUpdate = NaN;

  /** The prediction moved by (dx, dy) because of a correction. */
  corrected(dx: number, dy: number): void {
    if (dx * dx + dy * dy > SNAP_DISTANCE * SNAP_DISTANCE) return this.clear();
    this.x -= dx;
    this.y -= dy;
  }

  /** Decays the offset to local time `now` (once per render frame). */
  update(now: number): void {
    const dt = Number.isNaN(this.lastUpdate) ? 0 : Math.max(0, now - this.lastUpdate);
    this.lastUpdate = now;
    const k = Math.exp(-dt / CORRECTION_TAU_MS);
    this.x *= k;
    this.y *= k;
  }

  /** Size of the correction still being blended out (world units). */
  get size(): number {
    return Math.hypot(this.x, this.y);
  }

  /** Drops any offset. */
  clear(): void {
    this.x = this.y = 0;
  }
}
