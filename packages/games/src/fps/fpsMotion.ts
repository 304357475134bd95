import { stickScale } from "../stick";
import { FPS_RULES } from "./fpsRules";

/**
 * The fps movement rule, in one place: the room applies every move with {@link stepShooter} and
 * the client predicts with the same function, so with the same moves in the same order the
 * prediction equals the room's result. Imports nothing but the rule tables, so clients can
 * bundle it (exported by `@tikron/games/schemas`) without pulling in room code.
 */

/** The part of a player that movement reads and changes. */
export interface ShooterBody {
  x: number;
  y: number;
  /** 0 while dead: a dead player does not move. */
  hp: number;
}

/** A move's stick, as decoded (each axis −1..1; the step bounds its length to 1). */
export interface ShooterStick {
  readonly dx: number;
  readonly dy: number;
}

/**
 * Distance (world units) a full stick covers in `dtMs`: what a move of that length may travel.
 * The room charges it (times the stick's magnitude) to the speed budget.
 */
export function shooterStepLength(dtMs: number): number {
  return (FPS_RULES.moveSpeed * dtMs) / 1000;
}

/** Clamps one coordinate to where a player's centre may be in a `world`-sized arena. */
export function clampToArena(v: number, world: number): number {
  const lo = FPS_RULES.playerRadius;
  const hi = world - FPS_RULES.playerRadius;
  return v < lo ? lo : v > hi ? hi : v;
}

/**
 * Applies one move of `dtMs` with stick (dx, dy): `moveSpeed × dtMs` along the stick (scaled to a
 * length of at most 1, `stickScale`), clamped to the arena inset by the player radius; nothing
 * while dead.
 *
 * Writes into `out` and returns it; `out` may be `state` itself (the room moves its synced
 * record in place), and the prediction passes a fresh object.
 */
export function stepShooter<T extends ShooterBody>(state: Readonly<ShooterBody>, stick: ShooterStick, dtMs: number, world: number, out: T): T {
  out.hp = state.hp;
  if (state.hp === 0) {
    out.x = state.x;
    out.y = state.y;
    return out;
  }
  const step = shooterStepLength(dtMs) * stickScale(stick.dx, stick.dy);
  out.x = clampToArena(state.x + stick.dx * step, world);
  out.y = clampToArena(state.y + stick.dy * step, world);
  return out;
}
