import {
  MAX_MESSAGE_PAYLOAD_CHARS,
  isMessageType,
  textEncoder,
  type DecodedServerMessage,
  type FrameMessage,
  type WelcomeMessage,
} from "@tikron/protocol";
import { RequestError } from "./pendingRequests";

/*
 * What the connection says and reads goes through its dialect (the protocol's `ClientDialect`:
 * binary unless the game names the JSON one); here is what it needs besides: the shapes it
 * reads, and the checks and sizes of what it sends.
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

/** A room message's payload as JSON text, checked against the protocol's limits before anything is sent. */
export function messageJson(type: string, payload: unknown): string {
  if (!isMessageType(type)) throw new RequestError("bad_message", `bad message type ${JSON.stringify(type)}`);
  const json = JSON.stringify(payload ?? null);
  if (json.length > MAX_MESSAGE_PAYLOAD_CHARS) {
    throw new RequestError("message_too_large", `payload of ${json.length} chars exceeds ${MAX_MESSAGE_PAYLOAD_CHARS}`);
  }
  return json;
}
