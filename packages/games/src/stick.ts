import { quant, type Field } from "@tikron/protocol";

/*
 * The stick the steering games (agar, movement) and fps declare their inputs with, and the one
 * rule that bounds its length. Pure, so the rooms and a client's prediction share it.
 */

/** One stick axis step on the wire: 127 per unit, so 0, ±1 and every step between are exact. */
export const STICK_STEP = 1 / 127;

/** A stick axis, −1..1 in {@link STICK_STEP}s: 255 levels, one byte in an input. */
export function stickAxis(): Field<number> {
  return quant(-1, 1, STICK_STEP);
}

/**
 * The factor that brings a stick (dx, dy) to a length of at most 1: each axis is bounded by its
 * declaration, so a diagonal can reach √2 (and a quantized unit diagonal 1.002). Every step that
 * moves by a stick applies it, the room's and the client's prediction alike.
 */
export function stickScale(dx: number, dy: number): number {
  const len = Math.sqrt(dx * dx + dy * dy);
  return len > 1 ? 1 / len : 1;
}
