import { CorrectionBlend, SNAP_DISTANCE } from "./correctionBlend";

/**
 * Turns a predicted own position that changes in steps (one per sent input, as in agar where
 * each input stands for one server tick) into a smooth on-screen position:
 *
 * - between inputs it interpolates from the previous prediction to the current one over one
 *   input interval (a fixed one-interval lag, but no stutter at any frame rate);
 * - when reconciliation moves the prediction, the jump is blended out by a
 *   {@link CorrectionBlend}, so a small misprediction slides into place instead of popping.
 *
 * The shown position is readable as {@link x}/{@link y} after {@link update}.
 */
export class OwnSmoothing {
  /** On-screen position after the last {@link update}. */
  x = 0;
  y = 0;
  /** False until the first prediction is known. */
  ready = false;
  private px = 0;
  private py = 0;
  private cx = 0;
  private cy = 0;
  private at = 0;
  private readonly blend = new CorrectionBlend();

  constructor(private intervalMs: number) {}

  /** Input interval (ms), i.e. the server tick (from the welcome). */
  setInterval(ms: number): void {
    if (ms > 0) this.intervalMs = ms;
  }

  /** A new input moved the prediction to (x, y) at local time `now`. */
  stepped(x: number, y: number, now: number): void {
    if (!this.ready) return this.reset(x, y, now);
    this.px = this.baseX(now);
    this.py = this.baseY(now);
    this.cx = x;
    this.cy = y;
    this.at = now;
  }

  /** Reconciliation replaced the prediction with (x, y). */
  corrected(x: number, y: number, now: number): void {
    if (!this.ready) return this.reset(x, y, now);
    const dx = x - this.cx;
    const dy = y - this.cy;
    if (dx === 0 && dy === 0) return;
    if (dx * dx + dy * dy > SNAP_DISTANCE * SNAP_DISTANCE) return this.reset(x, y, now);
    // The whole interpolation segment moves with the correction; the blend hides the jump.
    this.cx = x;
    this.cy = y;
    this.px += dx;
    this.py += dy;
    this.blend.corrected(dx, dy);
  }

  /** Jumps to (x, y) with no blending (first sight, respawn, rejoin). */
  reset(x: number, y: number, now: number): void {
    this.px = this.cx = this.x = x;
    this.py = this.cy = this.y = y;
    this.blend.clear();
    this.at = now;
    this.ready = true;
  }

  /** Forgets everything (the own entity is gone). */
  clear(): void {
    this.ready = false;
    this.blend.clear();
  }

  /** Computes the on-screen position for local time `now` (call once per render frame). */
  update(now: number): void {
    if (!this.ready) return;
    this.blend.update(now);
    this.x = this.baseX(now) + this.blend.x;
    this.y = this.baseY(now) + this.blend.y;
  }

  /** Size of the correction still being blended out (world units). */
  get pendingCorrection(): number {
    return this.blend.size;
  }

  private alpha(now: number): number {
    const a = (now - this.at) / this.intervalMs;
    return a <= 0 ? 0 : a >= 1 ? 1 : a;
  }

  private baseX(now: number): number {
    return this.px + (this.cx - this.px) * this.alpha(now);
  }

  private baseY(now: number): number {
    return this.py + (this.cy - this.py) * this.alpha(now);
  }
}
