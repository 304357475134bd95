import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FrameWriter,
  DecodeError,
  ErrorCode,
  Kind,
  beginFrame,
  decodeServerMessage,
  decodeServerText,
  encodeCadence,
  encodeError,
  encodePong,
  encodeReply,
  encodeReplyError,
  encodeStats,
  encodeWelcome,
  endFrame,
  errorName,
  toJsonWelcome,
  writeFrameAck,
  writeFrameEvents,
  FrameFlag,
  type JsonServerMessage,
  type WelcomeFields,
} from "../src";

// Both dialects decode into one shape: every JSON message must read back exactly as its binary twin.
const w = new FrameWriter(16);
const u32 = fc.nat({ max: 0xffffffff });
const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x + 0); // JSON has no -0
const reason = fc.string({ maxLength: 60, unit: "grapheme" });
/** Any JSON value, as it reads back after a JSON round trip. */
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const text = (m: JsonServerMessage): string => JSON.stringify(m);
const code = fc.constantFrom(...Object.values(ErrorCode));

describe("decodeServerText gives the binary decoder's shape", () => {
  it("welcome: the binary one with json set and no schema hash", () =>
    fc.assert(
      fc.property(
        fc.record({
          version: fc.nat({ max: 0xffff }),
          playerId: u32,
          token: fc.string({ maxLength: 40, unit: "grapheme-ascii" }),
          tickMs: fc.nat({ max: 0xffff }),
          syncIntervalMs: fc.nat({ max: 0xffff }),
          serverTime: finite,
          roomEpoch: finite,
          reconnected: fc.boolean(),
          json: fc.constant(true),
          roomKind: fc.string({ maxLength: 32, unit: "grapheme-ascii" }),
          cap: fc.nat({ max: 0xffff }),
          schemaHash: fc.constant(0),
          lastSeq: u32,
        }),
        (f: WelcomeFields) => {
          expect(decodeServerText(text(toJsonWelcome(f)))).toEqual(decodeServerMessage(encodeWelcome(w.reset(), f).toBytes()));
        },
      ),
    ));

  it("state frames: the header and ack as binary, the view and events as JSON values", () =>
    fc.assert(
      fc.property(u32, u32, fc.option(u32, { nil: undefined }), fc.option(json, { nil: undefined }), fc.option(fc.array(json, { maxLength: 4 }), { nil: undefined }), (tick, time, ack, state, events) => {
        const fp = beginFrame(w.reset(), tick, time);
        if (ack !== undefined) writeFrameAck(w, ack);
        endFrame(w, fp, ack === undefined ? 0 : FrameFlag.Ack);
        const binary = decodeServerMessage(w.toBytes());
        const m = { t: "state", tick, time, ...(ack === undefined ? {} : { ack }), ...(state === undefined ? {} : { state }), ...(events === undefined ? {} : { events }) };
        expect(decodeServerText(JSON.stringify(m))).toEqual({ ...binary, hasState: state !== undefined, body: state, events: events ?? [] });
      }),
    ));

  it("binary frame sections: the delta is the body, events are byte views", () => {
    const fp = beginFrame(w.reset(), 3, 150);
    writeFrameEvents(w, [new Uint8Array([1, 2])]);
    w.bytes(new Uint8Array([9, 8, 7]));
    endFrame(w, fp, FrameFlag.Events | FrameFlag.Delta);
    expect(decodeServerMessage(w.toBytes())).toEqual({ kind: "frame", tick: 3, time: 150, ackSeq: -1, events: [new Uint8Array([1, 2])], hasState: true, body: new Uint8Array([9, 8, 7]) });
  });

  it("errors, pongs, stats and replies", () =>
    fc.assert(
      fc.property(code, u32, reason, finite, finite, u32, json, (c, retry, why, a, b, id, value) => {
        expect(decodeServerText(text({ t: "error", code: c, name: errorName(c), reason: why, retryAfterMs: retry }))).toEqual(
          decodeServerMessage(encodeError(w.reset(), c, why, retry).toBytes()),
        );
        expect(decodeServerText(text({ t: "pong", ct: a, st: b }))).toEqual(decodeServerMessage(encodePong(w.reset(), a, b).toBytes()));
        expect(decodeServerText(text({ t: "stats", id, stats: value }))).toEqual(decodeServerMessage(encodeStats(w.reset(), id, JSON.stringify(value)).toBytes()));
        expect(decodeServerText(text({ t: "reply", id, data: value }))).toEqual(decodeServerMessage(encodeReply(w.reset(), id, JSON.stringify(value)).toBytes()));
        expect(decodeServerText(text({ t: "reply", id, code: c, name: errorName(c), reason: why, retryAfterMs: retry }))).toEqual(
          decodeServerMessage(encodeReplyError(w.reset(), id, c, why, retry).toBytes()),
        );
      }),
    ));

  it("cadence: the room's new rates", () =>
    fc.assert(
      fc.property(fc.nat({ max: 0xffff }), fc.nat({ max: 0xffff }), (tickMs, syncIntervalMs) => {
        const binary = decodeServerMessage(encodeCadence(w.reset(), tickMs, syncIntervalMs).toBytes());
        expect(binary).toEqual({ kind: "cadence", tickMs, syncIntervalMs });
        expect(decodeServerText(text({ t: "cadence", tickMs, syncIntervalMs }))).toEqual(binary);
      }),
    ));
});

describe("decodeServerText on bad input", () => {
  const bad = (t: string) => (decodeServerText(t) as DecodeError).code;

  it("names the problem", () => {
    expect(bad("{nope")).toBe("bad_json");
    expect(bad("[1]")).toBe("bad_json");
    expect(bad("null")).toBe("bad_json");
    expect(bad('{"t":1}')).toBe("bad_json");
    expect(bad('{"t":"nope"}')).toBe("unknown_kind");
    expect(bad('{"t":"welcome","v":1,"playerId":1}')).toBe("bad_value");
    expect(bad('{"t":"state","tick":1}')).toBe("bad_value");
    expect(bad('{"t":"state","tick":1,"time":2,"ack":"x"}')).toBe("bad_value");
    expect(bad('{"t":"pong","ct":1}')).toBe("bad_value");
    expect(bad('{"t":"cadence","tickMs":50}')).toBe("bad_value");
    expect(bad('{"t":"cadence","tickMs":50,"syncIntervalMs":-1}')).toBe("bad_value");
    expect(bad('{"t":"reply","code":3}')).toBe("bad_value");
    expect(bad('{"t":"error","code":"x"}')).toBe("bad_value");
  });

  it("fills what a server may leave out: no ack, no events, no back-off", () => {
    expect(decodeServerText('{"t":"state","tick":1,"time":2}')).toEqual({ kind: "frame", tick: 1, time: 2, ackSeq: -1, events: [], hasState: false, body: undefined });
    expect(decodeServerText('{"t":"state","tick":1,"time":2,"state":null}')).toMatchObject({ hasState: true, body: null });
    expect(decodeServerText(`{"t":"error","code":${ErrorCode.room_full}}`)).toEqual({ kind: "error", code: ErrorCode.room_full, reason: "", retryAfterMs: 0 });
    expect(decodeServerText('{"t":"ka"}')).toEqual({ kind: "keepalive" });
  });

  it("holds JSON fields to their binary types (one reader for both dialects)", () => {
    const welcome = toJsonWelcome({ version: 1, playerId: 7, token: "t", tickMs: 50, syncIntervalMs: 50, serverTime: 1.5, roomEpoch: 2.5, reconnected: false, json: true, roomKind: "agar", cap: 8, schemaHash: 0, lastSeq: 0 });
    expect(decodeServerText(text(welcome))).toMatchObject({ kind: "welcome", playerId: 7, reconnected: false, json: true, schemaHash: 0 });
    expect(bad(text({ ...welcome, playerId: 1.5 }))).toBe("bad_value");
    expect(bad(text({ ...welcome, playerId: -1 }))).toBe("bad_value");
    expect(bad(text({ ...welcome, token: "x".repeat(129) }))).toBe("bad_value");
    expect(bad(text({ ...welcome, serverTime: "1" as unknown as number }))).toBe("bad_value");
    expect(bad('{"t":"error","code":4,"reason":"x","retryAfterMs":-1}')).toBe("bad_value");
    expect(bad('{"t":"state","tick":1,"time":2.5}')).toBe("bad_value");
  });

  it("reads an error by its code alone, as the binary decoder does (a name in the text is not read)", () => {
    expect(decodeServerText(`{"t":"error","code":${ErrorCode.room_full},"name":"other","reason":"x"}`)).toEqual({ kind: "error", code: ErrorCode.room_full, reason: "x", retryAfterMs: 0 });
  });

  it("binary stats and replies whose JSON text is broken are bad_json", () => {
    const broken = (bytes: Uint8Array) => (decodeServerMessage(bytes) as DecodeError).code;
    expect(broken(encodeStats(w.reset(), 1, "{oops").toBytes())).toBe("bad_json");
    expect(broken(encodeReply(w.reset(), 1, "").toBytes())).toBe("bad_json");
    expect(decodeServerMessage(encodeReplyError(w.reset(), 1, ErrorCode.internal, "x").toBytes())).not.toBeInstanceOf(DecodeError);
    expect(decodeServerMessage(new Uint8Array([Kind.Stats]))).toBeInstanceOf(DecodeError);
  });

  it("never throws on any text", () =>
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.record({ t: fc.constantFrom("welcome", "state", "error", "reply", "pong", "stats", "ka"), tick: fc.anything(), code: fc.anything(), id: fc.anything() }).map((o) => JSON.stringify(o) ?? "")), (s) => {
        const m = decodeServerText(s);
        expect(typeof m).toBe("object");
      }),
      { numRuns: 2000 },
    ));
});

describe("decodeServerText holds every field to its type", () => {
  // A valid message of each kind, and the type each field must have: `u32`, `finite`, `string`,
  // `bool`; `?` marks a field a server may leave out (the binary twin's default). A state's
  // `events` that is not an array reads as none (checking it would cost the SDK bytes for a
  // mistake that loses nothing but those events).
  const valid: Array<[Record<string, unknown>, Record<string, string>]> = [
    [
      { ...toJsonWelcome({ version: 1, playerId: 7, token: "t", tickMs: 50, syncIntervalMs: 50, serverTime: 1.5, roomEpoch: 2.5, reconnected: false, json: true, roomKind: "ttt", cap: 2, schemaHash: 0, lastSeq: 3 }) },
      { v: "u32", playerId: "u32", token: "string", tickMs: "u32", syncIntervalMs: "u32", serverTime: "finite", roomEpoch: "finite", reconnected: "bool", roomKind: "string", cap: "u32", lastSeq: "u32" },
    ],
    [{ t: "state", tick: 1, time: 2, ack: 3, state: { a: 1 }, events: [1] }, { tick: "u32", time: "u32", ack: "u32?" }],
    [{ t: "error", code: ErrorCode.room_full, name: "room_full", reason: "full", retryAfterMs: 5 }, { code: "u32", reason: "string?", retryAfterMs: "u32?" }],
    [{ t: "pong", ct: 1.5, st: 2.5 }, { ct: "finite", st: "finite" }],
    [{ t: "stats", id: 4, stats: { a: 1 } }, { id: "u32" }],
    [{ t: "reply", id: 4, code: ErrorCode.illegal_move, name: "illegal_move", reason: "no", retryAfterMs: 5 }, { id: "u32", code: "u32?", reason: "string?", retryAfterMs: "u32?" }],
  ];
  const anyJson = fc.oneof(fc.string(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.array(fc.nat(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.nat(), { maxKeys: 2 }));
  const fits: Record<string, (v: unknown) => boolean> = {
    u32: (v) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 0xffffffff,
    finite: (v) => typeof v === "number" && Number.isFinite(v),
    string: (v) => typeof v === "string",
    bool: (v) => typeof v === "boolean",
  };

  it("valid messages decode", () => {
    for (const [m] of valid) expect(decodeServerText(JSON.stringify(m))).not.toBeInstanceOf(DecodeError);
  });

  it("an object whose toString is not a function, where a number belongs, is bad_value (not a TypeError)", () => {
    const out = decodeServerText(JSON.stringify({ ...valid[0]![0], v: { toString: 0 } }));
    expect(out).toBeInstanceOf(DecodeError);
    expect((out as DecodeError).code).toBe("bad_value");
  });

  it("a field of the wrong type is bad_value", () =>
    fc.assert(
      fc.property(fc.constantFrom(...valid), fc.nat(), anyJson, ([m, types], pick, value) => {
        const keys = Object.keys(types);
        const key = keys[pick % keys.length]!;
        fc.pre(!fits[types[key]!.replace("?", "")]!(value));
        const out = decodeServerText(JSON.stringify({ ...m, [key]: value }));
        expect(out, `${m.t}.${key} = ${JSON.stringify(value)}`).toBeInstanceOf(DecodeError);
        expect((out as DecodeError).code).toBe("bad_value");
      }),
      { numRuns: 1000 },
    ));

  it("a required field left out is bad_value", () => {
    for (const [m, types] of valid) {
      for (const [key, type] of Object.entries(types)) {
        if (type.endsWith("?")) continue;
        const { [key]: _, ...rest } = m;
        expect(decodeServerText(JSON.stringify(rest)), `${m.t} without ${key}`).toMatchObject({ code: "bad_value" });
      }
    }
  });

  it("keys named after Object.prototype members, or __proto__, read as plain fields", () => {
    const t = '{"t":"error","__proto__":{"code":4},"constructor":1,"toString":2,"code":7,"reason":"x"}';
    expect(decodeServerText(t)).toEqual({ kind: "error", code: 7, reason: "x", retryAfterMs: 0 });
    expect(decodeServerText('{"t":"error","__proto__":{"code":4},"reason":"x"}')).toMatchObject({ code: "bad_value" });
    expect(decodeServerText('{"t":"pong","ct":1e400,"st":1}')).toMatchObject({ code: "bad_value" });
  });
});
