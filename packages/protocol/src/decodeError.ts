/**
 * A frame that could not be decoded. Decoders throw this internally and return it at their
 * boundary, so callers branch on a value and nothing escapes into the room.
 */
export class DecodeError extends Error {
  /** Machine-readable cause: `truncated`, `unknown_kind`, `bad_value`, `too_large`, ... */
  readonly code: DecodeErrorCode;
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
