/**
 * The BUNDLE message: several whole FRAME messages in one WebSocket message, in the order they
 * were made, `[KIND_BUNDLE]` then, for each frame, `[length varuint][the FRAME's bytes]`. A FRAME's
 * delta body runs to the end of its message (it has no length of its own), so frames cannot simply
 * be concatenated: each is prefixed by its length, and a bundle is a list of messages a receiver
 * hands one by one to the decoder it already has. Nothing else is shared or compressed between
 * them: the bytes of each frame are exactly the bytes it would have travelled as alone.
 *
 * Why it exists: a spectator watching D seconds late (spectate.ts) needs each frame only by the
 * time it is shown, and a room that sends 1,000 spectators 20 frames a second is bound by the
 * number of socket sends, not by bytes. A spectator's lane (core/src/spectate) sends the frames of
 * the last few flushes together; the SDK's watch entry plays them out at their room times. Only
 * spectators get bundles (a player never does), and only delayed ones: an undelayed spectator
 * gets each FRAME as it is made. `decodeServerMessage` does not read them (`unknown_kind`): a
 * receiver splits a bundle with {@link readBundle} before decoding.
 */
import { DecodeError } from "./decodeError";
import type { BinaryWriter } from "./binaryWriter";
import { VaruintCursor, varuintError } from "./varuintCursor";
import { KIND_BUNDLE, KIND_FRAME } from "./wireCodes";

/** Most frames one BUNDLE may carry: a receiver refuses more (`too_large`). */
export const MAX_FRAMES_PER_BUNDLE = 64;

/** Starts a BUNDLE in `w` (reset by the caller): its kind byte. Append frames with {@link writeBundledFrame}. */
export function beginBundle<W extends BinaryWriter>(w: W): W {
  return w.u8(KIND_BUNDLE);
}

/**
 * Appends one whole FRAME message (its kind byte first) to a bundle: its length, then its bytes.
 * A sender may write these entries apart and copy them behind a {@link beginBundle} later.
 */
export function writeBundledFrame<W extends BinaryWriter>(w: W, frame: Uint8Array): W {
  return w.varuint(frame.length).bytes(frame);
}

/** True when `bytes` is a BUNDLE (its first byte). */
export function isBundle(bytes: Uint8Array): boolean {
  return bytes.length > 0 && bytes[0] === KIND_BUNDLE;
}

/**
 * Splits a BUNDLE into its frames: views into `bytes` (no copies), in order, each a whole FRAME
 * message for the frame decoder; or what was wrong with it. Refused: not a bundle (`bad_value`),
 * nothing or no frame at all (`truncated`), an entry that is not a FRAME or is empty (`bad_value`), a length
 * past the end (`truncated`), more than {@link MAX_FRAMES_PER_BUNDLE} frames (`too_large`).
 */
export function readBundle(bytes: Uint8Array): Uint8Array[] | DecodeError {
  const end = bytes.length;
  if (end > 0 && bytes[0] !== KIND_BUNDLE) return new DecodeError("bad_value", "not a BUNDLE");
  if (end < 2) return new DecodeError("truncated", "empty bundle");
  const c = new VaruintCursor();
  c.at = 1;
  const frames: Uint8Array[] = [];
  while (c.at < end) {
    if (frames.length === MAX_FRAMES_PER_BUNDLE) return new DecodeError("too_large", `over ${MAX_FRAMES_PER_BUNDLE} frames in one bundle`);
    const len = c.varuint(bytes);
    if (len < 0) return varuintError(len, c.at);
    if (c.at + len > end) return new DecodeError("truncated", `need ${len} bytes at ${c.at}, have ${end - c.at}`);
    if (len === 0 || bytes[c.at] !== KIND_FRAME) return new DecodeError("bad_value", `bundle entry ${frames.length} is not a FRAME`);
    frames.push(bytes.subarray(c.at, c.at + len));
    c.at += len;
  }
  return frames;
}

const timeCursor = new VaruintCursor();

/**
 * The room time of a FRAME message (its `time`, read past its kind, flags and tick, nothing
 * else), or -1 when its header does not read: what a receiver of a bundle plays its frames out
 * by, without decoding them yet.
 */
export function frameTime(frame: Uint8Array): number {
  const c = timeCursor;
  c.at = 2;
  if (frame.length < 2 || frame[0] !== KIND_FRAME || c.varuint(frame) < 0) return -1;
  const time = c.varuint(frame);
  return time < 0 ? -1 : time;
}
