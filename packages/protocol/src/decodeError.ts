/**
 * A frame that could not be decoded. Decoders throw this internally and return it at their
 * boundary, so callers branch on a value and nothing escapes into the room. What a browser
 * bundles (the reader, the server messages, the delta view, fields and events) says why in a
 * short detail code and the numbers that matter (`past_end 4@9`; docs/sdk.md lists them), not
 * in prose: every word of it ships in each game's page.
 */
export class DecodeError extends Error {
  // Declared, not defined: as an ES2022 class field the name would be emitted twice (see Field).
  /** Machine-readable cause: `truncated`, `unknown_kind`, `bad_value`, `too_large`, ... */
  declare readonly code: DecodeErrorCode;
  constructor(code: DecodeErrorCode, message: string) {
    super(message);
    this.name = "DecodeError";
    this.code = code;
  }
}

/** Why a frame or body failed to decode. */
export type DecodeErrorCode =
  | "truncated"
  | "unknown_kind"
  | "bad_value"
  | "too_large"
  | "trailing_bytes"
  | "bad_json"
  | "schema_mismatch";

/** Type guard for decode results. */
export function isDecodeError(v: unknown): v is DecodeError {
  return v instanceof DecodeError;
}
