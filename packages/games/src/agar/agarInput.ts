import { bool, defineInput, type InputSchema } from "@tikron/protocol";
import { stickAxis } from "../stick";

/** One `agar` steering input: a direction (its length is the throttle, at most 1) and boost. */
export interface AgarInput {
  /** Stick x, −1..1 in 1/127 steps. */
  dx: number;
  /** Stick y, −1..1 in 1/127 steps. */
  dy: number;
  boost: boolean;
}

/**
 * agar's declared input: `u8 dx, u8 dy` (stick axes, −1..1 in 1/127 steps) and `bool boost`,
 * 3 bytes. Declared on `agarSchema`, so the codec, the typed `sendInput` and the room's
 * range checks all come from here; a client predicts with `quantizeInput(agarInputs, input)`,
 * what the room reads. A longer stick than 1 (a diagonal) is scaled down by the step
 * (`stepAgarCell`), not refused.
 */
export const agarInputs: InputSchema<AgarInput> = defineInput({ dx: stickAxis(), dy: stickAxis(), boost: bool() });
