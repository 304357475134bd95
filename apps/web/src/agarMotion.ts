import { AGAR } from "./gameRules";

/** The part of the own cell the page predicts. */
export interface CellState {
  x: number;
  y: number;
  r: number;
}

/** One input as the server will see it, plus the simulated time it covers. */
export interface CellStep {
  dx: number;
  dy: number;
  boost: boolean;
  /** Server tick length (ms): each input stands for one tick of steering. */
  dtMs: number;
}

/**
 * World edge the cell is clamped to. Rooms are created with the game's default edge unless a
 * DEV_MODE `world` override made them smaller; the page passes that override in. A wrong edge
 * only shows near walls, and reconciliation corrects it at the next frame.
 */
export const AGAR_DEFAULT_WORLD = AGAR.defaultWorld;

/** Movement speed (units/s) of a cell of radius `r`: the server's rule, from the same constants. */
export function cellSpeed(r: number, boost: boolean): number {
  const s = AGAR.baseSpeed * Math.pow(AGAR.startRadius / r, AGAR.speedExponent);
  return boost ? s * AGAR.boostFactor : s;
}

/**
 * Advances a cell by one input, exactly as the room's tick does (speed by radius, boost burning
 * mass, walls). Returns a new state; `state` is left alone, since it may be the decoder's.
 * Eating is not predicted: it needs the other entities, and growth shows a frame later anyway.
 */
export function stepCell(state: CellState, step: CellStep, world: number = AGAR_DEFAULT_WORLD): CellState {
  const dt = step.dtMs / 1000;
  const boosting = step.boost && state.r > AGAR.startRadius;
  const v = cellSpeed(state.r, boosting) * dt;
  const r = state.r;
  return {
    x: clamp(state.x + step.dx * v, r, world - r),
    y: clamp(state.y + step.dy * v, r, world - r),
    r: boosting ? Math.max(AGAR.startRadius, r - AGAR.boostBurn * dt) : r,
  };
}

/** Distance between two predicted positions (the prediction error the overlay shows). */
export function cellDistance(a: CellState, b: CellState): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}
