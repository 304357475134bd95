import { FrameFlag, FrameWriter, beginFrame, endFrame, writeFrameAck, writeFrameEvents } from "../../src";

/**
 * A server FRAME with whichever parts are given (an absent part leaves its flag clear), as the
 * room writes one: the tests' one way to build frames from optional parts.
 */
export function frameBytes(tick: number, time: number, ack?: number, events?: readonly Uint8Array[], delta?: Uint8Array, w = new FrameWriter()): Uint8Array {
  const at = beginFrame(w.reset(), tick, time);
  let flags = 0;
  if (ack !== undefined) (writeFrameAck(w, ack), (flags |= FrameFlag.Ack));
  if (events !== undefined) (writeFrameEvents(w, events), (flags |= FrameFlag.Events));
  if (delta !== undefined) (w.bytes(delta), (flags |= FrameFlag.Delta));
  endFrame(w, at, flags);
  return w.toBytes();
}
