import { type BinaryWriter, type InputRejection } from "@tikron/protocol";
import { STEERING_INPUT_BYTES, decodeSteering, encodeSteering, writeSteering } from "../steeringInput";

/** One `agar` steering input: a direction (magnitude = throttle, ≤ 1) and boost. */
export interface AgarInput {
  dx: number;
  dy: number;
  boost: boolean;
}

/** Wire size of an agar input payload: f32 dx, f32 dy, u8 flags (bit 0 = boost). */
export const AGAR_INPUT_BYTES = STEERING_INPUT_BYTES;

/** Encodes an agar input payload (client side: SDK, demo, load tool). */
export function encodeAgarInput(w: BinaryWriter, input: AgarInput): Uint8Array {
  return encodeSteering(w, input.dx, input.dy, input.boost);
}

/** Appends an agar input payload to `w` (no reset, no copy; see {@link writeSteering}). */
export function writeAgarInput(w: BinaryWriter, input: AgarInput): BinaryWriter {
  return writeSteering(w, input.dx, input.dy, input.boost);
}

/** Validates an agar payload (see {@link decodeSteering}); refusals are `bad_input`. */
export function decodeAgarInput(payload: unknown): AgarInput | InputRejection {
  return decodeSteering(payload, "agar input", "boost");
}
