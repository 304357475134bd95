import { BinaryWriter } from "./binaryWriter";
import { encodeHello, encodeInput, encodeLeave, encodePing, encodeReceipt, encodeStatsRequest } from "./clientMessages";
import { MAX_INPUT_PAYLOAD_BYTES, PROTOCOL_VERSION } from "./constants";
import { DecodeError } from "./decodeError";
import { JSON_KEEPALIVE, decodeServerText, type DecodedServerMessage, type JsonClientMessage } from "./jsonMessages";
import { encodeRoomMessage, isMessageType } from "./roomMessages";
import { decodeServerBytes, type AnswerReader } from "./serverMessages";

/**
 * How a client speaks one dialect of the protocol: every message a connection sends (its
 * requests are a {@link RequestDialect}), and how it reads what the room sends, in the one decoded
 * shape both dialects share. The SDK's connection speaks through one. Binary is what a client speaks unless it names the JSON
 * dialect (a JSON game's declaration holds `json: jsonDialect`), so a page of a binary game
 * bundles no JSON decoding.
 *
 * Binary messages are returned as exact-size copies: a socket may queue the bytes, so a reused
 * buffer must not be handed out.
 */
export interface ClientDialect {
  /** True for the JSON text dialect. */
  readonly json: boolean;
  /**
   * Decodes one server message (a WebSocket message's data). Never throws. The answers to
   * requests (stats, reply) are read by `answers` (the protocol's `readAnswer`); with null they
   * are not read and null comes back, so a client that never asks bundles no reader of them.
   */
  decode(data: unknown, answers: AnswerReader | null): DecodedServerMessage | DecodeError | null;
  /**
   * A hello with the reconnect token (empty for a new seat), the display name and the player's
   * join options (a JSON-able object; none when undefined).
   */
  hello(token: string, name: string, options?: object): string | Uint8Array;
  /**
   * One input: binary rooms take a `Uint8Array` of at most MAX_INPUT_PAYLOAD_BYTES (see
   * {@link checkInputPayload}), JSON rooms any JSON value.
   */
  input(seq: number, payload: unknown): string | Uint8Array;
  /** A clock ping. */
  ping(clientTime: number): string | Uint8Array;
  /**
   * What keeps an idle socket alive: a clock ping in binary rooms (which never sleep), the fixed
   * JSON keepalive text in JSON rooms (a sleeping room answers it without waking).
   */
  keepalive(clientTime: number): string | Uint8Array;
  /** A receipt (counts taken modulo 2^32; see `ReceiptCounter`). */
  receipt(messages: number, units: number): string | Uint8Array;
  /** A leave (the seat is freed at once). */
  leave(): string | Uint8Array;
}

/**
 * How a client asks a room outside the input stream, in one dialect: room messages and `tk:stats`
 * requests. Apart from {@link ClientDialect} so that a page that never asks (the SDK's
 * `withMessages` brings these) bundles none of it.
 */
export interface RequestDialect {
  /** A `tk:stats` request. */
  statsRequest(requestId: number): string | Uint8Array;
  /**
   * A room message; `json` is the payload's JSON text.
   * @throws RangeError for a type that is not a legal message type name.
   */
  message(requestId: number, type: string, json: string): string | Uint8Array;
}

/** The JSON dialect's type: a {@link ClientDialect} that speaks JSON text. */
export type JsonDialect = ClientDialect & {
  /** Always true: the JSON text dialect. */
  readonly json: true;
};

/**
 * `payload` if it can be a binary input (a `Uint8Array` of at most MAX_INPUT_PAYLOAD_BYTES).
 * @throws TypeError for anything but bytes, RangeError for too many.
 */
export function checkInputPayload(payload: unknown): Uint8Array {
  if (!(payload instanceof Uint8Array)) throw new TypeError("binary input payload must be a Uint8Array");
  if (payload.length > MAX_INPUT_PAYLOAD_BYTES) throw new RangeError(`input payload over ${MAX_INPUT_PAYLOAD_BYTES} bytes`);
  return payload;
}

/**
 * Writes every binary message a client sends: each is encoded and copied out in one synchronous
 * call, so one writer serves every connection.
 */
const w = /* @__PURE__ */ new BinaryWriter(256);

/** The binary dialect: the protocol's frames. */
export const binaryDialect: ClientDialect = {
  json: false,
  decode(data, answers) {
    if (data instanceof ArrayBuffer) return decodeServerBytes(new Uint8Array(data), answers);
    if (ArrayBuffer.isView(data)) return decodeServerBytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), answers);
    return new DecodeError("bad_value", "not_bytes");
  },
  hello: (token, name, options) => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token, name, options: options && JSON.stringify(options) }).toBytes(),
  input: (seq, payload) => encodeInput(w.reset(), seq, checkInputPayload(payload)).toBytes(),
  ping: (clientTime) => encodePing(w.reset(), clientTime).toBytes(),
  keepalive: (clientTime) => encodePing(w.reset(), clientTime).toBytes(),
  receipt: (messages, units) => encodeReceipt(w.reset(), messages, units).toBytes(),
  leave: () => encodeLeave(w.reset()).toBytes(),
};

/** The binary dialect's requests: the protocol's STATS request and MESSAGE frames. */
export const binaryRequests: RequestDialect = {
  statsRequest: (requestId) => encodeStatsRequest(w.reset(), requestId).toBytes(),
  message: (requestId, type, json) => encodeRoomMessage(w.reset(), requestId, type, json).toBytes(),
};

const text = (m: JsonClientMessage): string => JSON.stringify(m);

/** The JSON text dialect, for turn-based rooms where readability beats bytes. */
export const jsonDialect: JsonDialect = {
  json: true,
  decode(data, answers) {
    return typeof data === "string" ? decodeServerText(data, answers) : new DecodeError("bad_value", "not_text");
  },
  hello: (token, name, options) => text({ t: "hello", v: PROTOCOL_VERSION, token, name, options }),
  input: (seq, data) => text({ t: "input", seq, data }),
  ping: (ct) => text({ t: "ping", ct }),
  keepalive: () => JSON_KEEPALIVE,
  receipt: (messages, units) => text({ t: "rc", m: messages % 0x100000000, b: units % 0x100000000 }),
  leave: () => text({ t: "leave" }),
};

/** The requests of `dialect`'s language: {@link jsonRequests} for the JSON dialect, else {@link binaryRequests}. */
export function requestsOf(dialect: ClientDialect): RequestDialect {
  return dialect.json ? jsonRequests : binaryRequests;
}

/** The JSON dialect's requests: `stats` and `msg` text. */
export const jsonRequests: RequestDialect = {
  statsRequest: (id) => text({ t: "stats", id }),
  message(requestId, type, json) {
    if (!isMessageType(type)) throw new RangeError(`bad message type ${JSON.stringify(type)}`);
    // The type matched isMessageType (no quotes or escapes), and `json` is JSON text: spliced as they are.
    return `{"t":"msg","type":"${type}","id":${requestId},"data":${json}}`;
  },
};
