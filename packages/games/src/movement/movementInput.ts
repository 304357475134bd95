import { reject, type InputRejection } from "@tikron/core";
import { BinaryReader, type BinaryWriter } from "@tikron/protocol";

/** One `movement` steering input: a direction (magnitude = throttle, ≤ 1) and sprint. */
export interface MovementInput {
  dx: number;
  dy: number;
  sprint: boolean;
}

/**
 * Wire size of a movement input payload: f32 dx, f32 dy, u8 flags (bit 0 = sprint). The layout
 * is byte-for-byte agar's steering input, so a client or load generator that speaks agar can
 * drive this room unchanged (agar's boost flag is the sprint flag here).
 */
export const MOVEMENT_INPUT_BYTES = 9;

/** Encodes a movement input payload (client side: SDK, demo, load tool). */
export function encodeMovementInput(w: BinaryWriter, input: MovementInput): Uint8Array {
  return w.reset().f32(input.dx).f32(input.dy).u8(input.sprint ? 1 : 0).toBytes();
}

/** Largest accepted steering magnitude; a little over 1 absorbs client float error. */
const MAX_MAGNITUDE = 1.5;

/**
 * Validates a movement payload: exact size, finite components, magnitude ≤ 1.5 (clamped to 1),
 * known flag bits only. Anything else is refused as `bad_input` with the reason.
 */
export function decodeMovementInput(payload: unknown): MovementInput | InputRejection {
  if (!(payload instanceof Uint8Array)) return reject("bad_input", "movement input must be binary");
  if (payload.length !== MOVEMENT_INPUT_BYTES) {
    return reject("bad_input", `movement input is ${MOVEMENT_INPUT_BYTES} bytes, got ${payload.length}`);
  }
  const r = new BinaryReader(payload);
  let dx = r.f32();
  let dy = r.f32();
  const flags = r.u8();
  if (!Number.isFinite(dx) || !Number.isFinite(dy)) return reject("bad_input", "direction is not finite");
  if (flags > 1) return reject("bad_input", `unknown flag bits ${flags}`);
  const mag = Math.hypot(dx, dy);
  if (mag > MAX_MAGNITUDE) return reject("bad_input", `direction magnitude ${mag.toFixed(2)} exceeds ${MAX_MAGNITUDE}`);
  if (mag > 1) {
    dx /= mag;
    dy /= mag;
  }
  return { dx, dy, sprint: flags === 1 };
}
