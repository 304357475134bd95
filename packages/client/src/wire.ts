import {
  BinaryWriter,
  DecodeError,
  MAX_INPUT_PAYLOAD_BYTES,
  MAX_MESSAGE_PAYLOAD_CHARS,
  PROTOCOL_VERSION,
  decodeJsonServerMessage,
  JSON_KEEPALIVE,
  decodeServerMessage,
  encodeHello,
  encodeInput,
  encodeInputs,
  encodeLeave,
  encodeReceipt,
  encodePing,
  encodeRoomMessage,
  encodeStatsRequest,
  errorName,
  isMessageType,
  type InputEntry,
  type JsonClientMessage,
  type WelcomeMessage,
} from "@tikron/protocol";
import { RequestError } from "./pendingRequests";

/** The welcome, identical for binary and JSON rooms (JSON rooms report `schemaHash` 0). */
export type WelcomeInfo = Omit<WelcomeMessage, "kind">;

/** A state frame, mode-independent. */
export interface IncomingFrame {
  kind: "frame";
  tick: number;
  /** Room time (ms since `roomEpoch`) the tick was simulated at. */
  time: number;
  /** Highest processed input seq, or -1 when the frame carries no ack. */
  ackSeq: number;
  /** Event bodies: byte views in binary rooms, JSON values in JSON rooms. */
  events: readonly unknown[];
  /** True when the frame carries a state section (delta bytes or a JSON view). */
  hasState: boolean;
  /** The state section: delta bytes (binary) or the JSON view. */
  body: unknown;
}

/** A server message after decoding, the same shape for both modes. */
export type Incoming =
  | ({ kind: "welcome" } & WelcomeInfo)
  | IncomingFrame
  | { kind: "error"; code: number; name: string; reason: string; retryAfterMs: number }
  | { kind: "pong"; clientTime: number; serverTime: number }
  | { kind: "keepalive" }
  | { kind: "stats"; requestId: number; stats: unknown }
  | IncomingReply;

/** The answer to a room message request: `code` 0 with its `value`, or a refusal. */
export interface IncomingReply {
  kind: "reply";
  requestId: number;
  /** 0 on success, else the error code. */
  code: number;
  /** The error name ("" on success). */
  name: string;
  reason: string;
  retryAfterMs: number;
  /** The reply value (success only). */
  value: unknown;
}

const EMPTY: readonly unknown[] = [];

/**
 * Decodes one WebSocket message: binary frames with the protocol's binary decoder, text frames
 * as JSON mode. Never throws.
 */
export function decodeIncoming(data: unknown): Incoming | DecodeError {
  if (typeof data === "string") return fromJson(data);
  const bytes =
    data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : ArrayBuffer.isView(data)
        ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
        : null;
  if (!bytes) return new DecodeError("bad_value", "unsupported message data type");
  const m = decodeServerMessage(bytes);
  if (m instanceof DecodeError) return m;
  switch (m.kind) {
    case "welcome":
    case "pong":
      return m;
    case "frame":
      return {
        kind: "frame",
        tick: m.tick,
        time: m.time,
        ackSeq: m.ackSeq,
        events: m.events.length === 0 ? EMPTY : m.events,
        hasState: m.delta !== null,
        body: m.delta,
      };
    case "error":
      return { kind: "error", code: m.code, name: errorName(m.code), reason: m.reason, retryAfterMs: m.retryAfterMs };
    case "stats": {
      let stats: unknown;
      try {
        stats = JSON.parse(m.json);
      } catch {
        return new DecodeError("bad_json", "stats body is not valid JSON");
      }
      return { kind: "stats", requestId: m.requestId, stats };
    }
    case "reply": {
      let value: unknown;
      try {
        value = m.code === 0 ? JSON.parse(m.payload) : undefined;
      } catch {
        return new DecodeError("bad_json", "reply body is not valid JSON");
      }
      return { kind: "reply", requestId: m.requestId, code: m.code, name: m.code === 0 ? "" : errorName(m.code), reason: m.reason, retryAfterMs: m.retryAfterMs, value };
    }
  }
}

function num(v: unknown, fallback = 0): number {
  return typeof v === "number" && Number.isFinite(v) ? v : fallback;
}

function fromJson(text: string): Incoming | DecodeError {
  const m = decodeJsonServerMessage(text);
  if (m instanceof DecodeError) return m;
  switch (m.t) {
    case "welcome":
      if (typeof m.token !== "string" || !Number.isFinite(m.playerId)) {
        return new DecodeError("bad_value", "welcome without playerId/token");
      }
      return {
        kind: "welcome",
        version: num(m.v),
        playerId: m.playerId,
        token: m.token,
        tickMs: num(m.tickMs),
        syncIntervalMs: num(m.syncIntervalMs),
        serverTime: num(m.serverTime),
        roomEpoch: num(m.roomEpoch),
        reconnected: m.reconnected === true,
        json: true,
        roomKind: String(m.roomKind ?? ""),
        cap: num(m.cap),
        schemaHash: 0,
        lastSeq: num(m.lastSeq),
      };
    case "state":
      return {
        kind: "frame",
        tick: num(m.tick),
        time: num(m.time),
        ackSeq: num(m.ack, -1),
        events: Array.isArray(m.events) ? m.events : EMPTY,
        hasState: m.state !== undefined,
        body: m.state,
      };
    case "error":
      return {
        kind: "error",
        code: num(m.code),
        name: typeof m.name === "string" ? m.name : errorName(num(m.code)),
        reason: String(m.reason ?? ""),
        retryAfterMs: Math.max(0, num(m.retryAfterMs)),
      };
    case "pong":
      if (typeof m.ct !== "number" || typeof m.st !== "number") return new DecodeError("bad_value", "pong without ct/st");
      return { kind: "pong", clientTime: m.ct, serverTime: m.st };
    case "stats":
      return { kind: "stats", requestId: num(m.id), stats: m.stats };
    case "ka":
      return { kind: "keepalive" };
    case "reply": {
      const code = num(m.code);
      return {
        kind: "reply",
        requestId: num(m.id),
        code,
        name: code === 0 ? "" : typeof m.name === "string" ? m.name : errorName(code),
        reason: String(m.reason ?? ""),
        retryAfterMs: Math.max(0, num(m.retryAfterMs)),
        value: m.data,
      };
    }
    default:
      return new DecodeError("unknown_kind", `unknown server message type ${JSON.stringify((m as { t: unknown }).t)?.slice(0, 32)}`);
  }
}

/**
 * Encodes client messages in the room's mode. Binary messages are returned as exact-size copies:
 * a socket may queue the bytes (e.g. while compressing), so a reused buffer must not be handed out.
 */
export class ClientWire {
  readonly #w = new BinaryWriter(256);

  constructor(readonly json: boolean) {}

  hello(token: string, name: string): string | Uint8Array {
    if (this.json) return this.#text({ t: "hello", v: PROTOCOL_VERSION, token, name });
    return encodeHello(this.#w.reset(), { version: PROTOCOL_VERSION, token, name }).toBytes();
  }

  /** Binary rooms need a `Uint8Array` payload of at most MAX_INPUT_PAYLOAD_BYTES; JSON rooms any JSON value. */
  input(seq: number, payload: unknown): string | Uint8Array {
    if (this.json) return this.#text({ t: "input", seq, data: payload });
    return encodeInput(this.#w.reset(), seq, checkBinaryPayload(payload)).toBytes();
  }

  /** Several binary inputs in one INPUT frame (at most MAX_INPUTS_PER_FRAME). */
  inputs(entries: readonly InputEntry[]): Uint8Array {
    return encodeInputs(this.#w.reset(), entries).toBytes();
  }

  ping(clientTime: number): string | Uint8Array {
    if (this.json) return this.#text({ t: "ping", ct: clientTime });
    return encodePing(this.#w.reset(), clientTime).toBytes();
  }

  /**
   * Keeps an idle socket alive. JSON rooms get the fixed keepalive text, which a sleeping
   * (hibernated) room answers without waking; binary rooms, which never sleep, a clock ping.
   */
  keepalive(clientTime: number): string | Uint8Array {
    return this.json ? JSON_KEEPALIVE : this.ping(clientTime);
  }

  statsRequest(id: number): string | Uint8Array {
    if (this.json) return this.#text({ t: "stats", id });
    return encodeStatsRequest(this.#w.reset(), id).toBytes();
  }

  /** Confirms what was read on this socket (see `ReceiptCounter`). */
  receipt(messages: number, units: number): string | Uint8Array {
    if (this.json) return this.#text({ t: "rc", m: messages % 0x100000000, b: units % 0x100000000 });
    return encodeReceipt(this.#w.reset(), messages, units).toBytes();
  }

  /** A room message; `type` is a checked name and `json` the payload's JSON text (see `messageJson`). */
  message(requestId: number, type: string, json: string): string | Uint8Array {
    // The type matched isMessageType (no quotes or escapes), so splicing it into text is safe.
    if (this.json) return `{"t":"msg","type":"${type}","id":${requestId},"data":${json}}`;
    return encodeRoomMessage(this.#w.reset(), requestId, type, json).toBytes();
  }

  leave(): string | Uint8Array {
    if (this.json) return this.#text({ t: "leave" });
    return encodeLeave(this.#w.reset()).toBytes();
  }

  #text(m: JsonClientMessage): string {
    return JSON.stringify(m);
  }
}

/** Throws unless `payload` can be a binary input (a `Uint8Array` of at most MAX_INPUT_PAYLOAD_BYTES). */
export function checkBinaryPayload(payload: unknown): Uint8Array {
  if (!(payload instanceof Uint8Array)) throw new TypeError("binary rooms take Uint8Array input payloads");
  if (payload.length > MAX_INPUT_PAYLOAD_BYTES) {
    throw new RangeError(`input payload of ${payload.length} bytes exceeds ${MAX_INPUT_PAYLOAD_BYTES}`);
  }
  return payload;
}

/** UTF-8 length of a string without encoding it (for byte counters). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
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
