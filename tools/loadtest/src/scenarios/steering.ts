import type { Rng } from "./rng";

/** Largest heading change per input (radians): a wandering, not jittering, player. */
export const MAX_TURN_RAD = 0.35;

/** A heading that drifts by a small random turn on every step. */
export interface Heading {
  angle: number;
}

/** A heading pointing anywhere. */
export function randomHeading(rng: Rng): Heading {
  return { angle: (rng.next() * 2 - 1) * Math.PI };
}

/** Turns by up to ±MAX_TURN_RAD, keeping the angle in [-π, π]. */
export function wander(h: Heading, rng: Rng): void {
  h.angle += (rng.next() * 2 - 1) * MAX_TURN_RAD;
  if (h.angle > Math.PI) h.angle -= 2 * Math.PI;
  else if (h.angle < -Math.PI) h.angle += 2 * Math.PI;
}
