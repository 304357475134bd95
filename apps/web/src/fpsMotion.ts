import { FPS } from "./gameRules";

/** The part of the own player the page predicts. */
export interface ShooterState {
  x: number;
  y: number;
  /** 0 while dead: the server ignores moves then. */
  hp: number;
}

/** One move as the server will apply it (after the wire's rounding). */
export interface ShooterMove {
  dx: number;
  dy: number;
  dtMs: number;
}

/** Default arena edge of an fps room (a DEV_MODE `world` override replaces it). */
export const FPS_DEFAULT_WORLD = FPS.defaultWorld;

/**
 * Applies one move exactly as the room does: `moveSpeed × dtMs` along the stick, clamped to
 * the arena inset by the player radius; nothing while dead. Moves are client steps, so with
 * the same moves in the same order the prediction equals the server's result.
 */
export function applyMove(s: ShooterState, m: ShooterMove, world: number = FPS_DEFAULT_WORLD): ShooterState {
  if (s.hp === 0) return s;
  const step = (FPS.moveSpeed * m.dtMs) / 1000;
  return { x: clampToArena(s.x + m.dx * step, world), y: clampToArena(s.y + m.dy * step, world), hp: s.hp };
}

/** Clamps a coordinate to where a player's centre may be. */
export function clampToArena(v: number, world: number): number {
  const lo = FPS.playerRadius;
  const hi = world - FPS.playerRadius;
  return v < lo ? lo : v > hi ? hi : v;
}

/** Distance between two predicted positions (the prediction error the overlay shows). */
export function shooterDistance(a: ShooterState, b: ShooterState): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** Longest render-frame step counted (ms): a hitch or a background tab is not a dash. */
const MAX_FRAME_MS = 100;

/**
 * Collects the stick of every render frame and hands it out as moves, one per send interval.
 *
 * Each frame adds `stick × frameTime`; a move is the average stick over whole milliseconds
 * (the wire's `dtMs` is an integer), and the fraction left over stays for the next move. So the
 * sum of sent moves is exactly the movement the frames showed, which lets the page draw its
 * own player at `prediction + pending()` with no added latency and no jump when a move goes
 * out, while sending ~30 messages/s instead of one per frame.
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

  /** Pending displacement (world units) along x / y, not yet part of any move. */
  pendingX(): number {
    return (this.sx * FPS.moveSpeed) / 1000;
  }

  pendingY(): number {
    return (this.sy * FPS.moveSpeed) / 1000;
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
