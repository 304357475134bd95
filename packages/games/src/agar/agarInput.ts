import { BinaryReader, BinaryWriter } from "@tikron/protocol";
import { reject, type InputRejection } from "@tikron/core";

/** One `agar` steering input: a direction (magnitude = throttle, ≤ 1) and boost. */
export interface AgarInput {
  dx: number;
  dy: number;
  boost: boolean;
}

/** Wire size of an agar input payload: f32 dx, f32 dy, u8 flags. */
export const AGAR_INPUT_BYTES = 9;

/** Encodes an agar input payload (client side: SDK, demo, load tool). */
export function encodeAgarInput(w: BinaryWriter, input: AgarInput): Uint8Array {
  return w.reset().f32(input.dx).f32(input.dy).u8(input.boost ? 1 : 0).toBytes();
}

/** Largest accepted steering magnitude; a little over 1 absorbs client float error. */
const MAX_MAGNITUDE = 1.5;

/**
 * Validates an agar payload: exact size, finite components, magnitude ≤ 1.5 (clamped to 1),
 * known flag bits only. Anything else is refused as `bad_input` with the reason.
 */
export function decodeAgarInput(payload: unknown): AgarInput | InputRejection {
  if (!(payload instanceof Uint8Array)) return reject("bad_input", "agar input must be binary");
  if (payload.length !== AGAR_INPUT_BYTES) return reject("bad_input", `agar input is ${AGAR_INPUT_BYTES} bytes, got ${payload.length}`);
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
  return { dx, dy, boost: flags === 1 };
}
