import type { ErrorName } from "./errorCodes";

/**
 * Why an input was refused; counted in `tk:stats` and reported to the sender as an ERROR frame.
 * It lives in the protocol (not the room core) because input codecs run on both sides: a game's
 * schema module decodes inputs in the room and encodes them in the browser, and the browser
 * bundle must not pull in room code to share the refusal shape.
 */
export interface InputRejection {
  /** Always true: tells a rejection apart from a decoded input. */
  rejected: true;
  /** An {@link ErrorName} the room reports the refusal under. */
  code: Extract<ErrorName, "bad_input" | "illegal_move" | "not_your_turn" | "speed_violation">;
  /** A short human-readable explanation, sent to the client with the error. */
  reason: string;
}

/** Builds an {@link InputRejection}: return it from `decodeInput` or `applyInput` to refuse. */
export function reject(code: InputRejection["code"], reason: string): InputRejection {
  return { rejected: true, code, reason };
}

/** True when a decode/apply result is an {@link InputRejection}. */
export function isRejection(v: unknown): v is InputRejection {
  return typeof v === "object" && v !== null && (v as InputRejection).rejected === true;
}
