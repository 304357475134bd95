import { type BinaryWriter, type InputRejection } from "@tikron/protocol";
import { STEERING_INPUT_BYTES, decodeSteering, encodeSteering, writeSteering } from "../steeringInput";

/** One `movement` steering input: a direction (magnitude = throttle, ≤ 1) and sprint. */
export interface MovementInput {
  dx: number;
  dy: number;
  sprint: boolean;
}

/**
 * Wire size of a movement input payload: f32 dx, f32 dy, u8 flags (bit 0 = sprint) — the same
 * steering layout as agar's, so a client that steers agar can drive this room unchanged.
 */
export const MOVEMENT_INPUT_BYTES = STEERING_INPUT_BYTES;

/** Encodes a movement input payload (client side: SDK, demo, load tool). */
export function encodeMovementInput(w: BinaryWriter, input: MovementInput): Uint8Array {
  return encodeSteering(w, input.dx, input.dy, input.sprint);
}

/** Appends a movement input payload to `w` (no reset, no copy; see {@link writeSteering}). */
export function writeMovementInput(w: BinaryWriter, input: MovementInput): BinaryWriter {
  return writeSteering(w, input.dx, input.dy, input.sprint);
}

/** Validates a movement payload (see {@link decodeSteering}); refusals are `bad_input`. */
export function decodeMovementInput(payload: unknown): MovementInput | InputRejection {
  return decodeSteering(payload, "movement input", "sprint");
}
