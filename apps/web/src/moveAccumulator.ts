import { shooterStepLength } from "@tikron/games/schemas";
import { FPS } from "./gameRules";

/** One move as the page sends it and the prediction replays it (after the wire's rounding). */
export interface ShooterMove {
  dx: number;
  dy: number;
  dtMs: number;
}

/** Longest render-frame step counted (ms): a hitch or a background tab is not a dash. */
const MAX_FRAME_MS = 100;

/**
 * Collects the stick of every render frame and hands it out as moves, one per send interval.
 *
 * Each frame adds `stick × frameTime`; a move is the average stick over whole milliseconds
 * (the wire's `dtMs` is an integer), and the fraction left over stays for the next move. So the
 * sum of sent moves is the movement the frames showed (to within the wire's stick step, 1/127
 * of a full stick: under 0.1 unit per move), which lets the page draw its own player at
 * `prediction + pending()` with no added latency and no visible jump when a move goes out,
 * while sending ~30 messages/s instead of one per frame.
 */
export class MoveAccumulator {
  private sx = 0;
  private sy = 0;
  private ms = 0;

  /** Adds one render frame of `frameMs` with stick (x, y), |stick| ≤ 1. */
  addFrame(x: number, y: number, frameMs: number): void {
    const dt = frameMs > MAX_FRAME_MS ? MAX_FRAME_MS : frameMs > 0 ? frameMs : 0;
    this.sx += x * dt;
    this.sy += y * dt;
    this.ms += dt;
  }

  /** Milliseconds collected and not yet sent. */
  get pendingMs(): number {
    return this.ms;
  }

  /** True when the collected frames moved at all. */
  get moving(): boolean {
    return this.sx !== 0 || this.sy !== 0;
  }

  /**
   * Pending displacement (world units) along x, not yet part of any move: the collected
   * stick-milliseconds at the movement rule's speed.
   */
  pendingX(): number {
    return shooterStepLength(this.sx);
  }

  /** Pending displacement (world units) along y; see {@link pendingX}. */
  pendingY(): number {
    return shooterStepLength(this.sy);
  }

  /**
   * Takes the next move into `out` (whole ms, at most the rules' step cap) and returns true,
   * or returns false when there is nothing to send. Time spent standing still is dropped, since
   * claiming it later would only waste the server's move budget.
   */
  take(out: ShooterMove): boolean {
    if (!this.moving) {
      this.ms = 0;
      return false;
    }
    const ms = Math.min(FPS.maxStepMs, Math.floor(this.ms));
    if (ms <= 0) return false;
    const dx = this.sx / this.ms;
    const dy = this.sy / this.ms;
    out.dx = dx;
    out.dy = dy;
    out.dtMs = ms;
    this.sx -= dx * ms;
    this.sy -= dy * ms;
    this.ms -= ms;
    // Float dust must not keep a still player "moving".
    if (Math.abs(this.sx) < 1e-9 && Math.abs(this.sy) < 1e-9) this.sx = this.sy = 0;
    return true;
  }

  /** Drops everything (death, rejoin). */
  clear(): void {
    this.sx = this.sy = this.ms = 0;
  }
}
