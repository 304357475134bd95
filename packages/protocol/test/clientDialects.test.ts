import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryWriter,
  DecodeError,
  JSON_KEEPALIVE,
  MAX_INPUT_PAYLOAD_BYTES,
  PROTOCOL_VERSION,
  binaryDialect,
  checkInputPayload,
  decodeClientMessage,
  decodeJsonClientMessage,
  encodeInputs,
  encodePong,
  encodeReply,
  encodeStats,
  readAnswer,
  jsonDialect,
  binaryRequests,
  jsonRequests,
} from "../src";

// What a client says in each dialect, checked against the room's decoders; and what it reads.
const w = new BinaryWriter(8); // small on purpose: exercises growth
const binary = {
  hello: (token: string, name: string, options?: object) => binaryDialect.hello(token, name, options),
  input: (seq: number, payload: unknown) => binaryDialect.input(seq, payload),
  inputs: (entries: { seq: number; payload: Uint8Array }[]) => encodeInputs(w.reset(), entries).toBytes(),
  ping: (t: number) => binaryDialect.ping(t),
  keepalive: (t: number) => binaryDialect.keepalive(t),
  statsRequest: (id: number) => binaryRequests.statsRequest(id),
  receipt: (m: number, u: number) => binaryDialect.receipt(m, u),
  message: (id: number, type: string, json: string) => binaryRequests.message(id, type, json),
  leave: () => binaryDialect.leave(),
};
const json = {
  hello: (token: string, name: string, options?: object) => jsonDialect.hello(token, name, options),
  input: (seq: number, payload: unknown) => jsonDialect.input(seq, payload),
  ping: (t: number) => jsonDialect.ping(t),
  keepalive: (t: number) => jsonDialect.keepalive(t),
  statsRequest: (id: number) => jsonRequests.statsRequest(id),
  receipt: (m: number, u: number) => jsonDialect.receipt(m, u),
  message: (id: number, type: string, text: string) => jsonRequests.message(id, type, text),
  leave: () => jsonDialect.leave(),
};
const messageJson = (_type: string, value: unknown): string => JSON.stringify(value ?? null);
const u32 = fc.nat({ max: 0xffffffff });
const ascii = (max: number) => fc.string({ maxLength: max, unit: "grapheme-ascii" });
const fromBinary = (m: string | Uint8Array) => decodeClientMessage(m as Uint8Array);
const fromText = (m: string | Uint8Array) => decodeJsonClientMessage(m as string);
const messageType = fc.string({ unit: fc.constantFrom(..."abXY09_.:-"), minLength: 1, maxLength: 32 });

describe("each dialect writes what the room decodes", () => {
  it("a hello's join options: JSON text after the name in binary, an object in JSON", () =>
    fc.assert(
      fc.property(ascii(20), fc.dictionary(fc.string({ unit: fc.constantFrom(..."abc_"), minLength: 1, maxLength: 8 }), fc.oneof(fc.integer(), fc.boolean(), ascii(10))), (name, options) => {
        expect(fromBinary(binary.hello("", name, options))).toEqual({ kind: "hello", version: PROTOCOL_VERSION, token: "", name, options: JSON.stringify(options) });
        expect(fromText(json.hello("", name, options))).toEqual({ t: "hello", v: PROTOCOL_VERSION, token: "", name, options });
      }),
    ));

  it("hello, ping, stats request, receipt and leave in both dialects", () =>
    fc.assert(
      fc.property(ascii(100), ascii(60), fc.double({ noNaN: true, noDefaultInfinity: true }), u32, fc.nat(), fc.nat(), (token, name, time, id, messages, units) => {
        expect(fromBinary(binary.hello(token, name))).toEqual({ kind: "hello", version: PROTOCOL_VERSION, token, name, options: "" });
        expect(fromText(json.hello(token, name))).toEqual({ t: "hello", v: PROTOCOL_VERSION, token, name });
        expect(fromBinary(binary.ping(time))).toEqual({ kind: "ping", clientTime: time });
        expect(fromText(json.ping(time))).toEqual({ t: "ping", ct: time + 0 });
        expect(fromBinary(binary.statsRequest(id))).toEqual({ kind: "statsRequest", requestId: id });
        expect(fromText(json.statsRequest(id))).toEqual({ t: "stats", id });
        const wrapped = { messages: messages % 2 ** 32, units: units % 2 ** 32 };
        expect(fromBinary(binary.receipt(messages, units))).toEqual({ kind: "receipt", messages: wrapped.messages, bytes: wrapped.units });
        expect(fromText(json.receipt(messages, units))).toEqual({ t: "rc", m: wrapped.messages, b: wrapped.units });
        expect(fromBinary(binary.leave())).toEqual({ kind: "leave" });
        expect(fromText(json.leave())).toEqual({ t: "leave" });
      }),
    ));

  it("inputs: one or a batch in binary rooms, any JSON value in JSON rooms", () =>
    fc.assert(
      fc.property(fc.array(fc.record({ seq: u32, payload: fc.uint8Array({ maxLength: MAX_INPUT_PAYLOAD_BYTES }) }), { minLength: 1, maxLength: 16 }), fc.jsonValue(), (entries, value) => {
        const [first] = entries;
        expect(fromBinary(binary.input(first!.seq, first!.payload))).toEqual({ kind: "input", inputs: [first] });
        expect(fromBinary(binary.inputs(entries))).toEqual({ kind: "input", inputs: entries });
        expect(fromText(json.input(first!.seq, value))).toEqual({ t: "input", seq: first!.seq, data: JSON.parse(JSON.stringify(value)) });
      }),
    ));

  it("room messages carry type, id and payload in both dialects", () =>
    fc.assert(
      fc.property(u32, messageType, fc.jsonValue(), (id, type, value) => {
        const text = messageJson(type, value);
        expect(fromBinary(binary.message(id, type, text))).toEqual({ kind: "message", requestId: id, type, payload: text });
        expect(fromText(json.message(id, type, text))).toEqual({ t: "msg", type, id, data: JSON.parse(text) });
      }),
    ));

  it("keepalive: the fixed text in JSON rooms, a clock ping in binary rooms", () => {
    expect(json.keepalive(5)).toBe(JSON_KEEPALIVE);
    expect(fromBinary(binary.keepalive(5))).toEqual({ kind: "ping", clientTime: 5 });
  });

  it("hands out exact-size copies, never the reused buffer", () => {
    const a = binary.ping(1) as Uint8Array;
    const copy = a.slice();
    const b = binary.ping(2) as Uint8Array;
    expect(a).toEqual(copy);
    expect(b.buffer).not.toBe(a.buffer);
    expect(a.byteLength).toBe(a.buffer.byteLength);
  });
});

describe("binary input payloads", () => {
  it("are Uint8Arrays within the payload limit", () => {
    expect(() => binary.input(1, [1, 2])).toThrow(TypeError);
    expect(() => checkInputPayload(new Uint8Array(MAX_INPUT_PAYLOAD_BYTES + 1))).toThrow(RangeError);
    expect(checkInputPayload(new Uint8Array(MAX_INPUT_PAYLOAD_BYTES)).length).toBe(MAX_INPUT_PAYLOAD_BYTES);
  });

  it("a message type that is not a legal name is refused in both dialects", () => {
    expect(() => binary.message(1, 'chat"', "1")).toThrow(RangeError);
    expect(() => json.message(1, 'chat"', "1")).toThrow(RangeError);
  });
});

describe("each dialect reads its own", () => {
  const pong = encodePong(new BinaryWriter(), 1.5, 2.5).toBytes();
  const expected = { kind: "pong", clientTime: 1.5, serverTime: 2.5 };

  it("binary: an ArrayBuffer or a view at an offset", () => {
    expect(binaryDialect.decode(pong.slice().buffer, null)).toEqual(expected);
    const padded = new Uint8Array(pong.length + 3);
    padded.set(pong, 2);
    expect(binaryDialect.decode(padded.subarray(2, 2 + pong.length), null)).toEqual(expected);
    expect(binaryDialect.decode(new DataView(padded.buffer, 2, pong.length), null)).toEqual(expected);
  });

  it("JSON: text", () => {
    expect(jsonDialect.decode(JSON.stringify({ t: "pong", ct: 1.5, st: 2.5 }), null)).toEqual(expected);
  });

  it("answers anything else, the other dialect's included, with a DecodeError", () => {
    for (const d of [binaryDialect, jsonDialect]) expect(d.decode(42, null)).toBeInstanceOf(DecodeError);
    expect(binaryDialect.decode(JSON.stringify({ t: "pong", ct: 1.5, st: 2.5 }), null)).toBeInstanceOf(DecodeError);
    expect(jsonDialect.decode(pong, null)).toBeInstanceOf(DecodeError);
    expect(binaryDialect.decode(new Uint8Array([0x7f]), null)).toMatchObject({ code: "unknown_kind" });
    expect(jsonDialect.decode("{", null)).toMatchObject({ code: "bad_json" });
  });

  it("reads the answers to requests with the reader given, and leaves them unread (null) without one", () => {
    const stats = encodeStats(new BinaryWriter(), 7, JSON.stringify({ rooms: 1 })).toBytes();
    const reply = encodeReply(new BinaryWriter(), 3, "[1]").toBytes();
    expect(binaryDialect.decode(stats, readAnswer)).toEqual({ kind: "stats", requestId: 7, stats: { rooms: 1 } });
    expect(binaryDialect.decode(reply, readAnswer)).toMatchObject({ kind: "reply", requestId: 3, code: 0, value: [1] });
    expect(jsonDialect.decode(JSON.stringify({ t: "stats", id: 7, stats: { rooms: 1 } }), readAnswer)).toEqual({ kind: "stats", requestId: 7, stats: { rooms: 1 } });
    expect(binaryDialect.decode(stats, null)).toBeNull();
    expect(binaryDialect.decode(reply, null)).toBeNull();
    expect(jsonDialect.decode(JSON.stringify({ t: "reply", id: 3, data: 1 }), null)).toBeNull();
    // Every other kind still decodes (and is checked) without a reader.
    expect(binaryDialect.decode(pong, null)).toEqual(expected);
  });
});
