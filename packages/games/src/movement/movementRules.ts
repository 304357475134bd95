/** Tunables of the movement room, in world units and seconds. */
export const MOVEMENT_RULES = {
  /** Walking speed (units/s) at full throttle. */
  speed: 200,
  /** Sprinting multiplies the speed. */
  sprintFactor: 1.5,
  /** Players are kept this far from the world edge. */
  margin: 8,
  /** Default world edge. */
  world: 2000,
} as const;
