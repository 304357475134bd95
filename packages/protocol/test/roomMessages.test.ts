import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryWriter,
  DecodeError,
  ErrorCode,
  Kind,
  MAX_MESSAGE_TYPE_LENGTH,
  decodeClientMessage,
  decodeJsonClientMessage,
  decodeServerMessage,
  decodeServerText,
  encodeNotice,
  encodeReply,
  encodeReplyError,
  encodeRoomMessage,
  isMessageType,
} from "../src";

const w = new BinaryWriter(16); // small on purpose: exercises growth
const u32 = fc.nat({ max: 0xffffffff });
const typeChar = fc.constantFrom(..."abcXYZ019_.:-");
const msgType = fc.string({ unit: typeChar, minLength: 1, maxLength: MAX_MESSAGE_TYPE_LENGTH });
/** Any JSON value, as it reads back after a JSON round trip (-0 becomes 0). */
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/** The naive twin of the type rule: written out character by character. */
function naiveIsType(s: string): boolean {
  if (s.length < 1 || s.length > 32) return false;
  for (const ch of s) if (!"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-".includes(ch)) return false;
  return true;
}

describe("room message type names", () => {
  it("isMessageType agrees with its naive twin on any string", () =>
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), msgType, fc.string({ unit: "grapheme", maxLength: 34 })), (s) => {
        expect(isMessageType(s)).toBe(naiveIsType(s));
      }),
    ));

  it("the encoder refuses a bad type; the decoder refuses one written by hand", () => {
    for (const bad of ["", "a".repeat(33), "no space", 'q"uote', "é"]) {
      expect(() => encodeRoomMessage(w.reset(), 1, bad, "null")).toThrow(RangeError);
      const frame = w.reset().u8(Kind.Message).varuint(1).string(bad).string("null").toBytes();
      expect(decodeClientMessage(frame)).toBeInstanceOf(DecodeError);
      expect(decodeJsonClientMessage(JSON.stringify({ t: "msg", type: bad, id: 1, data: null }))).toBeInstanceOf(DecodeError);
    }
  });
});

describe("MESSAGE round-trips, and both dialects read the same message", () => {
  it("binary and JSON decode to the same type, id and payload", () =>
    fc.assert(
      fc.property(u32, msgType, json, (id, type, value) => {
        const text = JSON.stringify(value);
        const bin = decodeClientMessage(encodeRoomMessage(w.reset(), id, type, text).toBytes());
        expect(bin).toEqual({ kind: "message", requestId: id, type, payload: text });
        const js = decodeJsonClientMessage(JSON.stringify({ t: "msg", type, id, data: value }));
        expect(js).toEqual({ t: "msg", type, id, data: value });
        // The twin: what the room hands the game is the same value either way.
        if (bin instanceof DecodeError || js instanceof DecodeError || bin.kind !== "message" || js.t !== "msg") throw new Error("unreachable");
        expect(JSON.parse(bin.payload)).toEqual(js.data);
      }),
    ));

  it("JSON: id and data are optional (0 and null); a bad id is a bad frame", () => {
    expect(decodeJsonClientMessage('{"t":"msg","type":"ready"}')).toEqual({ t: "msg", type: "ready", id: 0, data: null });
    for (const id of [-1, 1.5, "1", 2 ** 32]) {
      expect(decodeJsonClientMessage(JSON.stringify({ t: "msg", type: "ready", id }))).toBeInstanceOf(DecodeError);
    }
  });

  it("truncated or padded binary frames are decode errors, never throws", () =>
    fc.assert(
      fc.property(u32, msgType, json, fc.nat(), (id, type, value, cut) => {
        const full = encodeRoomMessage(w.reset(), id, type, JSON.stringify(value)).toBytes();
        const short = full.subarray(0, cut % full.length);
        expect(decodeClientMessage(short)).toBeInstanceOf(DecodeError);
        const long = new Uint8Array(full.length + 1);
        long.set(full);
        expect(decodeClientMessage(long)).toBeInstanceOf(DecodeError);
      }),
    ));
});

describe("REPLY round-trips", () => {
  it("a payload or an error code, never both", () =>
    fc.assert(
      fc.property(u32, json, fc.integer({ min: 1, max: 0xffff }), u32, fc.string({ unit: "grapheme", maxLength: 50 }), (id, value, code, retry, reason) => {
        const text = JSON.stringify(value);
        expect(decodeServerMessage(encodeReply(w.reset(), id, text).toBytes())).toEqual({ kind: "reply", requestId: id, code: 0, retryAfterMs: 0, reason: "", value });
        expect(decodeServerMessage(encodeReplyError(w.reset(), id, code, reason, retry).toBytes())).toEqual({
          kind: "reply",
          requestId: id,
          code,
          retryAfterMs: retry,
          reason,
          value: undefined,
        });
      }),
    ));

  it("the new error codes have names", () => {
    expect([ErrorCode.unknown_message, ErrorCode.message_too_large, ErrorCode.bad_message, ErrorCode.internal]).toEqual([15, 16, 17, 18]);
  });
});

describe("NOTICE round-trips, and both dialects read the same notice", () => {
  it("binary and JSON decode to the same type and payload", () =>
    fc.assert(
      fc.property(msgType, json, (type, value) => {
        const expected = { kind: "notice", type, data: value };
        expect(decodeServerMessage(encodeNotice(w.reset(), type, JSON.stringify(value)).toBytes())).toEqual(expected);
        expect(decodeServerText(JSON.stringify({ t: "notice", type, data: value }))).toEqual(expected);
      }),
    ));

  it("a bad type, a payload that is not JSON, or a missing payload", () => {
    for (const bad of ["", "a".repeat(33), "no space"]) {
      expect(decodeServerMessage(w.reset().u8(Kind.Notice).string(bad).string("1").toBytes())).toBeInstanceOf(DecodeError);
      expect(decodeServerText(JSON.stringify({ t: "notice", type: bad, data: 1 }))).toBeInstanceOf(DecodeError);
    }
    expect(decodeServerMessage(w.reset().u8(Kind.Notice).string("score").string("{").toBytes())).toMatchObject({ code: "bad_json" });
    // JSON may leave the payload out: it reads as null, as a room message's does.
    expect(decodeServerText('{"t":"notice","type":"score"}')).toEqual({ kind: "notice", type: "score", data: null });
  });
});
