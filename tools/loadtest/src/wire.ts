import { FrameFlag, Kind, MAX_INPUTS_PER_FRAME } from "@tikron/protocol";

/**
 * Allocation-free reading of the one server message that arrives tens of times per second per
 * client (FRAME) and writing of the one client message sent as often (INPUT). Everything rarer
 * goes through the protocol package's full decoders.
 */

/** Fields of the last FRAME parsed by {@link readFrameHeader}; one shared object, overwritten per call. */
export interface FrameHeader {
  flags: number;
  tick: number;
  time: number;
  /** Highest processed input seq, or -1 when the frame carries no ack. */
  ackSeq: number;
  /** Offset of the first event's length prefix, or -1 when there are no events. */
  eventsOffset: number;
  eventCount: number;
  /** Bytes of delta body (0 when absent). */
  deltaBytes: number;
}

/** Shared result slot: the generator is single-threaded per event loop, so one is enough. */
export const frameHeader: FrameHeader = {
  flags: 0,
  tick: 0,
  time: 0,
  ackSeq: -1,
  eventsOffset: -1,
  eventCount: 0,
  deltaBytes: 0,
};

let pos = 0;

function varuint(buf: Uint8Array): number {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    if (pos >= buf.length) return -1;
    const b = buf[pos++];
    result |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return result >>> 0;
    shift += 7;
  }
  return -1;
}

/**
 * Parses a FRAME's header into {@link frameHeader}. Returns false when `buf` is not a
 * well-formed FRAME (the caller counts a decode error). Event bodies are skipped, not copied.
 */
export function readFrameHeader(buf: Uint8Array): boolean {
  if (buf.length < 4 || buf[0] !== Kind.Frame) return false;
  const flags = buf[1];
  if (flags > 7) return false;
  pos = 2;
  const tick = varuint(buf);
  const time = varuint(buf);
  if (tick < 0 || time < 0) return false;
  let ackSeq = -1;
  if (flags & FrameFlag.Ack) {
    ackSeq = varuint(buf);
    if (ackSeq < 0) return false;
  }
  let eventsOffset = -1;
  let eventCount = 0;
  if (flags & FrameFlag.Events) {
    eventCount = varuint(buf);
    if (eventCount < 0) return false;
    eventsOffset = pos;
    for (let i = 0; i < eventCount; i++) {
      const len = varuint(buf);
      if (len < 0 || pos + len > buf.length) return false;
      pos += len;
    }
  }
  let deltaBytes = 0;
  if (flags & FrameFlag.Delta) deltaBytes = buf.length - pos;
  else if (pos !== buf.length) return false;
  const h = frameHeader;
  h.flags = flags;
  h.tick = tick;
  h.time = time;
  h.ackSeq = ackSeq;
  h.eventsOffset = eventsOffset;
  h.eventCount = eventCount;
  h.deltaBytes = deltaBytes;
  return true;
}

/**
 * Walks the events of the FRAME last parsed from `buf`, calling `visit(buf, offset, length)` for
 * each body.
 */
export function forEachEvent(buf: Uint8Array, visit: (buf: Uint8Array, offset: number, length: number) => void): void {
  if (frameHeader.eventsOffset < 0) return;
  pos = frameHeader.eventsOffset;
  for (let i = 0; i < frameHeader.eventCount; i++) {
    const len = varuint(buf);
    visit(buf, pos, len);
    pos += len;
  }
}

/** A FRAME carrying only an ack: an input receipt, not a state flush. */
export function isAckOnly(h: FrameHeader): boolean {
  return h.flags === FrameFlag.Ack;
}

/** Writes a LEB128 varuint at `at`; returns the new offset. */
export function writeVaruint(buf: Uint8Array, at: number, v: number): number {
  v >>>= 0;
  while (v >= 0x80) {
    buf[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[at++] = v;
  return at;
}

/** Most inputs one INPUT frame may carry (protocol limit). */
export const INPUTS_PER_FRAME = MAX_INPUTS_PER_FRAME;
