import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DecodeError, FrameFlag, FrameHeaderReader, Kind, MAX_EVENTS_PER_FRAME, decodeServerMessage, encodePong, FrameWriter } from "../src/index";
import { frameBytes } from "./support/frames";
import { mutate, mutation } from "./support/mutations";

/** What the reader saw of a frame, in the full decoder's terms (event bodies copied out). */
function readAll(reader: FrameHeaderReader, bytes: Uint8Array): { tick: number; time: number; ackSeq: number; events: number[][]; hasState: boolean; body: number[] | null } | DecodeError {
  const err = reader.read(bytes);
  if (err) return err;
  const events: number[][] = [];
  reader.forEachEvent(bytes, (b, off, len) => events.push([...b.subarray(off, off + len)]));
  return {
    tick: reader.tick,
    time: reader.time,
    ackSeq: reader.ackSeq,
    events,
    hasState: reader.hasState,
    body: reader.hasState ? [...bytes.subarray(reader.bodyOffset)] : null,
  };
}

/** The full decoder's answer in the same terms; null when it decoded another kind. */
function decodeAll(bytes: Uint8Array): ReturnType<typeof readAll> | null {
  const msg = decodeServerMessage(bytes);
  if (msg instanceof DecodeError) return msg;
  if (msg.kind !== "frame") return null;
  return { tick: msg.tick, time: msg.time, ackSeq: msg.ackSeq, events: msg.events.map((e) => [...e]), hasState: msg.hasState, body: msg.body ? [...msg.body] : null };
}

const u32 = fc.nat({ max: 0xffffffff });
const parts = fc.tuple(
  u32,
  u32,
  fc.option(u32, { nil: undefined }),
  fc.option(fc.array(fc.uint8Array({ maxLength: 8 }), { maxLength: 5 }), { nil: undefined }),
  fc.option(fc.uint8Array({ maxLength: 24 }), { nil: undefined }),
);

/** A varuint of more than 32 bits, and one announcing more events than a frame may carry. */
const OVER_32_BITS = [0xff, 0xff, 0xff, 0xff, 0x1f];
const TOO_MANY = [(MAX_EVENTS_PER_FRAME + 1) & 0x7f | 0x80, (MAX_EVENTS_PER_FRAME + 1) >> 7];

/**
 * Valid frames, then damaged the ways a broken server would (support/mutations.ts), or with a
 * varuint over 32 bits or an event count over the limit spliced in, or the flags overwritten.
 */
const hostileFrame = fc
  .tuple(
    parts,
    fc.array(
      fc.oneof(
        mutation,
        fc.record({ at: fc.nat(), op: fc.constant("splice" as const), bytes: fc.constantFrom(OVER_32_BITS, TOO_MANY) }),
        fc.record({ at: fc.constant(1), op: fc.constant("set" as const), byte: fc.nat({ max: 15 }) }),
      ),
      { maxLength: 2 },
    ),
  )
  .map(([p, muts]) => muts.reduce((bytes, m) => (bytes.length ? mutate(bytes, m) : bytes), frameBytes(...p)));

describe("FrameHeaderReader", () => {
  it("reads what the room's frame writer wrote: header, events in place, ack-only frames", () => {
    const reader = new FrameHeaderReader();
    fc.assert(
      fc.property(parts, ([tick, time, ack, events, delta]) => {
        const bytes = frameBytes(tick, time, ack, events, delta);
        expect(reader.read(bytes)).toBeNull();
        expect(reader.tick).toBe(tick);
        expect(reader.time).toBe(time);
        expect(reader.ackSeq).toBe(ack ?? -1);
        expect(reader.eventCount).toBe(events?.length ?? 0);
        expect(reader.hasState).toBe(delta !== undefined);
        expect(reader.hasState ? bytes.length - reader.bodyOffset : 0).toBe(delta?.length ?? 0);
        const seen: number[][] = [];
        reader.forEachEvent(bytes, (b, off, len) => {
          expect(b).toBe(bytes);
          seen.push([...b.subarray(off, off + len)]);
        });
        expect(seen).toEqual((events ?? []).map((e) => [...e]));
        expect(reader.ackOnly).toBe(ack !== undefined && events === undefined && delta === undefined);
      }),
    );
  });

  it("agrees with decodeServerMessage on any FRAME, hostile or not: the same fields or the same error code", () => {
    const reader = new FrameHeaderReader();
    fc.assert(
      fc.property(fc.oneof(hostileFrame, fc.uint8Array({ maxLength: 40 }).map((b) => Uint8Array.from([Kind.Frame, ...b]))), (bytes) => {
        const fast = readAll(reader, bytes);
        const full = decodeAll(bytes);
        if (bytes[0] !== Kind.Frame) {
          // Damage reached the kind byte: whatever the full decoder makes of it, it is no FRAME.
          expect(fast).toBeInstanceOf(DecodeError);
          expect(full === null || full instanceof DecodeError).toBe(true);
        } else if (full instanceof DecodeError) {
          expect(fast).toBeInstanceOf(DecodeError);
          expect((fast as DecodeError).code).toBe(full.code);
          expect(reader.eventCount).toBe(0);
        } else {
          expect(fast).toEqual(full);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses every cut of a frame, other kinds, and too many events, as the full decoder does", () => {
    const reader = new FrameHeaderReader();
    const bytes = frameBytes(300, 5000, 77, [new Uint8Array([1, 2, 3])]);
    for (let n = 0; n < bytes.length; n++) expect(reader.read(bytes.subarray(0, n))?.code).toBe("truncated");
    expect(reader.read(encodePong(new FrameWriter(), 1, 2).toBytes())?.code).toBe("bad_value");
    const many = Uint8Array.from([Kind.Frame, FrameFlag.Events, 1, 1, ...TOO_MANY]);
    expect(reader.read(many)?.code).toBe("too_large");
    expect((decodeServerMessage(many) as DecodeError).code).toBe("too_large");
    expect(reader.read(Uint8Array.from([Kind.Frame, 0, ...OVER_32_BITS, 0]))?.code).toBe("bad_value");
  });
});
