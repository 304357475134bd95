/**
 * fast-check arbitraries for what a hostile client can put on the wire: random bytes, valid
 * frames mutated (bit flips, truncation, splices, appended junk), well-formed frames carrying
 * hostile values (NaN, ±Infinity, huge magnitudes, extreme seqs, bad flags, wrong lengths),
 * unknown kinds, oversized frames, and JSON text with wrong types.
 */
import fc from "fast-check";
import {
  BinaryWriter,
  Kind,
  MAX_CLIENT_FRAME_BYTES,
  PROTOCOL_VERSION,
  encodeHello,
  encodeInputs,
  encodeLeave,
  encodePing,
  encodeRoomMessage,
  encodeStatsRequest,
} from "@tikron/protocol";

/** One message as a socket delivers it: binary bytes or a text frame. */
export type WireFrame = Uint8Array | string;

const w = new BinaryWriter(1 << 16);

/** f32 values that break naive validation. */
const hostileFloat: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 1, -1, 1.5, 1.5000001, 1.06, 3.4e38, -3.4e38, 1e-45, 2 ** 24, -(2 ** 31)),
  fc.float({ noDefaultInfinity: false, noNaN: false }),
  fc.double({ min: -2, max: 2, noNaN: true }),
);

/** A hostile level byte: the ends of a stick's 255 levels (0..254), just past them, anything. */
const hostileLevel: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(0, 1, 2, 126, 127, 128, 253, 254, 255), fc.integer({ min: 0, max: 255 }));

/**
 * A raw input payload: usually agar's declared 3 bytes (u8 dx, u8 dy levels, bool boost) with
 * hostile levels, or an fps-declared one (tag, then a move's levels or a shot's f64 time, NaN and
 * ±Infinity included); sometimes agar's old 9-byte float layout or random bytes of any length.
 */
const agarPayload: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(hostileLevel, hostileLevel, hostileLevel).map((b) => Uint8Array.from(b)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(0, 1, 2, 255), hostileLevel, hostileLevel, hostileLevel, fc.integer({ min: 0, max: 0xffff })).map(([tag, a, b, c, aim]) => new BinaryWriter(8).u8(tag).u8(a).u8(b).u8(c).u16(aim).toBytes()) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(0, 1), hostileFloat, fc.integer({ min: 0, max: 0xffff })).map(([tag, t, aim]) => new BinaryWriter(11).u8(tag).f64(t).u16(aim).toBytes()) },
  { weight: 1, arbitrary: fc.tuple(hostileFloat, hostileFloat, fc.oneof(fc.constantFrom(0, 1, 2, 128, 255), fc.integer({ min: 0, max: 255 }))).map(([dx, dy, flags]) => new BinaryWriter(9).f32(dx).f32(dy).u8(flags).toBytes()) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 300 }) },
);

const hostileSeq: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff),
  fc.integer({ min: 0, max: 1000 }),
  fc.integer({ min: 0, max: 0xffffffff }),
);

const hostileString = (maxBytes: number): fc.Arbitrary<string> =>
  fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: "binary", maxLength: maxBytes }), fc.constant("\u0000\ud800"), fc.string({ minLength: maxBytes, maxLength: maxBytes * 2 }));

/** Structurally valid frames (they decode), with values a server must still refuse or bound. */
export const wellFormedFrame: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.record({ version: fc.oneof(fc.constant(PROTOCOL_VERSION), fc.integer({ min: 0, max: 0xffff })), token: hostileString(128), name: hostileString(64) }).map((h) => {
    try {
      return encodeHello(w.reset(), h).toBytes();
    } catch {
      return encodeHello(w.reset(), { version: h.version, token: "", name: "x" }).toBytes();
    }
  }),
  fc.array(fc.record({ seq: hostileSeq, payload: agarPayload }), { minLength: 1, maxLength: 16 }).map((inputs) => encodeInputs(w.reset(), inputs).toBytes()),
  hostileFloat.map((t) => {
    // Pings must carry a finite time; build the bytes by hand so NaN/Infinity reach the decoder.
    const b = new BinaryWriter(9).u8(Kind.Ping).f64(t).toBytes();
    return Number.isFinite(t) ? encodePing(w.reset(), t).toBytes() : b;
  }),
  fc.integer({ min: 0, max: 0xffffffff }).map((id) => encodeStatsRequest(w.reset(), id).toBytes()),
  fc.constant(0).map(() => encodeLeave(w.reset()).toBytes()),
  // Room messages: no game here handles any, and a payload may be over its limit or not JSON.
  fc
    .record({ id: fc.integer({ min: 0, max: 0xffffffff }), type: fc.constantFrom("chat", "constructor", "__proto__", "rematch"), payload: fc.oneof(fc.json(), fc.string({ maxLength: 2100 })) })
    .map((m) => encodeRoomMessage(w.reset(), m.id, m.type, m.payload).toBytes()),
);

/** Applies one random corruption to a frame. */
function mutate(frame: Uint8Array): fc.Arbitrary<Uint8Array> {
  const n = frame.length;
  return fc.oneof(
    fc.array(fc.nat({ max: Math.max(0, n * 8 - 1) }), { minLength: 1, maxLength: 4 }).map((bits) => {
      const out = frame.slice();
      for (const b of bits) if (out.length > 0) out[b >> 3]! ^= 1 << (b & 7);
      return out;
    }),
    fc.nat({ max: Math.max(0, n - 1) }).map((cut) => frame.slice(0, cut)),
    fc.uint8Array({ minLength: 1, maxLength: 16 }).map((junk) => concat(frame, junk)),
    fc.tuple(fc.nat({ max: Math.max(0, n - 1) }), fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([at, bytes]) => {
      const out = frame.slice();
      out.set(bytes.subarray(0, Math.max(0, out.length - at)), Math.min(at, out.length));
      return out;
    }),
    // Huge varuint length claims right after the kind byte (and after the input count).
    fc.constantFrom([0xff, 0xff, 0xff, 0xff, 0x0f], [0xff, 0xff, 0xff, 0xff, 0xff, 0x01], [0x80, 0x80, 0x80, 0x80, 0x80]).map((v) =>
      concat(frame.subarray(0, frame[0] === Kind.Input ? 2 : 1), new Uint8Array(v), frame.subarray(2)),
    ),
  );
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const oversized: fc.Arbitrary<Uint8Array> = fc.tuple(fc.integer({ min: MAX_CLIENT_FRAME_BYTES + 1, max: MAX_CLIENT_FRAME_BYTES * 4 }), fc.constantFrom(Kind.Input, Kind.Hello, 0x00, 0xff)).map(([len, kind]) => {
  const b = new Uint8Array(len);
  b[0] = kind;
  b[1] = 16;
  return b;
});

const randomBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 64 }),
  fc.tuple(fc.integer({ min: 0, max: 0xff }), fc.uint8Array({ maxLength: 40 })).map(([k, rest]) => concat(new Uint8Array([k]), rest)),
  fc.tuple(fc.constantFrom(Kind.Hello, Kind.Input, Kind.Ping, Kind.StatsRequest, Kind.Leave, Kind.Message, Kind.Welcome, Kind.Frame, 0x06, 0x7f, 0x80), fc.uint8Array({ maxLength: 40 })).map(([k, rest]) => concat(new Uint8Array([k]), rest)),
);

const jsonValue = fc.oneof(fc.constantFrom(null, true, -1, 1.5, 2 ** 53, 1e308, "", "1", [], {}), fc.string({ maxLength: 8 }), fc.integer(), fc.double());
const textFrame: fc.Arbitrary<string> = fc.oneof(
  fc.record({ t: fc.constantFrom("hello", "input", "ping", "stats", "leave", "msg", "welcome", "__proto__", 1), v: jsonValue, seq: jsonValue, data: jsonValue, ct: jsonValue, id: jsonValue, token: jsonValue, name: jsonValue, type: fc.oneof(jsonValue, fc.constantFrom("chat", "constructor", "__proto__")) }, { requiredKeys: ["t"] }).map((o) => JSON.stringify(o)),
  fc.constantFrom('{"t":"hello","v":1,"token":"","name":"x"}', '{"t":"input","seq":1,"data":[0,0,0,0,0,0,0,0,0]}', '{"t":"ping","ct":1e999}', "[]", "null", "{", '{"t":"input","seq":-1}', '{"__proto__":{"t":"leave"}}'),
  fc.string({ maxLength: 64 }),
  fc.integer({ min: MAX_CLIENT_FRAME_BYTES + 1, max: MAX_CLIENT_FRAME_BYTES * 2 }).map((n) => `{"t":"ping","ct":1,"pad":"${"x".repeat(n)}"}`),
);

/** Any hostile message. */
export const hostileFrame: fc.Arbitrary<WireFrame> = fc.oneof(
  { weight: 4, arbitrary: wellFormedFrame },
  { weight: 5, arbitrary: wellFormedFrame.chain(mutate) },
  { weight: 3, arbitrary: randomBytes },
  { weight: 2, arbitrary: textFrame },
  { weight: 1, arbitrary: oversized },
);
