import { f32At, reject, type BinaryWriter, type InputRejection } from "@tikron/protocol";

/**
 * The steering input shared by `agar` and `movement`: a direction whose magnitude is the
 * throttle (≤ 1) and one flag bit, named by the game (`F`: agar's `boost`, movement's
 * `sprint`). One wire layout, so any client or load generator that steers one room can steer
 * the other.
 */
export type Steering<F extends string> = { dx: number; dy: number } & { [K in F]: boolean };

/** Wire size of a steering payload: f32 dx, f32 dy, u8 flags (bit 0 = the flag). */
export const STEERING_INPUT_BYTES = 9;

/** Largest accepted steering magnitude; a little over 1 absorbs client float error. */
const MAX_MAGNITUDE = 1.5;

/**
 * Appends a steering payload to `w` without resetting or copying it: for senders that reuse
 * one writer per input (the load generator's hot path).
 */
export function writeSteering(w: BinaryWriter, dx: number, dy: number, flag: boolean): BinaryWriter {
  return w.f32(dx).f32(dy).u8(flag ? 1 : 0);
}

/** Encodes a steering payload (client side: SDK, demo, load tool). */
export function encodeSteering(w: BinaryWriter, dx: number, dy: number, flag: boolean): Uint8Array {
  return writeSteering(w.reset(), dx, dy, flag).toBytes();
}

/**
 * Validates a steering payload and returns it with its flag named `flag`: exact size, a
 * direction of magnitude ≤ 1.5 (clamped to 1; NaN and ±Infinity fail the bound), known flag
 * bits only. Anything else is refused as `bad_input`, the reason naming `what`.
 */
export function decodeSteering<F extends string>(payload: unknown, what: string, flag: F): Steering<F> | InputRejection {
  if (!(payload instanceof Uint8Array) || payload.length !== STEERING_INPUT_BYTES) {
    return reject("bad_input", `${what} must be ${STEERING_INPUT_BYTES} bytes`);
  }
  let dx = f32At(payload, 0);
  let dy = f32At(payload, 4);
  const flags = payload[8]!;
  const mag = Math.hypot(dx, dy);
  if (!(mag <= MAX_MAGNITUDE)) return reject("bad_input", `direction magnitude must be ≤ ${MAX_MAGNITUDE}, got ${mag}`);
  if (flags > 1) return reject("bad_input", `unknown flag bits ${flags}`);
  if (mag > 1) {
    dx /= mag;
    dy /= mag;
  }
  return { dx, dy, [flag]: flags === 1 } as Steering<F>;
}
