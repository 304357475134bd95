import type { ErrorName } from "./errorCodes";

/**
 * Why an input was refused; counted in `tk:stats` and reported to the sender as an ERROR frame.
 * It lives in the protocol (not the room core) because input codecs run on both sides: a game's
 * schema module decodes inputs in the room and encodes them in the browser, and the browser
 * bundle must not pull in room code to share the refusal shape.
 */
export type InputRejection = Rejection<"bad_input" | "illegal_move" | "not_your_turn" | "speed_violation">;

/**
 * The one refusal shape of a game's code (an input's, a room message's): `C` is the set of
 * {@link ErrorName}s that kind of refusal may carry.
 */
export interface Rejection<C extends ErrorName> {
  /** Always true: tells a rejection apart from a value. */
  rejected: true;
  /** The {@link ErrorName} the sender gets and `tk:stats` counts it under. */
  code: C;
  /** A short human-readable explanation, sent with the refusal. */
  reason: string;
}

/** Builds an {@link InputRejection}: return it from `decodeInput` or `applyInput` to refuse. */
export function reject(code: InputRejection["code"], reason: string): InputRejection {
  return { rejected: true, code, reason };
}

/** True when a decode/apply result is an {@link InputRejection}. */
export function isRejection(v: unknown): v is InputRejection {
  return typeof v === "object" && v !== null && (v as Rejection<ErrorName>).rejected === true;
}
