import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DecodeError,
  FrameFlag,
  FrameWriter,
  beginFrame,
  decodeServerMessage,
  encodeError,
  encodeCadence,
  encodeNotice,
  encodePong,
  encodeReply,
  encodeReplyError,
  encodeStats,
  encodeWelcome,
  endFrame,
  clipReason,
} from "../src";
import { frameBytes } from "./support/frames";
import { mutate, mutation } from "./support/mutations";

/*
 * A fuzzer's view of the binary server decoder: valid frames of every kind, mutated the ways a
 * broken or hostile server would (bytes overwritten, cut, extended, a huge varuint spliced in),
 * must come back as a DecodeError or a message, never as an exception, and never hold more
 * bytes than the frame has.
 */

const u32 = fc.nat({ max: 0xffffffff });
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const str = (max: number) => fc.string({ maxLength: max });

const validFrame: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc
    .record({ playerId: u32, token: str(20), serverTime: finite, roomEpoch: finite, reconnected: fc.boolean(), json: fc.boolean(), roomKind: str(10), schemaHash: u32, lastSeq: u32 })
    .map((m) => encodeWelcome(new FrameWriter(), { version: 1, tickMs: 50, syncIntervalMs: 50, cap: 8, ...m }).toBytes()),
  fc
    .tuple(u32, u32, fc.option(u32, { nil: undefined }), fc.option(fc.array(fc.uint8Array({ maxLength: 6 }), { maxLength: 4 }), { nil: undefined }), fc.option(fc.uint8Array({ maxLength: 20 }), { nil: undefined }))
    .map(([tick, time, ack, events, delta]) => frameBytes(tick, time, ack, events, delta)),
  fc.tuple(fc.nat({ max: 0xffff }), str(30), u32).map(([code, reason, retry]) => encodeError(new FrameWriter(), code, reason, retry).toBytes()),
  fc.tuple(finite, finite).map(([a, b]) => encodePong(new FrameWriter(), a, b).toBytes()),
  fc.tuple(fc.nat({ max: 0xffff }), fc.nat({ max: 0xffff })).map(([t, s]) => encodeCadence(new FrameWriter(), t, s).toBytes()),
  fc.tuple(u32, fc.jsonValue()).map(([id, v]) => encodeStats(new FrameWriter(), id, JSON.stringify(v)).toBytes()),
  fc.tuple(u32, fc.jsonValue()).map(([id, v]) => encodeReply(new FrameWriter(), id, JSON.stringify(v)).toBytes()),
  fc.tuple(u32, fc.integer({ min: 1, max: 0xffff }), str(30)).map(([id, code, reason]) => encodeReplyError(new FrameWriter(), id, code, reason).toBytes()),
  fc.tuple(fc.constantFrom("score", "round.over", "a"), fc.jsonValue()).map(([type, v]) => encodeNotice(new FrameWriter(), type, JSON.stringify(v)).toBytes()),
);

/** Errors the decoder is documented to give; an exception's text ("TypeError: …") would be a bug. */
const CODES = ["truncated", "unknown_kind", "bad_value", "too_large", "trailing_bytes", "bad_json"];

describe("decodeServerMessage against mutated frames", () => {
  it("gives a DecodeError of a documented cause or a message, within the frame's bytes", () =>
    fc.assert(
      fc.property(validFrame, fc.array(mutation, { minLength: 1, maxLength: 3 }), (frame, muts) => {
        let bytes = frame;
        for (const m of muts) bytes = bytes.length ? mutate(bytes, m) : bytes;
        const out = decodeServerMessage(bytes);
        if (out instanceof DecodeError) {
          expect(CODES).toContain(out.code);
          expect(out.message).not.toMatch(/^(TypeError|RangeError|ReferenceError)/);
          return;
        }
        expect(typeof out.kind).toBe("string");
        if (out.kind === "frame") {
          // Every event and the body are views into the frame, not copies of claimed lengths.
          let held = out.body ? out.body.length : 0;
          for (const e of out.events) {
            expect(e.buffer).toBe(bytes.buffer);
            held += e.length;
          }
          expect(held).toBeLessThanOrEqual(bytes.length);
        }
      }),
      { numRuns: 3000 },
    ));

  it("a frame claiming millions of events or a 4 GiB event fails fast on its own bytes", () => {
    const w = new FrameWriter();
    const at = beginFrame(w, 1, 1);
    w.varuint(0xffffffff);
    endFrame(w, at, FrameFlag.Events);
    expect(decodeServerMessage(w.toBytes())).toMatchObject({ code: "too_large" });
    const v = new FrameWriter();
    const at2 = beginFrame(v, 1, 1);
    v.varuint(4000).varuint(0xffffffff);
    endFrame(v, at2, FrameFlag.Events);
    expect(decodeServerMessage(v.toBytes())).toMatchObject({ code: "truncated" });
  });
});

describe("refusal reasons longer than a client reads", () => {
  it("are clipped by the encoders, so an ERROR or a refusing REPLY always decodes", () =>
    fc.assert(
      fc.property(fc.string({ minLength: 300, maxLength: 3000, unit: "binary" }), (reason) => {
        const e = decodeServerMessage(encodeError(new FrameWriter(), 4, reason).toBytes());
        expect(e).toMatchObject({ kind: "error", code: 4 });
        expect(reason.startsWith((e as { reason: string }).reason.slice(0, -1))).toBe(true);
        expect(decodeServerMessage(encodeReplyError(new FrameWriter(), 9, 7, reason).toBytes())).toMatchObject({ kind: "reply", requestId: 9, code: 7 });
        expect(clipReason(reason).length).toBeLessThanOrEqual(1024);
      }),
      { numRuns: 200 },
    ));
});
