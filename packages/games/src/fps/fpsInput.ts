import { defineInputs, f64, quant, quantAngle, type InputSchema } from "@tikron/protocol";
import { stickAxis } from "../stick";
import { FPS_RULES } from "./fpsRules";

/**
 * One client step: the stick direction held for `dtMs` and the aim at its end. The server
 * moves the player `min(|d|, 1) × moveSpeed × dtMs` along `d`, so the distance a move asks for
 * is known before it is applied and can be charged to the player's move budget.
 */
export interface FpsMove {
  kind: "move";
  /** Stick x, −1..1 in 1/127 steps. */
  dx: number;
  /** Stick y, −1..1 in 1/127 steps. */
  dy: number;
  /** Step duration, 0..{@link FPS_RULES.maxStepMs} whole ms (0: aim-only update). */
  dtMs: number;
  /** Facing in radians, [0, 2π) in 1/65536 turns (any finite angle is wrapped). */
  aim: number;
}

/** One hitscan shot, fired from the shooter's position after all its earlier moves. */
export interface FpsShot {
  kind: "shot";
  /**
   * Room time (ms since the welcome's `roomEpoch`, fractional) of the world the shooter was
   * looking at when it fired: its estimate of the server clock minus its interpolation delay.
   * Targets are rewound to this time, at most {@link FPS_RULES.rewindCapMs} back.
   */
  time: number;
  /** Shot direction in radians, [0, 2π) in 1/65536 turns. */
  aim: number;
}

/** An fps input: a move or a shot. */
export type FpsInput = FpsMove | FpsShot;

/** Latest shot time a room takes (about 49 days of room time); anything later is garbage, not clock skew. */
export const FPS_MAX_SHOT_TIME = 2 ** 32;

/**
 * fps's declared inputs, two kinds (a `u8` tag first):
 * - `move` (6 bytes): `u8 dx, u8 dy` (stick axes, −1..1 in 1/127 steps), `u8 dtMs`
 *   (0..{@link FPS_RULES.maxStepMs}), `u16 aim` (1/65536 turn);
 * - `shot` (11 bytes): `f64 time` (room ms, 0..2^32, refused if NaN, infinite or outside),
 *   `u16 aim`.
 * The room reads them with `readInput` (every range checked, the field named in a refusal); a
 * client predicts with `quantizeInput(fpsInputs, move)`. A stick longer than 1 is scaled down by
 * the step (`stepShooter`) and charged as 1. Future shot times are not refused: they are clamped
 * to now when the shot is resolved.
 */
export const fpsInputs: InputSchema<FpsInput> = defineInputs({
  move: { dx: stickAxis(), dy: stickAxis(), dtMs: quant(0, FPS_RULES.maxStepMs, 1), aim: quantAngle(16) },
  shot: { time: f64(0, FPS_MAX_SHOT_TIME), aim: quantAngle(16) },
});
