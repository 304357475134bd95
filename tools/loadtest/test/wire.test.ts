import { FrameWriter, FrameFlag, beginFrame, decodeClientMessage, endFrame, writeFrameAck, writeFrameEvents } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forEachEvent, frameHeader, isAckOnly, readFrameHeader, writeVaruint } from "../src/wire";

function frame(tick: number, time: number, ack: number | null, events: Uint8Array[] | null, delta: Uint8Array | null): Uint8Array {
  const w = new FrameWriter();
  const pos = beginFrame(w, tick, time);
  let flags = 0;
  if (ack !== null) {
    writeFrameAck(w, ack);
    flags |= FrameFlag.Ack;
  }
  if (events !== null) {
    writeFrameEvents(w, events);
    flags |= FrameFlag.Events;
  }
  if (delta !== null) {
    w.bytes(delta);
    flags |= FrameFlag.Delta;
  }
  endFrame(w, pos, flags);
  return w.toBytes();
}

describe("in-place FRAME header parsing", () => {
  it("agrees with the protocol encoder for any frame", () => {
    const u32 = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(
        u32,
        u32,
        fc.option(u32),
        fc.option(fc.array(fc.uint8Array({ maxLength: 20 }), { maxLength: 5 })),
        fc.option(fc.uint8Array({ maxLength: 64 })),
        (tick, time, ack, events, delta) => {
          const bytes = frame(tick, time, ack, events, delta);
          expect(readFrameHeader(bytes)).toBe(true);
          expect(frameHeader.tick).toBe(tick);
          expect(frameHeader.time).toBe(time);
          expect(frameHeader.ackSeq).toBe(ack ?? -1);
          expect(frameHeader.eventCount).toBe(events?.length ?? 0);
          expect(frameHeader.deltaBytes).toBe(delta?.length ?? 0);
          const seen: number[][] = [];
          forEachEvent(bytes, (b, off, len) => seen.push([...b.subarray(off, off + len)]));
          expect(seen).toEqual((events ?? []).map((e) => [...e]));
          expect(isAckOnly(frameHeader)).toBe(ack !== null && events === null && delta === null);
        },
      ),
    );
  });

  it("rejects truncated frames and other kinds", () => {
    const bytes = frame(300, 5000, 77, [new Uint8Array([1, 2, 3])], null);
    for (let n = 0; n < bytes.length; n++) expect(readFrameHeader(bytes.subarray(0, n))).toBe(false);
    expect(readFrameHeader(new Uint8Array([0x81, 0, 0, 0]))).toBe(false);
  });

  it("writes INPUT frames the protocol decoder accepts", () => {
    const buf = new Uint8Array(64);
    buf[0] = 0x02;
    buf[1] = 2;
    let off = writeVaruint(buf, 2, 300);
    off = writeVaruint(buf, off, 2);
    buf[off++] = 9;
    buf[off++] = 8;
    off = writeVaruint(buf, off, 301);
    off = writeVaruint(buf, off, 0);
    const msg = decodeClientMessage(buf.subarray(0, off));
    expect(msg).toEqual({
      kind: "input",
      inputs: [
        { seq: 300, payload: new Uint8Array([9, 8]) },
        { seq: 301, payload: new Uint8Array([]) },
      ],
    });
  });
});
