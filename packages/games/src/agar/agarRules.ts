/** Tunables of the agar simulation, in world units and seconds. */
export const AGAR_RULES = {
  /** Arena edge when a room is created without a `world` override. */
  defaultWorld: 4000,
  startRadius: 20,
  maxRadius: 400,
  orbRadius: 5,
  /** Area an eaten orb adds, as a radius-equivalent: r' = sqrt(r² + orbGain²). */
  orbGain: 4,
  /** Speed at startRadius (units/s); larger cells are slower. */
  baseSpeed: 260,
  speedExponent: 0.45,
  boostFactor: 1.6,
  /** Boost burns mass: radius lost per second while boosting. */
  boostBurn: 4,
  /** A cell eats another when it is this much larger and covers its centre. */
  eatRatio: 1.15,
} as const;

/** Movement speed (units/s) of a cell of radius r. */
export function speedFor(r: number, boost: boolean): number {
  const s = AGAR_RULES.baseSpeed * Math.pow(AGAR_RULES.startRadius / r, AGAR_RULES.speedExponent);
  return boost ? s * AGAR_RULES.boostFactor : s;
}

/** Radius after absorbing a body of radius `eaten` (areas add). */
export function grow(r: number, eaten: number): number {
  return Math.min(AGAR_RULES.maxRadius, Math.sqrt(r * r + eaten * eaten));
}

/** True when a cell (x,y,r) can eat a cell (ox,oy,or): larger by the ratio and covering its centre. */
export function canEat(x: number, y: number, r: number, ox: number, oy: number, or: number): boolean {
  if (r < or * AGAR_RULES.eatRatio) return false;
  const dx = x - ox;
  const dy = y - oy;
  return dx * dx + dy * dy < r * r;
}
