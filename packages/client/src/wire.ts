import {
  BinaryWriter,
  DecodeError,
  MAX_INPUT_PAYLOAD_BYTES,
  MAX_MESSAGE_PAYLOAD_CHARS,
  PROTOCOL_VERSION,
  JSON_KEEPALIVE,
  decodeServerMessage,
  decodeServerText,
  encodeHello,
  encodeInputs,
  encodeLeave,
  encodeReceipt,
  encodePing,
  encodeRoomMessage,
  encodeStatsRequest,
  isMessageType,
  textEncoder,
  type DecodedServerMessage,
  type FrameMessage,
  type InputEntry,
  type JsonClientMessage,
  type WelcomeMessage,
} from "@tikron/protocol";
import { RequestError } from "./pendingRequests";

/** The welcome, identical for binary and JSON rooms (JSON rooms report `schemaHash` 0). */
export type WelcomeInfo = Omit<WelcomeMessage, "kind">;

/** A state frame of either dialect: delta and event bytes in binary rooms, JSON values in JSON rooms. */
export type IncomingFrame = FrameMessage<unknown, unknown>;

/** A server message after decoding, the same shape for both dialects (the protocol's one decoded shape). */
export type Incoming = DecodedServerMessage;

/**
 * Decodes one WebSocket message: binary frames with the protocol's binary decoder, text frames
 * as the JSON dialect. Never throws.
 */
export function decodeIncoming(data: unknown): Incoming | DecodeError {
  if (typeof data === "string") return decodeServerText(data);
  if (data instanceof ArrayBuffer) return decodeServerMessage(new Uint8Array(data));
  if (ArrayBuffer.isView(data)) return decodeServerMessage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return new DecodeError("bad_value", "unsupported message data type");
}

/**
 * Encodes client messages in the room's dialect. Binary messages are returned as exact-size
 * copies: a socket may queue the bytes (e.g. while compressing), so a reused buffer must not be
 * handed out.
 */
export class ClientWire {
  readonly #w = new BinaryWriter(256);

  constructor(readonly json: boolean) {}

  /** The message as JSON text in JSON rooms, else the bytes `encode(writer, ...args)` writes. */
  #pick<A extends unknown[]>(message: JsonClientMessage, encode: (w: BinaryWriter, ...args: A) => BinaryWriter, ...args: A): string | Uint8Array {
    return this.json ? JSON.stringify(message) : encode(this.#w.reset(), ...args).toBytes();
  }

  hello(token: string, name: string): string | Uint8Array {
    return this.#pick({ t: "hello", v: PROTOCOL_VERSION, token, name }, encodeHello, { version: PROTOCOL_VERSION, token, name });
  }

  /** Binary rooms need a `Uint8Array` payload of at most MAX_INPUT_PAYLOAD_BYTES; JSON rooms any JSON value. */
  input(seq: number, payload: unknown): string | Uint8Array {
    return this.json ? JSON.stringify({ t: "input", seq, data: payload }) : this.inputs([{ seq, payload: checkBinaryPayload(payload) }]);
  }

  /** Several binary inputs in one INPUT frame (at most MAX_INPUTS_PER_FRAME). */
  inputs(entries: readonly InputEntry[]): Uint8Array {
    return encodeInputs(this.#w.reset(), entries).toBytes();
  }

  ping(clientTime: number): string | Uint8Array {
    return this.#pick({ t: "ping", ct: clientTime }, encodePing, clientTime);
  }

  /**
   * Keeps an idle socket alive. JSON rooms get the fixed keepalive text, which a sleeping
   * (hibernated) room answers without waking; binary rooms, which never sleep, a clock ping.
   */
  keepalive(clientTime: number): string | Uint8Array {
    return this.json ? JSON_KEEPALIVE : this.ping(clientTime);
  }

  statsRequest(id: number): string | Uint8Array {
    return this.#pick({ t: "stats", id }, encodeStatsRequest, id);
  }

  /** Confirms what was read on this socket (see `ReceiptCounter`). */
  receipt(messages: number, units: number): string | Uint8Array {
    return this.#pick({ t: "rc", m: messages % 0x100000000, b: units % 0x100000000 }, encodeReceipt, messages, units);
  }

  /** A room message; `type` is a checked name and `json` the payload's JSON text (see `messageJson`). */
  message(requestId: number, type: string, json: string): string | Uint8Array {
    // The type matched isMessageType (no quotes or escapes), so splicing it into text is safe.
    if (this.json) return `{"t":"msg","type":"${type}","id":${requestId},"data":${json}}`;
    return encodeRoomMessage(this.#w.reset(), requestId, type, json).toBytes();
  }

  leave(): string | Uint8Array {
    return this.#pick({ t: "leave" }, encodeLeave);
  }
}

/** Throws unless `payload` can be a binary input (a `Uint8Array` of at most MAX_INPUT_PAYLOAD_BYTES). */
export function checkBinaryPayload(payload: unknown): Uint8Array {
  if (!(payload instanceof Uint8Array)) throw new TypeError("binary input payload must be a Uint8Array");
  if (payload.length > MAX_INPUT_PAYLOAD_BYTES) throw new RangeError(`input payload over ${MAX_INPUT_PAYLOAD_BYTES} bytes`);
  return payload;
}

/**
 * UTF-8 length of a string (for byte counters). Encoding it costs an allocation per text message,
 * which only JSON rooms (turn-based, a few messages a second) send.
 */
export function utf8Length(s: string): number {
  return textEncoder.encode(s).length;
}

/** A room message's payload as JSON text, checked against the protocol's limits before anything is sent. */
export function messageJson(type: string, payload: unknown): string {
  if (!isMessageType(type)) throw new RequestError("bad_message", `bad message type ${JSON.stringify(type)}`);
  const json = JSON.stringify(payload ?? null);
  if (json.length > MAX_MESSAGE_PAYLOAD_CHARS) {
    throw new RequestError("message_too_large", `payload of ${json.length} chars exceeds ${MAX_MESSAGE_PAYLOAD_CHARS}`);
  }
  return json;
}
