import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BinaryWriter,
  PROTOCOL_VERSION,
  decodeClientMessage,
  decodeJsonClientMessage,
  encodeHello,
  encodeInputs,
  encodeLeave,
  encodePing,
  encodeReceipt,
  encodeRoomMessage,
  encodeStatsRequest,
  isDecodeError,
  type DecodeError,
} from "@tikron/protocol";
import { InboundReader, type Inbound } from "../src/room/inbound";

const w = new BinaryWriter();

/** What the reader hands on, as plain data (its reused inputs message copied out). */
function plain(m: Inbound | DecodeError): unknown {
  if (isDecodeError(m)) return { error: m.code };
  if (m.kind === "inputs") return { kind: "inputs", entries: m.entries.slice(0, m.count).map((e) => ({ seq: e.seq, payload: e.payload })) };
  return { ...m };
}

/** The naive twin: the protocol's own decoders, one object per message, mapped by hand. */
function naiveBinary(bytes: Uint8Array): unknown {
  const m = decodeClientMessage(bytes);
  if (isDecodeError(m)) return { error: m.code };
  if (m.kind === "input") return { kind: "inputs", entries: m.inputs.map((e) => ({ seq: e.seq, payload: e.payload })) };
  if (m.kind === "message") return { kind: "gameMessage", requestId: m.requestId, type: m.type, text: m.payload, value: undefined };
  return { ...m };
}

function naiveText(text: string): unknown {
  const m = decodeJsonClientMessage(text);
  if (isDecodeError(m)) return { error: m.code };
  switch (m.t) {
    case "hello":
      return { kind: "hello", version: m.v, token: m.token, name: m.name, options: m.options === undefined ? "" : JSON.stringify(m.options) };
    case "input":
      return { kind: "inputs", entries: [{ seq: m.seq, payload: m.data }] };
    case "ping":
      return { kind: "ping", clientTime: m.ct };
    case "stats":
      return { kind: "statsRequest", requestId: m.id };
    case "rc":
      return { kind: "receipt", messages: m.m, bytes: m.b };
    case "ka":
      return { kind: "keepalive" };
    case "msg":
      return { kind: "gameMessage", requestId: m.id ?? 0, type: m.type, text: null, value: m.data };
    case "leave":
      return { kind: "leave" };
  }
}

const u32 = fc.nat({ max: 0xffffffff });
const type = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,32}$/);
const binaryFrame = fc.oneof(
  fc.record({ token: fc.string({ maxLength: 40 }), name: fc.string({ maxLength: 20 }) }).map((h) => encodeHello(w.reset(), { version: PROTOCOL_VERSION, ...h }).toBytes()),
  fc.array(fc.record({ seq: u32, payload: fc.uint8Array({ maxLength: 12 }) }), { minLength: 1, maxLength: 16 }).map((inputs) => encodeInputs(w.reset(), inputs).toBytes()),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((t) => encodePing(w.reset(), t).toBytes()),
  u32.map((id) => encodeStatsRequest(w.reset(), id).toBytes()),
  fc.tuple(u32, u32).map(([m, b]) => encodeReceipt(w.reset(), m, b).toBytes()),
  fc.tuple(u32, type, fc.json()).map(([id, t, json]) => encodeRoomMessage(w.reset(), id, t, json).toBytes()),
  fc.constant(encodeLeave(w.reset()).toBytes()),
  // Cut short, or noise: malformed frames of every kind.
  fc.uint8Array({ minLength: 1, maxLength: 40 }),
  fc.tuple(fc.integer({ min: 0, max: 8 }), fc.uint8Array({ maxLength: 40 })).map(([kind, rest]) => Uint8Array.of(kind, ...rest)),
);
const jsonText = fc.oneof(
  fc.record({ t: fc.constant("hello"), v: fc.constant(PROTOCOL_VERSION), token: fc.string({ maxLength: 20 }), name: fc.string({ maxLength: 20 }) }),
  fc.record({ t: fc.constant("hello"), v: fc.constant(PROTOCOL_VERSION), token: fc.constant(""), name: fc.constant(""), options: fc.jsonValue() }),
  fc.record({ t: fc.constant("input"), seq: u32, data: fc.jsonValue() }),
  fc.record({ t: fc.constant("ping"), ct: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  fc.record({ t: fc.constant("stats"), id: u32 }),
  fc.record({ t: fc.constant("rc"), m: u32, b: u32 }),
  fc.record({ t: fc.constantFrom("ka", "leave", "nope") }),
  fc.record({ t: fc.constant("msg"), type, id: fc.option(u32, { nil: undefined }), data: fc.option(fc.jsonValue(), { nil: undefined }) }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue(), { maxKeys: 4 }),
).map((o) => JSON.stringify(o));
const anyText = fc.oneof(jsonText, fc.string({ maxLength: 60 }));

describe("InboundReader: either dialect decoded into one message", () => {
  it("reads binary frames as the protocol's decodeClientMessage does, inputs into its reused message (fast-check)", () => {
    const reader = new InboundReader();
    fc.assert(
      fc.property(fc.array(binaryFrame, { minLength: 1, maxLength: 8 }), (frames) => {
        for (const bytes of frames) {
          expect(plain(reader.read(bytes))).toEqual(naiveBinary(bytes));
          reader.release();
        }
      }),
    );
  });

  it("reads JSON text as decodeJsonClientMessage does (fast-check)", () => {
    const reader = new InboundReader();
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 8 }), (texts) => {
        for (const text of texts) {
          expect(plain(reader.read(text))).toEqual(naiveText(text));
          reader.release();
        }
      }),
    );
  });

  it("hands on the same inputs message every time, and lets go of the frame after release", () => {
    const reader = new InboundReader();
    const a = reader.read(encodeInputs(w.reset(), [{ seq: 1, payload: Uint8Array.of(7) }]).toBytes());
    const b = reader.read(JSON.stringify({ t: "input", seq: 2, data: { x: 1 } }));
    const c = reader.read(encodeInputs(w.reset(), [{ seq: 3, payload: Uint8Array.of(9) }]).toBytes());
    expect(a).toBe(c);
    expect(b).not.toBe(a);
    reader.release();
    if (isDecodeError(c) || c.kind !== "inputs" || isDecodeError(b) || b.kind !== "inputs") throw new Error("inputs expected");
    expect(c.entries[0]!.payload).toHaveLength(0);
    expect(b.entries[0]!.payload).toBeNull();
  });
});
