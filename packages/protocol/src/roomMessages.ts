import type { BinaryReader } from "./binaryReader";
import type { BinaryWriter } from "./binaryWriter";
import { MAX_CLIENT_FRAME_BYTES } from "./constants";
import { DecodeError } from "./decodeError";
import type { ErrorName } from "./errorCodes";
import type { Rejection } from "./inputRejection";
import { clipReason, jsonField, readRefusal, type ServerFields } from "./serverFields";
import { KIND_MESSAGE, KIND_NOTICE, KIND_REPLY } from "./wireCodes";

/*
 * Custom room messages: what a client says outside the input stream (chat, ready, a vote), each
 * with a short type name, an optional request id and a payload, answered (when it asked) by a
 * REPLY carrying the same id and a payload or an error code. They are rare — a player sends a
 * few a minute, a room answers them one by one — so the payload travels as JSON text inside the
 * binary frame: any JSON value, one codec for both dialects, no schema to declare. The tick's
 * own traffic (inputs, state frames) never goes through here. The other way, a room's game
 * sends NOTICEs on its own (a scoreboard, a round's summary): a type and a JSON payload too.
 */

/** Longest message type name (characters of `A-Z a-z 0-9 _ . : -`). */
export const MAX_MESSAGE_TYPE_LENGTH = 32;

/**
 * Longest payload of a client's message: UTF-16 units of its JSON text (`JSON.stringify`'s
 * length), the same measure in both dialects. A longer one is refused with `message_too_large`.
 */
export const MAX_MESSAGE_PAYLOAD_CHARS = 2048;

/** Longest reply payload a room sends (UTF-16 units of its JSON text); a longer reply is an `internal` error. */
export const MAX_REPLY_PAYLOAD_CHARS = 16384;

/** Longest notice payload a room sends (UTF-16 units of its JSON text); the room refuses to queue a longer one. */
export const MAX_NOTICE_PAYLOAD_CHARS = 16384;

const TYPE_RE = /^[A-Za-z0-9_.:-]{1,32}$/;

/** Whether `type` is a legal message type name (1–32 of `A-Z a-z 0-9 _ . : -`). */
export function isMessageType(type: unknown): type is string {
  return typeof type === "string" && TYPE_RE.test(type);
}

/**
 * A custom room message (binary dialect). `requestId` 0 means no reply is wanted (a refusal then
 * comes as an ordinary ERROR); any other id is echoed by the REPLY. `payload` is JSON text,
 * parsed by the room after its size check.
 */
export interface RoomMessage {
  /** Discriminator. */
  kind: "message";
  /** The request id the reply echoes; 0 for a message that wants no reply. */
  requestId: number;
  /** The message type, e.g. `chat` ({@link isMessageType}). */
  type: string;
  /** The payload as JSON text. */
  payload: string;
}

/** The answer to a request: `code` 0 with a value, or an {@link ErrorCode} with a reason. */
export interface ReplyMessage {
  /** Discriminator. */
  kind: "reply";
  /** The request's id. */
  requestId: number;
  /** 0 when the request succeeded, else the numeric {@link ErrorCode} it was refused with (`errorName(code)` names it). */
  code: number;
  /** Refusals: how long to wait before asking again (ms), 0 for no hint. */
  retryAfterMs: number;
  /** Refusals: a human-readable reason; empty on success. */
  reason: string;
  /** Success: the reply value (parsed from the JSON text it travels as); undefined on a refusal. */
  value: unknown;
}

/** A notice from the room's game (`ctx.send` / `ctx.broadcast`), as a client decodes it. */
export interface NoticeMessage {
  /** Discriminator. */
  kind: "notice";
  /** The notice type ({@link isMessageType}), e.g. `scoreboard`. */
  type: string;
  /** The payload (parsed from the JSON text it travels as). */
  data: unknown;
}

/**
 * Writes a MESSAGE. `payloadJson` is the payload's JSON text (`JSON.stringify(value)`); the
 * caller checks it against {@link MAX_MESSAGE_PAYLOAD_CHARS}. Returns `w`.
 *
 * @throws RangeError for a type that is not a legal message type name.
 */
export function encodeRoomMessage<W extends BinaryWriter>(w: W, requestId: number, type: string, payloadJson: string): W {
  if (!isMessageType(type)) throw new RangeError(`bad message type ${JSON.stringify(type)}`);
  return w.u8(KIND_MESSAGE).varuint(requestId).string(type).string(payloadJson);
}

/** Writes a successful REPLY carrying `payloadJson` (JSON text); returns `w`. */
export function encodeReply<W extends BinaryWriter>(w: W, requestId: number, payloadJson: string): W {
  return w.u8(KIND_REPLY).varuint(requestId).u16(0).string(payloadJson);
}

/** Writes a refusing REPLY: the error code, an optional back-off and a reason ({@link clipReason} cuts it); returns `w`. */
export function encodeReplyError<W extends BinaryWriter>(w: W, requestId: number, code: number, reason: string, retryAfterMs = 0): W {
  return w.u8(KIND_REPLY).varuint(requestId).u16(code).varuint(retryAfterMs).string(clipReason(reason));
}

/**
 * Writes a NOTICE: `[string type][string JSON payload]`. The room checks the type and the
 * payload's size ({@link MAX_NOTICE_PAYLOAD_CHARS}) when the game queues it. Returns `w`.
 */
export function encodeNotice<W extends BinaryWriter>(w: W, type: string, payloadJson: string): W {
  return w.u8(KIND_NOTICE).string(type).string(payloadJson);
}

/**
 * Reads a NOTICE's body: a binary one after its kind byte, or a JSON `notice`'s fields. Throws
 * {@link DecodeError}, or a SyntaxError for a payload that is not JSON.
 */
export function readNotice(f: ServerFields): NoticeMessage {
  return { kind: "notice", type: readType(f), data: jsonField(f, MAX_NOTICE_PAYLOAD_CHARS * 3, "data") ?? null };
}

/** Reads a message or notice type name; throws {@link DecodeError} for one that is not legal. */
function readType(f: ServerFields): string {
  const type = f.string(MAX_MESSAGE_TYPE_LENGTH, "type");
  if (!isMessageType(type)) throw new DecodeError("bad_value", "bad_type");
  return type;
}

/** Reads a MESSAGE's body (after its kind byte); throws {@link DecodeError}. */
export function readRoomMessage(r: BinaryReader): RoomMessage {
  const requestId = r.varuint();
  const type = readType(r);
  // Bounded by the frame; the room checks the payload's own limit so it can answer the request.
  return { kind: "message", requestId, type, payload: r.string(MAX_CLIENT_FRAME_BYTES) };
}

/**
 * Reads a REPLY's body: a binary one after its kind byte (pass the `BinaryReader`), or a JSON
 * `reply`'s fields. Throws {@link DecodeError}, or a SyntaxError for a value that is not JSON.
 */
export function readReply(r: ServerFields): ReplyMessage {
  const requestId = r.varuint("id");
  const code = r.u16("code");
  if (code === 0) return { kind: "reply", requestId, code, retryAfterMs: 0, reason: "", value: jsonField(r, MAX_REPLY_PAYLOAD_CHARS * 3, "data") };
  return { kind: "reply", requestId, ...readRefusal(r, code), value: undefined };
}

/**
 * Why a request to the room failed, as a client sees it. `code` is the room's error name when the
 * room refused it (`rate_limited`, `message_too_large`, `bad_message`, `unknown_message`,
 * `internal`, or the game's own, e.g. `illegal_move`), or one found on the client's side: the
 * SDK's `timeout` (no answer in time), `closed` (the socket closed first: an answer can no longer
 * arrive), `not_joined`. The SDK's requests and the core's test clients reject with it.
 */
export class RequestError extends Error {
  /** The error name: the room's (see the error table) or `timeout` / `closed` / `not_joined` / `bad_message` / `message_too_large` found locally. */
  readonly code: string;
  /** When > 0, how long the room asked to wait before asking again (ms). */
  readonly retryAfterMs: number;
  constructor(code: string, message: string, retryAfterMs = 0) {
    super(message);
    this.name = "RequestError";
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Why a game refused a room message: returned by its handler (or validator), answered to the
 * sender as a refusing REPLY (or an ERROR when it asked for none) and counted in `tk:stats`
 * under `gameMessages.refusedByCode`. Same shape as an input's refusal, so `isRejection` tells
 * both apart from a value.
 */
export type MessageRejection = Rejection<"bad_message" | "unknown_message" | "illegal_move" | "not_your_turn">;

/** Builds a {@link MessageRejection}: return it from a message handler or validator to refuse. */
export function refuseMessage(code: MessageRejection["code"], reason: string): MessageRejection {
  return { rejected: true, code, reason };
}
