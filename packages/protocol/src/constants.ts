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
  Hello: 0x01,
  /** Client: one or more inputs. */
  Input: 0x02,
  /** Client: clock-sync ping. */
  Ping: 0x03,
  /** Client: asks for the room's `tk:stats`. */
  StatsRequest: 0x04,
  /** Client: leaves for good (the seat is freed at once). */
  Leave: 0x05,
  /** What the client has read so far (backpressure; see `ReceiptCounter`). */
  Receipt: 0x06,
  /** Client: a custom room message (chat, ready, vote), optionally a request awaiting a REPLY. */
  Message: 0x07,

  /** Server: the seat, its token and the room's timing. */
  Welcome: 0x81,
  /** Server: one tick's ack, events and state delta. */
  Frame: 0x82,
  /** Server: a refusal ({@link ErrorCode}). */
  Error: 0x83,
  /** Server: answer to a ping. */
  Pong: 0x84,
  /** Server: a `tk:stats` snapshot. */
  Stats: 0x85,
  /** Server: the answer to a MESSAGE request: a payload, or an error code. */
  Reply: 0x86,
  /** Server: a line of text from the room's operator to every player (see `NoticeMessage`). */
  Notice: 0x87,
} as const;

/** Flag bits of a FRAME message: which optional sections follow the header. */
export const FrameFlag = {
  /** The frame carries the highest processed input seq. */
  Ack: 1,
  /** The frame carries game events. */
  Events: 2,
  /** The frame carries a state delta body. */
  Delta: 4,
} as const;
