import {
  FLAG_ACK,
  FLAG_DELTA,
  FLAG_EVENTS,
  KIND_BUNDLE,
  KIND_CADENCE,
  KIND_ERROR,
  KIND_FRAME,
  KIND_HELLO,
  KIND_INPUT,
  KIND_LEAVE,
  KIND_MESSAGE,
  KIND_NOTICE,
  KIND_PING,
  KIND_PONG,
  KIND_RECEIPT,
  KIND_REPLY,
  KIND_STATS,
  KIND_STATS_REQUEST,
  KIND_WELCOME,
} from "./wireCodes";
/** Wire protocol version, sent in hello and welcome. Bump on any incompatible change. */
export const PROTOCOL_VERSION = 1;

/** Largest client→server frame the server accepts (bytes). Larger frames close with 4007. */
export const MAX_CLIENT_FRAME_BYTES = 4096;

/** Most inputs one INPUT frame may batch. */
export const MAX_INPUTS_PER_FRAME = 16;

/** Largest payload of one input (bytes). */
export const MAX_INPUT_PAYLOAD_BYTES = 256;

/** Most game events one FRAME may carry: a receiver refuses a frame announcing more (`too_large`). */
export const MAX_EVENTS_PER_FRAME = 4096;

/**
 * How a client confirms what it has read: after this many server messages, or this many bytes
 * (units: bytes of binary messages, UTF-16 units of text), it sends a RECEIPT. The room keeps
 * at most a bounded backlog of unconfirmed bytes per client (see the room's backpressure), so
 * a client that reads but never confirms is treated like one that does not read.
 */
export const RECEIPT_EVERY_MESSAGES = 16;
/** See {@link RECEIPT_EVERY_MESSAGES}. */
export const RECEIPT_EVERY_BYTES = 32 * 1024;

/** One-byte message kinds. Client→server are < 0x80, server→client are ≥ 0x80. */
export const Kind = {
  /** Client: join or resume a seat. */
  Hello: KIND_HELLO,
  /** Client: one or more inputs. */
  Input: KIND_INPUT,
  /** Client: clock-sync ping. */
  Ping: KIND_PING,
  /** Client: asks for the room's `tk:stats`. */
  StatsRequest: KIND_STATS_REQUEST,
  /** Client: leaves for good (the seat is freed at once). */
  Leave: KIND_LEAVE,
  /** What the client has read so far (backpressure; see `ReceiptCounter`). */
  Receipt: KIND_RECEIPT,
  /** Client: a custom room message (chat, ready, vote), optionally a request awaiting a REPLY. */
  Message: KIND_MESSAGE,

  /** Server: the seat, its token and the room's timing. */
  Welcome: KIND_WELCOME,
  /** Server: one tick's ack, events and state delta. */
  Frame: KIND_FRAME,
  /** Server: a refusal ({@link ErrorCode}). */
  Error: KIND_ERROR,
  /** Server: answer to a ping. */
  Pong: KIND_PONG,
  /** Server: a `tk:stats` snapshot. */
  Stats: KIND_STATS,
  /** Server: the answer to a MESSAGE request: a payload, or an error code. */
  Reply: KIND_REPLY,
  /** Server: the room's tick length and sync interval changed (the game set new rates). */
  Cadence: KIND_CADENCE,
  /** Server: a notice from the game (`ctx.send` / `ctx.broadcast`): a type and a JSON payload. */
  Notice: KIND_NOTICE,
  /**
   * Server: several whole FRAMEs in one message, in order (bundle.ts): what a delayed spectator
   * gets, so a room sends it fewer messages. Only spectators get one; a player never does.
   */
  Bundle: KIND_BUNDLE,
} as const;

/** Flag bits of a FRAME message: which optional sections follow the header. */
export const FrameFlag = {
  /** The frame carries the highest processed input seq. */
  Ack: FLAG_ACK,
  /** The frame carries game events. */
  Events: FLAG_EVENTS,
  /** The frame carries a state delta body. */
  Delta: FLAG_DELTA,
} as const;
