/**
 * Game messages (the MESSAGE kind: chat, ready, votes) from arrival to the game's `onMessage`
 * and back as a reply: rate, size, JSON, refusals and their budget.
 */
import { CloseCode, MAX_MESSAGE_PAYLOAD_CHARS, MAX_REPLY_PAYLOAD_CHARS, isRejection, type FrameWriter, type ErrorName } from "@tikron/protocol";
import { RoomStats } from "../roomStats";
import { TokenBucket } from "../tokenBucket";
import { Pressure, pressure, type ClientLink } from "./clientLink";
import type { GameMessageInbound } from "./inbound";
import { sendReply, sendReplyError } from "./replies";
import type { RoomParts, RoomSockets } from "./roomSockets";

/** What the router needs from its room. */
export interface GameMessageRoom extends RoomParts {
  readonly writer: FrameWriter;
  /** Errors to messages that asked for no reply, and closes (refusal budget spent: 4010; not reading: 4004). */
  readonly sockets: RoomSockets;
}

/**
 * Game messages (the protocol's MESSAGE kind, JSON `msg`: chat, ready, votes) from seated
 * sockets to the game's `onMessage`, one at a time on arrival
 * (not queued for the tick: a chat line or a vote needs no simulation step). In order: the
 * socket's own message rate, the payload's size, its JSON, the game's handler; each refusal is
 * answered to the request (or as an ERROR when no reply was asked for), counted under
 * `gameMessages.refusedByCode`, and costs one token of the socket's refusal budget, shared
 * with refused inputs, so a client that keeps sending refused messages is closed 4010.
 */
export class GameMessageRouter {
  constructor(private readonly room: GameMessageRoom) {}

  /**
   * A game message from a seated socket. Its payload's size is that of its JSON text in either
   * dialect; a binary frame's text is parsed only once the rate and the size let it through.
   */
  receive(link: ClientLink, m: GameMessageInbound, now: number): void {
    const { requestId, text } = m;
    if (!this.admit(link, requestId, now)) return;
    // The JSON text either way: what the size is measured on, and what a match log keeps.
    const json = text ?? JSON.stringify(m.value);
    const size = json.length;
    if (size > MAX_MESSAGE_PAYLOAD_CHARS) {
      return this.refuse(link, requestId, "message_too_large", `payload of ${size} chars exceeds ${MAX_MESSAGE_PAYLOAD_CHARS}`, now);
    }
    let payload = m.value;
    if (text !== null) {
      try {
        payload = JSON.parse(text);
      } catch {
        return this.refuse(link, requestId, "bad_message", "payload is not JSON", now);
      }
    }
    this.room.recorder?.message(link.seat!.playerId, m.type, json, now);
    this.dispatch(link, requestId, m.type, payload, now);
  }

  /** Counts the message and charges its socket's message rate (bucket made on the first one). */
  private admit(link: ClientLink, requestId: number, now: number): boolean {
    const { stats, options } = this.room;
    stats.gameMessagesReceived++;
    const bucket = (link.messageBucket ??= new TokenBucket(options.gameMessageRatePerSec, options.gameMessageBurst, now));
    if (bucket.take(now)) return true;
    this.refuse(link, requestId, "rate_limited", "too many room messages", now, bucket.waitMs(now));
    return false;
  }

  private dispatch(link: ClientLink, requestId: number, type: string, payload: unknown, now: number): void {
    const { game, stats } = this.room;
    if (!game.onMessage) return this.refuse(link, requestId, "unknown_message", `room ${game.kind} takes no messages`, now);
    let result: unknown;
    let json: string | undefined;
    try {
      result = game.onMessage(link.seat!.playerId, type, payload);
      if (!isRejection(result) && requestId !== 0) {
        // JSON.stringify answers undefined for a function or a symbol: no reply a client can read.
        json = JSON.stringify(result ?? null) as string | undefined;
        if (json === undefined) throw new TypeError(`reply to ${type} is not JSON`);
      }
    } catch (e) {
      // A game bug (or a reply JSON cannot carry) must not take the room down for everyone else.
      RoomStats.bump(stats.errors, "internal");
      console.error(`[room ${this.room.kind}:${this.room.roomId}] message handler error (${type})`, e);
      return this.refuse(link, requestId, "internal", "the room could not handle the message", now);
    }
    if (isRejection(result)) return this.refuse(link, requestId, result.code, result.reason, now);
    if (json !== undefined && json.length > MAX_REPLY_PAYLOAD_CHARS) {
      RoomStats.bump(stats.errors, "reply_too_large");
      return this.refuse(link, requestId, "internal", `reply of ${json.length} chars exceeds ${MAX_REPLY_PAYLOAD_CHARS}`, now);
    }
    stats.gameMessagesHandled++;
    if (json !== undefined && this.mayAnswer(link, now)) sendReply(link, requestId, json, this.room.writer);
  }

  private refuse(link: ClientLink, requestId: number, name: ErrorName, reason: string, now: number, retryAfterMs = 0): void {
    const { stats } = this.room;
    stats.gameMessagesRefused++;
    RoomStats.bump(stats.gameMessagesRefusedByCode, name);
    if (!link.rejectBucket.take(now)) {
      RoomStats.bump(stats.errors, "too_many_refusals");
      return this.room.sockets.close(link, CloseCode.too_many_errors, "too many refused messages");
    }
    if (requestId === 0) return this.room.sockets.sendError(link, name, reason, retryAfterMs);
    if (this.mayAnswer(link, now)) sendReplyError(link, requestId, name, reason, retryAfterMs, this.room.writer);
  }

  /**
   * A reply is not optional like a pong (a caller awaits it), and the message rate already
   * bounds how many there are: it goes out even to a client that is behind, unless that client
   * is past its grace and is closed instead.
   */
  private mayAnswer(link: ClientLink, now: number): boolean {
    if (link.closed) return false;
    if (pressure(link, now, this.room.options) !== Pressure.Close) return true;
    this.room.sockets.slowConsumer(link);
    return false;
  }
}
