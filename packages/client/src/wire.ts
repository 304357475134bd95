import {
  textEncoder,
  type DecodedServerMessage,
  type FrameMessage,
  type WelcomeMessage,
} from "@tikron/protocol";

/*
 * What the connection says and reads goes through its dialect (the protocol's `ClientDialect`:
 * binary unless the game names the JSON one); here is what it needs besides: the shapes it
 * reads, and the sizes of what it sends.
 */

/** The welcome, identical for binary and JSON rooms (JSON rooms report `schemaHash` 0). */
export type WelcomeInfo = Omit<WelcomeMessage, "kind">;

/** A state frame of either dialect: delta and event bytes in binary rooms, JSON values in JSON rooms. */
export type IncomingFrame = FrameMessage<unknown, unknown>;

/** A server message after decoding, the same shape for both dialects (the protocol's one decoded shape). */
export type Incoming = DecodedServerMessage;

/**
 * UTF-8 length of a string (for byte counters). Encoding it costs an allocation per text message,
 * which only JSON rooms (turn-based, a few messages a second) send.
 */
export function utf8Length(s: string): number {
  return textEncoder.encode(s).length;
}

/** Payload bytes of a WebSocket message (text as UTF-8; binary as ArrayBuffer or view), for the traffic counters. */
export function byteSize(data: unknown): number {
  return typeof data === "string" ? utf8Length(data) : ((data as { byteLength?: number }).byteLength ?? 0);
}
