/**
 * The edge of the room: a socket message of either dialect (binary frame or JSON text) decoded
 * into one {@link Inbound}, which the room dispatches once. INPUT frames, the per-player
 * per-tick message, are read by the protocol's `InputFrameReader` into reused entries and
 * handed on in a reused message: nothing is allocated for them but the payload views.
 */
import {
  DecodeError,
  InputFrameReader,
  Kind,
  decodeClientMessage,
  decodeJsonClientMessage,
  isDecodeError,
  type HelloMessage,
  type LeaveMessage,
  type PingMessage,
  type ReceiptMessage,
  type StatsRequestMessage,
} from "@tikron/protocol";

/** One input as the room takes it: bytes in binary rooms, a JSON value in JSON rooms. */
export interface InboundInput {
  /** Sequence number, strictly increasing per seat. */
  readonly seq: number;
  /** The game's input, for its `decodeInput`. */
  readonly payload: unknown;
}

/** Inputs `entries[0, count)` (the array is reused and may be longer). */
export interface InputsInbound {
  /** Discriminator. */
  readonly kind: "inputs";
  /** The inputs, oldest first. */
  readonly entries: readonly InboundInput[];
  /** How many of `entries` this message carries. */
  count: number;
}

/**
 * A game message (protocol MESSAGE kind; JSON `msg`) for the game's `onMessage`. Its payload is
 * JSON either way: still text when it came in a binary frame (parsed only after the rate and
 * size checks), already parsed when it came as JSON text.
 */
export interface GameMessageInbound {
  /** Discriminator. */
  readonly kind: "gameMessage";
  /** Echoed by the reply; 0 when no reply is wanted. */
  readonly requestId: number;
  /** The message type. */
  readonly type: string;
  /** The payload's JSON text (binary frames), else null. */
  readonly text: string | null;
  /** The parsed payload (JSON frames); unused when `text` is set. */
  readonly value: unknown;
}

/** The JSON keepalive (`{"t":"ka"}`), answered with the same text. */
export interface KeepaliveInbound {
  /** Discriminator. */
  readonly kind: "keepalive";
}

/** Every client message the room dispatches, whichever dialect it came in. */
export type Inbound =
  | HelloMessage
  | InputsInbound
  | PingMessage
  | StatsRequestMessage
  | ReceiptMessage
  | KeepaliveInbound
  | GameMessageInbound
  | LeaveMessage;

const KEEPALIVE: KeepaliveInbound = { kind: "keepalive" };
const LEAVE: LeaveMessage = { kind: "leave" };

/**
 * Decodes socket messages into {@link Inbound}s. One per room: the inputs message it returns is
 * reused, valid until the next {@link read}; {@link release} drops its payloads afterwards so a
 * frame's buffer is not kept alive.
 */
export class InboundReader {
  readonly #frames = new InputFrameReader();
  readonly #binaryInputs: InputsInbound = { kind: "inputs", entries: this.#frames.entries, count: 0 };
  readonly #jsonInput = { seq: 0, payload: null as unknown };
  readonly #jsonInputs: InputsInbound = { kind: "inputs", entries: [this.#jsonInput], count: 1 };

  /** Decodes one message; never throws. A malformed one comes back as a {@link DecodeError}. */
  read(data: Uint8Array | string): Inbound | DecodeError {
    return typeof data === "string" ? this.text(data) : this.binary(data);
  }

  /** Drops the last message's input payloads. */
  release(): void {
    this.#frames.release();
    this.#jsonInput.payload = null;
  }

  private binary(bytes: Uint8Array): Inbound | DecodeError {
    if (bytes[0] === Kind.Input) {
      const err = this.#frames.read(bytes);
      if (err) return err;
      this.#binaryInputs.count = this.#frames.count;
      return this.#binaryInputs;
    }
    const m = decodeClientMessage(bytes);
    if (isDecodeError(m)) return m;
    switch (m.kind) {
      case "message":
        return { kind: "gameMessage", requestId: m.requestId, type: m.type, text: m.payload, value: undefined };
      case "input":
        // Not reached: only an INPUT kind byte decodes to inputs, and those are read above.
        return new DecodeError("bad_value", "INPUT frame outside the input reader");
      default:
        return m;
    }
  }

  private text(text: string): Inbound | DecodeError {
    const m = decodeJsonClientMessage(text);
    if (isDecodeError(m)) return m;
    switch (m.t) {
      case "hello":
        // The options as JSON text, as a binary hello carries them: one check of them (size included) for both dialects.
        return { kind: "hello", version: m.v, token: m.token, name: m.name, options: m.options === undefined ? "" : JSON.stringify(m.options) };
      case "input":
        this.#jsonInput.seq = m.seq;
        this.#jsonInput.payload = m.data;
        return this.#jsonInputs;
      case "ping":
        return { kind: "ping", clientTime: m.ct };
      case "stats":
        return { kind: "statsRequest", requestId: m.id };
      case "rc":
        return { kind: "receipt", messages: m.m, bytes: m.b };
      case "ka":
        return KEEPALIVE;
      case "msg":
        return { kind: "gameMessage", requestId: m.id ?? 0, type: m.type, text: null, value: m.data };
      case "leave":
        return LEAVE;
    }
  }
}
