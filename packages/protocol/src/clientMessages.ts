import { BinaryReader } from "./binaryReader";
import type { BinaryWriter } from "./binaryWriter";
import { MAX_CLIENT_FRAME_BYTES } from "./constants";
import { DecodeError } from "./decodeError";
import { InputFrameReader, type InputEntry } from "./inputFrame";
import { readRoomMessage, type RoomMessage } from "./roomMessages";
import { KIND_HELLO, KIND_INPUT, KIND_LEAVE, KIND_MESSAGE, KIND_PING, KIND_RECEIPT, KIND_STATS_REQUEST } from "./wireCodes";

/**
 * decodeClientMessage copies the entries out, so one reader serves every call. Marked pure so a
 * bundle that never decodes client messages (the browser SDK) drops the reader and its class.
 */
const sharedInputReader = /* @__PURE__ */ new InputFrameReader();

/** Join (or rejoin, with the reconnect token from a previous welcome). */
export interface HelloMessage {
  kind: "hello";
  /** Protocol version the client speaks ({@link PROTOCOL_VERSION}). */
  version: number;
  /** Reconnect token from an earlier welcome; empty for a new seat. */
  token: string;
  /** Display name (≤ 64 bytes of UTF-8). */
  name: string;
  /**
   * The player's join options as JSON text (an object; at most `MAX_JOIN_OPTIONS_BYTES` bytes,
   * which the room checks), or empty for none. Binary: a string after the name, left out by
   * clients that send none; the frame limit bounds what the decoder reads, the room the rest.
   */
  options: string;
}

export type { InputEntry } from "./inputFrame";

/** One or more inputs, batched by the client when it sends faster than it flushes. */
export interface InputMessage {
  kind: "input";
  /** The inputs, oldest first (≤ {@link MAX_INPUTS_PER_FRAME}). */
  inputs: InputEntry[];
}

/** NTP-style clock sync request; the server echoes `clientTime` with its own time. */
export interface PingMessage {
  kind: "ping";
  /** Client clock at sending (ms), echoed in the pong. */
  clientTime: number;
}

/** Ask for the room's `tk:stats` snapshot. */
export interface StatsRequestMessage {
  kind: "statsRequest";
  /** Request id, echoed in the answer. */
  requestId: number;
}

/** Leave for good: the seat is freed at once, no reconnection window. */
export interface LeaveMessage {
  kind: "leave";
}

/**
 * What the client has read so far on this socket: server messages and bytes received since its
 * hello went out, both modulo 2^32. The room's per-client backlog is what it sent minus this.
 */
export interface ReceiptMessage {
  /** Discriminator. */
  kind: "receipt";
  /** Server messages read on this socket, modulo 2^32. */
  messages: number;
  /** Bytes of them read (UTF-16 units for text), modulo 2^32. */
  bytes: number;
}

/** Every binary client→server message, told apart by `kind`. */
export type ClientMessage = HelloMessage | InputMessage | PingMessage | StatsRequestMessage | LeaveMessage | ReceiptMessage | RoomMessage;

/**
 * Writes a HELLO into `w` (reset by the caller); returns `w`. Join options left out (or empty)
 * are none, and their string is not written: a hello without them is byte for byte the one
 * clients sent before join options (the golden files' and the C# SDK's).
 */
export function encodeHello<W extends BinaryWriter>(w: W, m: Omit<HelloMessage, "kind" | "options"> & { options?: string }): W {
  w.u8(KIND_HELLO).u16(m.version).string(m.token).string(m.name);
  if (m.options) w.string(m.options);
  return w;
}

/** Writes one INPUT frame batching `inputs` (at most `MAX_INPUTS_PER_FRAME`); returns `w`. */
export function encodeInputs<W extends BinaryWriter>(w: W, inputs: readonly InputEntry[]): W {
  w.u8(KIND_INPUT).u8(inputs.length);
  for (const e of inputs) w.varuint(e.seq).varuint(e.payload.length).bytes(e.payload);
  return w;
}

/** Writes a single-input frame; the payload is written by `writePayload` straight into `w`. */
export function encodeInput<W extends BinaryWriter>(w: W, seq: number, payload: Uint8Array): W {
  return w.u8(KIND_INPUT).u8(1).varuint(seq).varuint(payload.length).bytes(payload);
}

/** Writes a PING carrying the client clock; returns `w`. */
export function encodePing<W extends BinaryWriter>(w: W, clientTime: number): W {
  return w.u8(KIND_PING).f64(clientTime);
}

/** Writes a `tk:stats` request; the answer echoes `requestId`. Returns `w`. */
export function encodeStatsRequest<W extends BinaryWriter>(w: W, requestId: number): W {
  return w.u8(KIND_STATS_REQUEST).u32(requestId);
}

/** Writes a LEAVE (the seat is freed at once, close 1000); returns `w`. */
export function encodeLeave<W extends BinaryWriter>(w: W): W {
  return w.u8(KIND_LEAVE);
}

/** Writes a RECEIPT (counts are taken modulo 2^32); returns `w`. */
export function encodeReceipt<W extends BinaryWriter>(w: W, messages: number, bytes: number): W {
  return w.u8(KIND_RECEIPT).varuint(messages % 0x100000000).varuint(bytes % 0x100000000);
}

/**
 * Decodes one binary client→server frame. Never throws: a malformed frame comes back as a
 * {@link DecodeError} naming what was wrong. Input payloads are views into `bytes` (no copy).
 */
export function decodeClientMessage(bytes: Uint8Array): ClientMessage | DecodeError {
  if (bytes.length > MAX_CLIENT_FRAME_BYTES) {
    return new DecodeError("too_large", `frame of ${bytes.length} bytes exceeds ${MAX_CLIENT_FRAME_BYTES}`);
  }
  if (bytes[0] === KIND_INPUT) {
    const err = sharedInputReader.read(bytes);
    if (err) return err;
    const inputs: InputEntry[] = new Array(sharedInputReader.count);
    for (let i = 0; i < inputs.length; i++) {
      const e = sharedInputReader.entries[i]!;
      inputs[i] = { seq: e.seq, payload: e.payload };
    }
    sharedInputReader.release();
    return { kind: "input", inputs };
  }
  try {
    const r = new BinaryReader(bytes);
    const kind = r.u8();
    let msg: ClientMessage;
    switch (kind) {
      case KIND_HELLO:
        // The options are read up to the frame's size: the room refuses them, over their own limit,
        // as join options (bad_request, naming the limit), not as a malformed frame.
        msg = { kind: "hello", version: r.u16(), token: r.string(128), name: r.string(64), options: r.remaining > 0 ? r.string(MAX_CLIENT_FRAME_BYTES) : "" };
        break;
      case KIND_PING:
        msg = { kind: "ping", clientTime: r.finiteF64("clientTime") };
        break;
      case KIND_STATS_REQUEST:
        msg = { kind: "statsRequest", requestId: r.u32() };
        break;
      case KIND_LEAVE:
        msg = { kind: "leave" };
        break;
      case KIND_RECEIPT:
        msg = { kind: "receipt", messages: r.varuint(), bytes: r.varuint() };
        break;
      case KIND_MESSAGE:
        msg = readRoomMessage(r);
        break;
      default:
        throw new DecodeError("unknown_kind", `unknown client message kind 0x${kind.toString(16)}`);
    }
    r.expectEnd();
    return msg;
  } catch (e) {
    if (e instanceof DecodeError) return e;
    return new DecodeError("bad_value", String(e));
  }
}
