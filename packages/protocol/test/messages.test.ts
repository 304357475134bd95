import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryReader,
  BinaryWriter,
  FrameWriter,
  DecodeError,
  Kind,
  MAX_CLIENT_FRAME_BYTES,
  decodeClientMessage,
  decodeJsonClientMessage,
  decodeServerMessage,
  encodeError,
  encodeHello,
  encodeInputs,
  encodeLeave,
  encodePing,
  encodePong,
  encodeStats,
  encodeStatsRequest,
  encodeWelcome,
} from "../src";
import { frameBytes } from "./support/frames";

const w = new FrameWriter(16); // small on purpose: exercises growth
const u32 = fc.nat({ max: 0xffffffff });
const str = (max: number) => fc.string({ maxLength: max, unit: "grapheme" }).filter((s) => new TextEncoder().encode(s).length <= max);
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });

describe("client messages round-trip", () => {
  it("hello, with and without join options", () =>
    fc.assert(
      fc.property(fc.nat({ max: 0xffff }), str(128), str(64), fc.option(str(200), { nil: undefined }), (version, token, name, options) => {
        const m = decodeClientMessage(encodeHello(w.reset(), { version, token, name, ...(options !== undefined ? { options } : {}) }).toBytes());
        expect(m).toEqual({ kind: "hello", version, token, name, options: options ?? "" });
      }),
    ));

  it("a hello without join options ends at the name (the hello clients sent before them); an empty trailing string is none too", () => {
    const bare = encodeHello(w.reset(), { version: 1, token: "t", name: "n" }).toBytes();
    expect([...bare]).toEqual([1, 1, 0, 1, 0x74, 1, 0x6e]);
    expect(encodeHello(w.reset(), { version: 1, token: "t", name: "n", options: "" }).toBytes()).toEqual(bare);
    expect(decodeClientMessage(bare)).toEqual({ kind: "hello", version: 1, token: "t", name: "n", options: "" });
    expect(decodeClientMessage(Uint8Array.of(...bare, 0))).toEqual({ kind: "hello", version: 1, token: "t", name: "n", options: "" });
  });

  it("input batches", () =>
    fc.assert(
      fc.property(fc.array(fc.record({ seq: u32, payload: fc.uint8Array({ maxLength: 200 }) }), { minLength: 1, maxLength: 16 }), (inputs) => {
        const m = decodeClientMessage(encodeInputs(w.reset(), inputs).toBytes());
        expect(m).toEqual({ kind: "input", inputs: inputs.map((i) => ({ seq: i.seq, payload: new Uint8Array(i.payload) })) });
      }),
    ));

  it("ping, statsRequest, leave", () =>
    fc.assert(
      fc.property(finite, u32, (t, id) => {
        expect(decodeClientMessage(encodePing(w.reset(), t).toBytes())).toEqual({ kind: "ping", clientTime: t });
        expect(decodeClientMessage(encodeStatsRequest(w.reset(), id).toBytes())).toEqual({ kind: "statsRequest", requestId: id });
        expect(decodeClientMessage(encodeLeave(w.reset()).toBytes())).toEqual({ kind: "leave" });
      }),
    ));
});

describe("server messages round-trip", () => {
  it("welcome", () =>
    fc.assert(
      fc.property(
        fc.record({
          version: fc.nat({ max: 0xffff }),
          playerId: u32,
          token: str(128),
          tickMs: fc.nat({ max: 0xffff }),
          syncIntervalMs: fc.nat({ max: 0xffff }),
          serverTime: finite,
          roomEpoch: finite,
          reconnected: fc.boolean(),
          json: fc.boolean(),
          roomKind: str(64),
          cap: fc.nat({ max: 0xffff }),
          schemaHash: u32,
          lastSeq: u32,
        }),
        (m) => {
          expect(decodeServerMessage(encodeWelcome(w.reset(), m).toBytes())).toEqual({ kind: "welcome", ...m });
        },
      ),
    ));

  it("frame with any combination of ack, events and delta", () =>
    fc.assert(
      fc.property(
        u32,
        u32,
        fc.option(u32, { nil: undefined }),
        fc.option(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 }), { nil: undefined }),
        fc.option(fc.uint8Array({ maxLength: 300 }), { nil: undefined }),
        (tick, time, ack, events, delta) => {
          const m = decodeServerMessage(frameBytes(tick, time, ack, events, delta, w));
          expect(m).toEqual({
            kind: "frame",
            tick,
            time,
            ackSeq: ack ?? -1,
            events: (events ?? []).map((e) => new Uint8Array(e)),
            hasState: delta !== undefined,
            body: delta === undefined ? null : new Uint8Array(delta),
          });
        },
      ),
    ));

  it("error, pong, stats", () =>
    fc.assert(
      fc.property(fc.nat({ max: 0xffff }), u32, str(200), finite, finite, (code, retry, reason, a, b) => {
        expect(decodeServerMessage(encodeError(w.reset(), code, reason, retry).toBytes())).toEqual({ kind: "error", code, retryAfterMs: retry, reason });
        expect(decodeServerMessage(encodePong(w.reset(), a, b).toBytes())).toEqual({ kind: "pong", clientTime: a, serverTime: b });
        expect(decodeServerMessage(encodeStats(w.reset(), retry, JSON.stringify({ reason })).toBytes())).toEqual({ kind: "stats", requestId: retry, stats: { reason } });
      }),
    ));
});

describe("bad frames are typed errors, never exceptions", () => {
  it("truncating any valid client frame gives a DecodeError", () =>
    fc.assert(
      fc.property(str(20), fc.uint8Array({ minLength: 1, maxLength: 30 }), fc.nat(), (token, payload, cut) => {
        // A hello without its trailing join options is a hello of a client that sends none: the
        // one cut that leaves a valid frame.
        const oldHello = encodeHello(w.reset(), { version: 1, token, name: "n" }).toBytes().length;
        for (const bytes of [
          encodeHello(w.reset(), { version: 1, token, name: "n", options: '{"mark":"X"}' }).toBytes(),
          encodeInputs(w.reset(), [{ seq: 5, payload }]).toBytes(),
          encodePing(w.reset(), 1.5).toBytes(),
        ]) {
          const at = cut % bytes.length; // strictly shorter than the frame
          const m = decodeClientMessage(bytes.subarray(0, at));
          if (bytes[0] === 1 && at === oldHello) expect(m).toEqual({ kind: "hello", version: 1, token, name: "n", options: "" });
          else expect(m).toBeInstanceOf(DecodeError);
        }
      }),
    ));

  it("random bytes never throw on either side", () =>
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const a = decodeClientMessage(bytes);
        const b = decodeServerMessage(bytes);
        expect(a === null || typeof a === "object").toBe(true);
        expect(b === null || typeof b === "object").toBe(true);
      }),
      { numRuns: 2000 },
    ));

  it("names the problem: unknown kind, NaN, oversize, trailing bytes, hostile lengths", () => {
    const code = (b: Uint8Array) => (decodeClientMessage(b) as DecodeError).code;
    expect(code(new Uint8Array([0x7e]))).toBe("unknown_kind");
    expect(code(encodePing(w.reset(), NaN).toBytes())).toBe("bad_value");
    expect(code(encodePing(w.reset(), Infinity).toBytes())).toBe("bad_value");
    expect(code(new Uint8Array(MAX_CLIENT_FRAME_BYTES + 1))).toBe("too_large");
    expect(code(new Uint8Array([Kind.Leave, 0]))).toBe("trailing_bytes");
    // input claiming a 1 GiB payload
    expect(code(new FrameWriter().u8(Kind.Input).u8(1).varuint(1).varuint(1 << 30).toBytes())).toBe("too_large");
    expect(code(new Uint8Array([Kind.Input, 0]))).toBe("bad_value");
    expect(code(new Uint8Array([Kind.Input, 200]))).toBe("bad_value");
    // invalid UTF-8 in a hello
    expect(code(new Uint8Array([Kind.Hello, 1, 0, 2, 0xff, 0xfe, 0]))).toBe("bad_value");
  });
});

describe("binary primitives", () => {
  it("varuint/varint/string round-trip", () =>
    fc.assert(
      fc.property(u32, fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.string({ maxLength: 300 }), (a, b, s) => {
        const bytes = new FrameWriter(4).varuint(a).varint(b).string(s).toBytes();
        const r = new BinaryReader(bytes);
        expect(r.varuint()).toBe(a);
        expect(r.varint()).toBe(b);
        // Lone surrogates become U+FFFD on the way in; nothing else changes (a leading U+FEFF included).
        expect(r.string(4096)).toBe(new TextDecoder("utf-8", { ignoreBOM: true }).decode(new TextEncoder().encode(s)));
        r.expectEnd();
      }),
    ));

  it("a string starting with U+FEFF reads back with it (the decoder keeps a byte-order mark)", () => {
    for (const s of ["\ufeff", "\ufeffname", "a\ufeff"]) {
      const r = new BinaryReader(new BinaryWriter(4).string(s).toBytes());
      expect(r.string(64)).toBe(s);
    }
  });
});

describe("JSON mode", () => {
  it("accepts well-formed messages and names bad ones", () => {
    expect(decodeJsonClientMessage('{"t":"hello","v":1,"token":"","name":"a"}')).toEqual({ t: "hello", v: 1, token: "", name: "a" });
    expect(decodeJsonClientMessage('{"t":"input","seq":3,"data":{"cell":4}}')).toEqual({ t: "input", seq: 3, data: { cell: 4 } });
    expect((decodeJsonClientMessage("{nope") as DecodeError).code).toBe("bad_json");
    expect((decodeJsonClientMessage("[1]") as DecodeError).code).toBe("bad_json");
    expect((decodeJsonClientMessage('{"t":"input","seq":-1}') as DecodeError).code).toBe("bad_value");
    expect((decodeJsonClientMessage('{"t":"input","seq":"1"}') as DecodeError).code).toBe("bad_value");
    expect((decodeJsonClientMessage('{"t":"ping","ct":null}') as DecodeError).code).toBe("bad_value");
    expect((decodeJsonClientMessage('{"t":"zap"}') as DecodeError).code).toBe("unknown_kind");
    expect((decodeJsonClientMessage("x".repeat(MAX_CLIENT_FRAME_BYTES + 1)) as DecodeError).code).toBe("too_large");
  });

  it("never throws on arbitrary text", () =>
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json()), (s) => void decodeJsonClientMessage(s)), { numRuns: 2000 }));
});

describe("FrameWriter.copyFrom", () => {
  it("appends a byte range of another writer, growing as needed", () =>
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 50 }), fc.nat(), fc.nat(), (src, prefix, a, b) => {
        const from = new FrameWriter(4).bytes(src);
        const start = src.length === 0 ? 0 : a % (src.length + 1);
        const end = start + (src.length - start === 0 ? 0 : b % (src.length - start + 1));
        const out = new FrameWriter(2).bytes(prefix).copyFrom(from, start, end).toBytes();
        expect(out).toEqual(new Uint8Array([...prefix, ...src.subarray(start, end)]));
      }),
    ));
});
