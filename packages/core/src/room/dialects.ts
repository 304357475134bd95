import {
  ErrorCode,
  clipReason,
  encodeError,
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
import type { RoomStats, RoomStatsSnapshot } from "../roomStats";
import type { ClientLink, Dialect, Seat } from "../seat";
import { sendTo } from "./clientLink";
import type { JsonStateSource } from "../stateEncoder";

/**
 * The room's replies in both dialects of the wire protocol, side by side: binary frames through
 * the shared writer, JSON text typed as the protocol's {@link JsonServerMessage}. The room
 * decides *what* to say; this file decides how each dialect says it. The binary state FRAME is
 * not here: it is the flush hot path and lives in the room's `flushBinary`.
 */

function sendJson(link: ClientLink, msg: JsonServerMessage): void {
  sendTo(link, JSON.stringify(msg));
}

/** Sends the welcome; both dialects carry the same fields (see `toJsonWelcome`). */
export function sendWelcome(link: ClientLink, fields: WelcomeFields, writer: FrameWriter): void {
  if (link.dialect === "json") sendJson(link, toJsonWelcome(fields));
  else sendTo(link, encodeWelcome(writer.reset(), fields).peek());
}

/** Sends an ERROR; `retryAfterMs` > 0 tells the client how long to back off. */
export function sendError(link: ClientLink, name: ErrorName, reason: string, retryAfterMs: number, dialect: Dialect, writer: FrameWriter): void {
  const code = ErrorCode[name];
  if (dialect === "json") {
    // Cut as the binary encoder cuts it, so a long reason never makes the ERROR unreadable.
    const r = clipReason(reason);
    sendJson(link, retryAfterMs > 0 ? { t: "error", code, name, reason: r, retryAfterMs } : { t: "error", code, name, reason: r });
  } else {
    sendTo(link, encodeError(writer.reset(), code, reason, retryAfterMs).peek());
  }
}

/** Answers a ping (in the dialect the ping came in) with the client's time and the room's. */
export function sendPong(link: ClientLink, dialect: Dialect, clientTime: number, serverTime: number, writer: FrameWriter): void {
  if (dialect === "json") sendJson(link, { t: "pong", ct: clientTime, st: serverTime });
  else sendTo(link, encodePong(writer.reset(), clientTime, serverTime).peek());
}

/**
 * Answers a `tk:stats` request, in the dialect it came in, with the snapshot (JSON text inside
 * the binary STATS frame too: it is a probe, not the tick path).
 */
export function sendStats(link: ClientLink, dialect: Dialect, requestId: number, snapshot: RoomStatsSnapshot, writer: FrameWriter): void {
  if (dialect === "json") sendJson(link, { t: "stats", id: requestId, stats: snapshot });
  else sendTo(link, encodeStats(writer.reset(), requestId, JSON.stringify(snapshot)).peek());
}

/**
 * Answers a room message request with the game's reply, already JSON text (measured against the
 * reply limit by the caller): spliced into the JSON reply as is, so it is serialized once.
 */
export function sendReply(link: ClientLink, requestId: number, payloadJson: string, writer: FrameWriter): void {
  if (link.dialect === "json") sendTo(link, `{"t":"reply","id":${requestId},"data":${payloadJson}}`);
  else sendTo(link, encodeReply(writer.reset(), requestId, payloadJson).peek());
}

/** Refuses a room message request: the error code (and back-off) under the request's id. */
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

/**
 * One flush of a JSON room (turn-based: a handful of seats, a flush when the game marks a
 * change): per connected seat a `state` message with the ack, the seat's view when the state
 * changed, and its events. A seat with none of these gets nothing.
 */
export function flushJsonState(
  seats: readonly Seat[],
  source: JsonStateSource,
  stateChanged: boolean,
  tick: number,
  time: number,
  stats: RoomStats,
  mayStream: (link: ClientLink) => boolean,
): void {
  for (const seat of seats) {
    const link = seat.link;
    if (!link) continue;
    // A client that is behind gets nothing now; its next state carries the view then current.
    if (!mayStream(link)) {
      if (stateChanged) seat.viewStale = true;
      continue;
    }
    const changed = stateChanged || seat.viewStale;
    seat.viewStale = false;
    const msg: Extract<JsonServerMessage, { t: "state" }> = { t: "state", tick, time };
    let any = false;
    if (seat.lastProcessedSeq > seat.lastAckedSeq) {
      msg.ack = seat.lastProcessedSeq;
      seat.lastAckedSeq = seat.lastProcessedSeq;
      stats.acks++;
      any = true;
    }
    if (changed) {
      msg.state = source.viewFor(seat.playerId);
      any = true;
    }
    if (seat.events.length > 0) {
      msg.events = seat.events.slice();
      seat.events.length = 0;
      any = true;
    }
    if (!any) continue;
    const text = JSON.stringify(msg);
    stats.frames++;
    stats.bytesOut += text.length;
    sendTo(link, text);
  }
}
