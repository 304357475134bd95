import { bool, defineInput, type InputSchema } from "@tikron/protocol";
import { stickAxis } from "../stick";

/** One `movement` steering input: a direction (its length is the throttle, at most 1) and sprint. */
export interface MovementInput {
  /** Stick x, −1..1 in 1/127 steps. */
  dx: number;
  /** Stick y, −1..1 in 1/127 steps. */
  dy: number;
  sprint: boolean;
}

/**
 * movement's declared input: the same 3 bytes as agar's (`u8 dx, u8 dy, bool sprint`), so a
 * client that steers agar can drive this room unchanged. A stick longer than 1 is scaled down
 * by the room's step.
 */
export const movementInputs: InputSchema<MovementInput> = defineInput({ dx: stickAxis(), dy: stickAxis(), sprint: bool() });
