import { PayloadReader, reject, type BinaryWriter, type InputRejection } from "@tikron/protocol";
import { FPS_RULES } from "./fpsRules";

/** First byte of an fps input payload. */
export const FpsInputKind = {
  Move: 1,
  Shot: 2,
} as const;

/**
 * One client step: the stick direction held for `dtMs` and the aim at its end. The server
 * moves the player `min(|d|, 1) × moveSpeed × dtMs` along `d`, so the distance a move asks for
 * is known before it is applied and can be charged to the player's move budget.
 */
export interface FpsMove {
  kind: "move";
  dx: number;
  dy: number;
  /** Step duration, 0..{@link FPS_RULES.maxStepMs} ms (0: aim-only update). */
  dtMs: number;
  /** Facing in radians, [0, 2π). */
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
  /** Shot direction in radians, [0, 2π). */
  aim: number;
}

export type FpsInput = FpsMove | FpsShot;

/** Wire size of a move: u8 kind=1, f32 dx, f32 dy, u8 dtMs, u16 aim (1/65536 turn). */
export const FPS_MOVE_BYTES = 12;
/** Wire size of a shot: u8 kind=2, f64 time (room ms), u16 aim (1/65536 turn). */
export const FPS_SHOT_BYTES = 11;

/** Latest shot time accepted (about 49 days of room time); anything later is garbage, not clock skew. */
const MAX_SHOT_TIME = 2 ** 32;
/** Largest accepted stick magnitude; a hair over 1 absorbs f32 rounding of unit vectors. */
const MAX_MAGNITUDE = 1.01;
const TAU = 2 * Math.PI;

/**
 * Appends a move payload to `w` without resetting or copying it (senders that reuse one writer
 * per input, like the load generator). `aim` may be any finite angle; it is wrapped.
 */
export function writeFpsMove(w: BinaryWriter, move: Omit<FpsMove, "kind">): BinaryWriter {
  return w.u8(FpsInputKind.Move).f32(move.dx).f32(move.dy).u8(move.dtMs).u16(aimToWire(move.aim));
}

/** Appends a shot payload to `w` (no reset, no copy). */
export function writeFpsShot(w: BinaryWriter, shot: Omit<FpsShot, "kind">): BinaryWriter {
  return w.u8(FpsInputKind.Shot).f64(shot.time).u16(aimToWire(shot.aim));
}

/** Encodes a move payload (client side). `aim` may be any finite angle; it is wrapped. */
export function encodeFpsMove(w: BinaryWriter, move: Omit<FpsMove, "kind">): Uint8Array {
  return writeFpsMove(w.reset(), move).toBytes();
}

/** Encodes a shot payload (client side). */
export function encodeFpsShot(w: BinaryWriter, shot: Omit<FpsShot, "kind">): Uint8Array {
  return writeFpsShot(w.reset(), shot).toBytes();
}

/**
 * Validates an fps payload. Refused as `bad_input`: wrong size or kind, NaN/Infinity, a stick
 * magnitude over 1.01, a step over {@link FPS_RULES.maxStepMs}, a negative or absurd shot time.
 * Magnitudes in (1, 1.01] are clamped to 1. Future shot times are not refused here: they are
 * clamped to now when the shot is resolved.
 */
export function decodeFpsInput(payload: unknown): FpsInput | InputRejection {
  if (!(payload instanceof Uint8Array)) return reject("bad_input", "fps input must be binary");
  if (payload.length === 0) return reject("bad_input", "empty fps input");
  const r = new PayloadReader(payload);
  const kind = r.u8();
  if (kind === FpsInputKind.Move) {
    if (payload.length !== FPS_MOVE_BYTES) return reject("bad_input", `fps move is ${FPS_MOVE_BYTES} bytes, got ${payload.length}`);
    let dx = r.f32();
    let dy = r.f32();
    const dtMs = r.u8();
    const aim = aimFromWire(r.u16());
    if (!Number.isFinite(dx) || !Number.isFinite(dy)) return reject("bad_input", "move direction is not finite");
    const mag = Math.hypot(dx, dy);
    if (mag > MAX_MAGNITUDE) return reject("bad_input", `move magnitude ${mag.toFixed(3)} exceeds 1`);
    if (mag > 1) {
      dx /= mag;
      dy /= mag;
    }
    if (dtMs > FPS_RULES.maxStepMs) return reject("bad_input", `move step of ${dtMs} ms exceeds ${FPS_RULES.maxStepMs} ms`);
    return { kind: "move", dx, dy, dtMs, aim };
  }
  if (kind === FpsInputKind.Shot) {
    if (payload.length !== FPS_SHOT_BYTES) return reject("bad_input", `fps shot is ${FPS_SHOT_BYTES} bytes, got ${payload.length}`);
    const time = r.f64();
    const aim = aimFromWire(r.u16());
    if (!Number.isFinite(time)) return reject("bad_input", "shot time is not finite");
    if (time < 0 || time > MAX_SHOT_TIME) return reject("bad_input", `shot time ${time} is out of range`);
    return { kind: "shot", time, aim };
  }
  return reject("bad_input", `unknown fps input kind ${kind}`);
}

/** An angle as 1/65536 turns (wrapped); non-finite angles become 0. */
function aimToWire(a: number): number {
  if (!Number.isFinite(a)) return 0;
  let t = a / TAU;
  t -= Math.floor(t);
  return Math.round(t * 65536) & 0xffff;
}

function aimFromWire(q: number): number {
  return (q * TAU) / 65536;
}
