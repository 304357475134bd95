import { MAX_CLIENT_FRAME_BYTES, MAX_INPUTS_PER_FRAME, MAX_INPUT_PAYLOAD_BYTES } from "./constants";
import { DecodeError } from "./decodeError";
import { VaruintCursor, varuintError } from "./varuintCursor";
import { KIND_INPUT } from "./wireCodes";

/** One client input: a sequence number and the game's encoded payload. */
export interface InputEntry {
  /** Sequence number, strictly increasing per seat; acks refer to it. */
  seq: number;
  /** The game's encoded input (≤ {@link MAX_INPUT_PAYLOAD_BYTES} bytes). */
  payload: Uint8Array;
}

/**
 * The INPUT frame codec's reading side, `[KIND_INPUT][count u8]{[seq varuint][len varuint][payload]}`,
 * reading into entries it owns and reuses. INPUT is the one client message that arrives tens of
 * times per second per player, so a room decodes it here without allocating anything but the
 * payload views; `decodeClientMessage` uses the same reader, so there is one definition of the
 * format and of its errors.
 */
export class InputFrameReader {
  /** Entries `[0, count)` are valid until the next {@link read}; payloads are views into the frame. */
  readonly entries: InputEntry[] = [];
  /** Inputs in the last frame read. */
  count = 0;
  private readonly cursor = new VaruintCursor();

  constructor() {
    for (let i = 0; i < MAX_INPUTS_PER_FRAME; i++) this.entries.push({ seq: 0, payload: EMPTY });
  }

  /** Reads one INPUT frame. Returns null when well-formed, else what was wrong (count is then 0). */
  read(bytes: Uint8Array): DecodeError | null {
    this.count = 0;
    const end = bytes.length;
    if (end > MAX_CLIENT_FRAME_BYTES) return new DecodeError("too_large", `frame of ${end} bytes exceeds ${MAX_CLIENT_FRAME_BYTES}`);
    if (end < 2) return new DecodeError("truncated", `need 2 bytes, have ${end}`);
    if (bytes[0] !== KIND_INPUT) return new DecodeError("bad_value", "not an INPUT frame");
    const n = bytes[1]!;
    if (n === 0 || n > MAX_INPUTS_PER_FRAME) return new DecodeError("bad_value", `input count ${n} outside 1..${MAX_INPUTS_PER_FRAME}`);
    const c = this.cursor;
    c.at = 2;
    for (let i = 0; i < n; i++) {
      const seq = c.varuint(bytes);
      if (seq < 0) return varuintError(seq, c.at);
      const len = c.varuint(bytes);
      if (len < 0) return varuintError(len, c.at);
      if (len > MAX_INPUT_PAYLOAD_BYTES) return new DecodeError("too_large", `input payload of ${len} bytes exceeds ${MAX_INPUT_PAYLOAD_BYTES}`);
      if (c.at + len > end) return new DecodeError("truncated", `need ${len} bytes at ${c.at}, have ${end - c.at}`);
      const e = this.entries[i]!;
      e.seq = seq;
      e.payload = bytes.subarray(c.at, c.at + len);
      c.at += len;
    }
    if (c.at !== end) {
      for (let i = 0; i < n; i++) this.entries[i]!.payload = EMPTY;
      return new DecodeError("trailing_bytes", `${end - c.at} unread bytes`);
    }
    this.count = n;
    return null;
  }

  /** Drops the payload views so a frame's buffer is not kept alive by the reader. */
  release(): void {
    for (let i = 0; i < this.count; i++) this.entries[i]!.payload = EMPTY;
    this.count = 0;
  }
}

const EMPTY = /* @__PURE__ */ new Uint8Array(0);

