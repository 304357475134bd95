import { FrameFlag, MAX_EVENTS_PER_FRAME } from "./constants";
import { DecodeError } from "./decodeError";
import { VaruintCursor, varuintError } from "./varuintCursor";
import { FLAG_ACK, FLAG_DELTA, FLAG_EVENTS, KIND_FRAME } from "./wireCodes";

/**
 * The FRAME codec's reading side for a receiver of many frames,
 * `[KIND_FRAME][flags u8][tick][time][ack?][events?][delta?]`: the header fields land in the
 * reader's own fields, the event and delta bodies stay where they are (walk the events with
 * {@link forEachEvent}), and nothing is allocated unless the frame is malformed. A load
 * generator receives a FRAME tens of times per second per simulated player and needs only the
 * ack and the sections present. It accepts exactly the frames `decodeServerMessage` accepts and
 * refuses the others with the same error code (a property test holds the two together).
 */
export class FrameHeaderReader {
  /** {@link FrameFlag} bits of the last frame read: which sections it carries. */
  flags = 0;
  /** Tick the frame belongs to. */
  tick = 0;
  /** ms since the room's epoch at which the tick was simulated. */
  time = 0;
  /** Highest processed input seq, or -1 when the frame carries no ack. */
  ackSeq = -1;
  /** Events in the frame (0 without an events section, and after a refused frame). */
  eventCount = 0;
  /** Where the delta body starts (it runs to the frame's end), or -1 without a state section. */
  bodyOffset = -1;
  private eventsAt = -1;
  private readonly cursor = new VaruintCursor();

  /** Reads one FRAME's header. Returns null when well-formed, else what was wrong. */
  read(bytes: Uint8Array): DecodeError | null {
    this.eventCount = 0;
    const end = bytes.length;
    if (end < 2) return new DecodeError("truncated", `need 2 bytes, have ${end}`);
    if (bytes[0] !== KIND_FRAME) return new DecodeError("bad_value", "not a FRAME");
    const flags = bytes[1]!;
    if (flags > 7) return new DecodeError("bad_value", `frame flags ${flags}`);
    const c = this.cursor;
    c.at = 2;
    const tick = c.varuint(bytes);
    if (tick < 0) return varuintError(tick, c.at);
    const time = c.varuint(bytes);
    if (time < 0) return varuintError(time, c.at);
    let ackSeq = -1;
    if (flags & FLAG_ACK) {
      ackSeq = c.varuint(bytes);
      if (ackSeq < 0) return varuintError(ackSeq, c.at);
    }
    let eventCount = 0;
    let eventsAt = -1;
    if (flags & FLAG_EVENTS) {
      eventCount = c.varuint(bytes);
      if (eventCount < 0) return varuintError(eventCount, c.at);
      if (eventCount > MAX_EVENTS_PER_FRAME) return new DecodeError("too_large", `${eventCount} events in one frame`);
      eventsAt = c.at;
      for (let i = 0; i < eventCount; i++) {
        const len = c.varuint(bytes);
        if (len < 0) return varuintError(len, c.at);
        if (c.at + len > end) return new DecodeError("truncated", `need ${len} bytes at ${c.at}, have ${end - c.at}`);
        c.at += len;
      }
    }
    const hasState = (flags & FLAG_DELTA) !== 0;
    if (!hasState && c.at !== end) return new DecodeError("trailing_bytes", `${end - c.at} unread bytes`);
    this.flags = flags;
    this.tick = tick;
    this.time = time;
    this.ackSeq = ackSeq;
    this.eventCount = eventCount;
    this.eventsAt = eventsAt;
    this.bodyOffset = hasState ? c.at : -1;
    return null;
  }

  /** True when the last frame carries a state section (its body may be empty: nothing changed). */
  get hasState(): boolean {
    return this.bodyOffset >= 0;
  }

  /** True when the last frame carries an ack and nothing else: an input receipt, not a state flush. */
  get ackOnly(): boolean {
    return this.flags === FLAG_ACK;
  }

  /**
   * Calls `visit(bytes, offset, length)` for each event body of the frame last read from
   * `bytes`, in emit order, without copying (pass a function made once, not a closure per frame).
   */
  forEachEvent(bytes: Uint8Array, visit: (bytes: Uint8Array, offset: number, length: number) => void): void {
    const c = this.cursor;
    c.at = this.eventsAt;
    for (let i = 0; i < this.eventCount; i++) {
      // Read and checked once by read(): a length here cannot fail.
      const len = c.varuint(bytes);
      visit(bytes, c.at, len);
      c.at += len;
    }
  }
}
