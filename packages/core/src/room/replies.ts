/**
 * The room's replies in both dialects of the wire protocol, side by side: binary frames through
 * the shared writer, JSON text typed as the protocol's {@link JsonServerMessage}, each in the
 * dialect of the link it goes to (`ClientLink.dialect`). The room decides *what* to say; this
 * file decides how each dialect says it. State (FRAMEs, JSON `state`) is the flushers' business
 * (room/flushers.ts).
 */
import {
  ErrorCode,
  clipReason,
  encodeCadence,
  encodeError,
  encodeNotice,
  OPERATOR_NOTICE,
  encodePong,
  encodeReply,
  encodeReplyError,
  encodeStats,
  encodeWelcome,
  toJsonWelcome,
  type FrameWriter,
  type ErrorName,
  type JsonServerMessage,
  type WelcomeFields,
} from "@tikron/protocol";
import type { RoomStatsSnapshot } from "../roomStats";
import { sendTo, type ClientLink } from "./clientLink";

function sendJson(link: ClientLink, msg: JsonServerMessage): void {
  sendTo(link, JSON.stringify(msg));
}

/** Sends the welcome; both dialects carry the same fields (see `toJsonWelcome`). */
export function sendWelcome(link: ClientLink, fields: WelcomeFields, writer: FrameWriter): void {
  if (link.dialect === "json") sendJson(link, toJsonWelcome(fields));
  else sendTo(link, encodeWelcome(writer.reset(), fields).peek());
}

/** Sends an ERROR; `retryAfterMs` > 0 tells the client how long to back off. */
export function sendError(link: ClientLink, name: ErrorName, reason: string, retryAfterMs: number, writer: FrameWriter): void {
  const code = ErrorCode[name];
  if (link.dialect === "json") {
    // Cut as the binary encoder cuts it, so a long reason never makes the ERROR unreadable.
    const r = clipReason(reason);
    sendJson(link, retryAfterMs > 0 ? { t: "error", code, name, reason: r, retryAfterMs } : { t: "error", code, name, reason: r });
  } else {
    sendTo(link, encodeError(writer.reset(), code, reason, retryAfterMs).peek());
  }
}

/** Tells a seated client the room's new rates (CADENCE). */
export function sendCadence(link: ClientLink, tickMs: number, syncIntervalMs: number, writer: FrameWriter): void {
  if (link.dialect === "json") sendJson(link, { t: "cadence", tickMs, syncIntervalMs });
  else sendTo(link, encodeCadence(writer.reset(), tickMs, syncIntervalMs).peek());
}

/** Answers a ping with the client's time and the room's. */
export function sendPong(link: ClientLink, clientTime: number, serverTime: number, writer: FrameWriter): void {
  if (link.dialect === "json") sendJson(link, { t: "pong", ct: clientTime, st: serverTime });
  else sendTo(link, encodePong(writer.reset(), clientTime, serverTime).peek());
}

/**
 * Answers a `tk:stats` request with the snapshot (JSON text inside the binary STATS frame too:
 * it is a probe, not the tick path).
 */
export function sendStats(link: ClientLink, requestId: number, snapshot: RoomStatsSnapshot, writer: FrameWriter): void {
  if (link.dialect === "json") sendJson(link, { t: "stats", id: requestId, stats: snapshot });
  else sendTo(link, encodeStats(writer.reset(), requestId, JSON.stringify(snapshot)).peek());
}

/**
 * Answers a game message request with the game's reply, already JSON text (measured against the
 * reply limit by the caller): spliced into the JSON reply as is, so it is serialized once.
 */
export function sendReply(link: ClientLink, requestId: number, payloadJson: string, writer: FrameWriter): void {
  if (link.dialect === "json") sendTo(link, `{"t":"reply","id":${requestId},"data":${payloadJson}}`);
  else sendTo(link, encodeReply(writer.reset(), requestId, payloadJson).peek());
}

/** Refuses a game message request: the error code (and back-off) under the request's id. */
export function sendReplyError(link: ClientLink, requestId: number, name: ErrorName, reason: string, retryAfterMs: number, writer: FrameWriter): void {
  const code = ErrorCode[name];
  if (link.dialect === "json") {
    const m: JsonServerMessage = { t: "reply", id: requestId, code, name, reason: clipReason(reason) };
    if (retryAfterMs > 0) m.retryAfterMs = retryAfterMs;
    sendJson(link, m);
  } else {
    sendTo(link, encodeReplyError(writer.reset(), requestId, code, reason, retryAfterMs).peek());
  }
}

/** Sends an operator's notice: a NOTICE of type `OPERATOR_NOTICE` with `{ text }`, at once. */
export function sendOperatorNotice(link: ClientLink, text: string, writer: FrameWriter): void {
  if (link.dialect === "json") sendJson(link, { t: "notice", type: OPERATOR_NOTICE, data: { text } });
  else sendTo(link, encodeNotice(writer.reset(), OPERATOR_NOTICE, JSON.stringify({ text })).peek());
}
