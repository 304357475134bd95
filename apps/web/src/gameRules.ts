/**
 * The few simulation constants the page needs for prediction and drawing.
 *
 * They live in the games' room logic, which clients must not import (`@tikron/games` would pull
 * whole rooms into the bundle; only `@tikron/games/schemas` is for clients). So the page keeps
 * this copy, and `test/unit/gameRules.test.ts` fails the moment it differs from the rooms'.
 */

/** agar: movement and size rules (see the room's `AGAR_RULES`). */
export const AGAR = {
  startRadius: 20,
  baseSpeed: 260,
  speedExponent: 0.45,
  boostFactor: 1.6,
  boostBurn: 4,
  orbRadius: 5,
  /** Arena edge when the room was created without a `world` override. */
  defaultWorld: 4000,
} as const;

/** fps: movement, weapon and arena rules (see the room's `FPS_RULES`). */
export const FPS = {
  playerRadius: 16,
  moveSpeed: 220,
  maxStepMs: 100,
  maxHp: 100,
  range: 900,
  fireRatePerSec: 8,
  /** Arena edge when the room was created without a `world` override. */
  defaultWorld: 2400,
} as const;
