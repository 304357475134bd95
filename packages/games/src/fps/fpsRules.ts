/** Tunables of the fps simulation, in world units, ms and seconds. */
export const FPS_RULES = {
  /** Default world edge and AOI radius (DEV_MODE `world` / `aoi` override them). */
  world: 2400,
  aoi: 600,
  /** Hit circle of a player. */
  playerRadius: 16,
  /** Top movement speed (units/s) at full stick. */
  moveSpeed: 220,
  /**
   * Longest client step one move may claim. A client whose frame took longer splits the step
   * (or drops the excess): a single huge step would be a teleport however honest.
   */
  maxStepMs: 100,
  /**
   * Move budget burst, as ms of full-speed movement: the arrival jitter tolerated (moves bunched
   * up after a network stall, 200 ms) plus one longest step (`maxStepMs`), because a step's
   * movement happens before it is sent: a packet delayed by J carries up to J + one step of
   * movement the bucket had no arrival time to refill for. A client is never refused for moves
   * it really made while its packets' latency varied by less than 200 ms (property-tested).
   */
  budgetBurstMs: 300,
  /**
   * Refill speed over the top speed. Covers client clocks running a little fast; a speed hack
   * gains at most this factor.
   */
  budgetSlack: 1.05,
  maxHp: 100,
  damage: 25,
  /** Hitscan range; rays also stop at the arena wall. */
  range: 900,
  respawnMs: 2000,
  /** Weapon rate: sustained shots/s and the burst a bunched-up arrival may carry. */
  fireRatePerSec: 8,
  fireBurst: 3,
  /**
   * Lag compensation depth: shots are resolved against targets as they were at the shot's
   * timestamp, but never further back than this. Older shots are resolved at the cap, so a
   * high-latency (or lying) client cannot hit what everyone else saw leave long ago.
   */
  rewindCapMs: 200,
} as const;
