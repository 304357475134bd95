import { BinaryReader } from "./binaryReader";
import type { BinaryWriter } from "./binaryWriter";
import type { FrameWriter } from "./frameWriter";
import { MAX_EVENTS_PER_FRAME } from "./constants";
import { DecodeError } from "./decodeError";
import { clipReason, jsonField, readRefusal, type ServerFields } from "./serverFields";
import { readNotice, readReply, type NoticeMessage, type ReplyMessage } from "./roomMessages";
import { FLAG_ACK, FLAG_DELTA, FLAG_EVENTS, KIND_CADENCE, KIND_ERROR, KIND_FRAME, KIND_PONG, KIND_STATS, KIND_WELCOME } from "./wireCodes";

/** Sent once per (re)join: who you are, how to come back, and the room's clocks. */
export interface WelcomeMessage {
  kind: "welcome";
  /** Protocol version the room speaks. */
  version: number;
  /** The seat's player id in this room. */
  playerId: number;
  /** Present this in a later hello to reclaim the seat inside the reconnection window. */
  token: string;
  /** Simulation tick length (ms). */
  tickMs: number;
  /** Least ms between two state frames to one client. */
  syncIntervalMs: number;
  /** Server wall clock (epoch ms) when the welcome was written. */
  serverTime: number;
  /** Epoch ms of room time 0; FRAME `time` fields count from here. */
  roomEpoch: number;
  /** True when this welcome restored a held seat. */
  reconnected: boolean;
  /** True when the room syncs state as JSON text (turn-based rooms). */
  json: boolean;
  /** The room's kind, e.g. `agar`. */
  roomKind: string;
  /** The room's seat cap. */
  cap: number;
  /** Hash of the room's entity schema, so a client can refuse a mismatched decoder. */
  schemaHash: number;
  /** Highest input seq the room processed for this player (0 if none): inputs above it are not applied. */
  lastSeq: number;
}

/**
 * One flush for one client: optional ack, optional events, optional state. Binary frames carry
 * views into the received bytes (the delta body and event bodies, decoded by the schema layer);
 * JSON frames ({@link decodeServerText}) carry JSON values, so both dialects share this shape.
 */
export interface FrameMessage<Body = Uint8Array | null, Event = Uint8Array> {
  kind: "frame";
  /** Tick the frame belongs to. */
  tick: number;
  /** ms since `roomEpoch` at which the tick was simulated. */
  time: number;
  /** Highest processed input seq, or -1 when the frame carries no ack. */
  ackSeq: number;
  /** Game event bodies for this player, in emit order. */
  events: Event[];
  /** True when the frame carries a state section (a delta body, or a JSON view that may be null). */
  hasState: boolean;
  /** The state section: the delta body (null when state did not change), or the JSON view. */
  body: Body;
}

/** A refusal or a protocol error: an `ErrorCode`, a human reason, and an optional back-off. */
export interface ErrorMessage {
  kind: "error";
  /** Numeric `ErrorCode` (`errorName(code)` names it). */
  code: number;
  /** When set (>0), the client should wait this long before trying again. */
  retryAfterMs: number;
  /** Human-readable explanation. */
  reason: string;
}

/** The answer to a ping: the client time echoed and the server time when it was answered. */
export interface PongMessage {
  kind: "pong";
  /** The ping's client time, echoed. */
  clientTime: number;
  /** Server wall clock at answering (epoch ms). */
  serverTime: number;
}

/**
 * The room's rates changed while this client is seated (the game called `ctx.setRates`): from
 * the next frame on, ticks are `tickMs` long and frames at least `syncIntervalMs` apart (the
 * effective interval, whole ticks). A welcome carries the rates of its moment; this message
 * carries every later change.
 */
export interface CadenceMessage {
  /** Discriminator. */
  kind: "cadence";
  /** Simulation tick length (ms). */
  tickMs: number;
  /** Least ms between two state frames to one client. */
  syncIntervalMs: number;
}

/** The answer to a `tk:stats` request. */
export interface StatsMessage {
  kind: "stats";
  /** The request's id. */
  requestId: number;
  /** The `tk:stats` snapshot (parsed from the JSON text it travels as). */
  stats: unknown;
}

/**
 * Every server→client message after decoding, told apart by `kind`. Binary frames decode to the
 * default parameters (byte views); the JSON dialect to `ServerMessage<unknown, unknown>`.
 */
export type ServerMessage<Body = Uint8Array | null, Event = Uint8Array> =
  | WelcomeMessage
  | FrameMessage<Body, Event>
  | ErrorMessage
  | PongMessage
  | StatsMessage
  | ReplyMessage
  | CadenceMessage
  | NoticeMessage;

/** Writes a WELCOME into `w` (reset by the caller); returns `w`. Rooms build the fields once for both dialects. */
export function encodeWelcome<W extends BinaryWriter>(w: W, m: Omit<WelcomeMessage, "kind">): W {
  return w
    .u8(KIND_WELCOME)
    .u16(m.version)
    .varuint(m.playerId)
    .string(m.token)
    .u16(m.tickMs)
    .u16(m.syncIntervalMs)
    .f64(m.serverTime)
    .f64(m.roomEpoch)
    .u8((m.reconnected ? 1 : 0) | (m.json ? 2 : 0))
    .string(m.roomKind)
    .u16(m.cap)
    .u32(m.schemaHash >>> 0)
    .varuint(m.lastSeq);
}

/**
 * Starts a FRAME in `w` and returns the position of its flags byte. Write the sections in order
 * (ack, events, delta), then patch the flags with {@link endFrame}.
 */
export function beginFrame(w: BinaryWriter, tick: number, time: number): number {
  w.u8(KIND_FRAME);
  const flagsPos = w.offset;
  w.u8(0).varuint(tick).varuint(time);
  return flagsPos;
}

/** Writes the ack section (call right after {@link beginFrame}). */
export function writeFrameAck(w: BinaryWriter, seq: number): void {
  w.varuint(seq);
}

/** Writes the events section: a count then length-prefixed opaque event bodies. */
export function writeFrameEvents(w: BinaryWriter, events: readonly Uint8Array[]): void {
  w.varuint(events.length);
  for (const e of events) w.varuint(e.length).bytes(e);
}

/** Patches the FRAME's flags byte (at `flagsPos` from {@link beginFrame}) with the sections written. */
export function endFrame(w: FrameWriter, flagsPos: number, flags: number): void {
  w.patchU8(flagsPos, flags);
}

/** Writes an ERROR ({@link clipReason} cuts the reason); `retryAfterMs` 0 means no back-off hint. Returns `w`. */
export function encodeError<W extends BinaryWriter>(w: W, code: number, reason: string, retryAfterMs = 0): W {
  return w.u8(KIND_ERROR).u16(code).varuint(retryAfterMs).string(clipReason(reason));
}

/** Writes a PONG; returns `w`. */
export function encodePong<W extends BinaryWriter>(w: W, clientTime: number, serverTime: number): W {
  return w.u8(KIND_PONG).f64(clientTime).f64(serverTime);
}

/** Writes a CADENCE (the room's new rates); returns `w`. */
export function encodeCadence<W extends BinaryWriter>(w: W, tickMs: number, syncIntervalMs: number): W {
  return w.u8(KIND_CADENCE).u16(tickMs).u16(syncIntervalMs);
}

/** Writes a STATS answer carrying the snapshot as JSON text; returns `w`. */
export function encodeStats<W extends BinaryWriter>(w: W, requestId: number, json: string): W {
  return w.u8(KIND_STATS).u32(requestId).string(json);
}

/**
 * Server kinds by `kind - KIND_WELCOME` (they are numbered from 0x81 on, in this order), named as
 * both dialects name them (`t` in JSON, the decoded `kind`) for {@link readServerBody}.
 */
const SERVER_KINDS: readonly string[] = ["welcome", "frame", "error", "pong", "stats", "reply", "cadence", "notice"];

/** The answers to a client's requests: a STATS or a REPLY. */
export type AnswerMessage = StatsMessage | ReplyMessage;

/**
 * Reads the body of an answer to a request (STATS, REPLY) from either dialect's fields. Apart
 * from {@link readServerBody} so that a client that never asks bundles no reader of answers:
 * it passes none, and an answer it did not ask for is not read.
 */
export type AnswerReader = (kind: AnswerMessage["kind"], f: ServerFields) => AnswerMessage;

/** The {@link AnswerReader} of both dialects: a STATS snapshot or a REPLY. */
export const readAnswer: AnswerReader = (kind, f) =>
  kind === "stats" ? { kind, requestId: f.u32("id"), stats: jsonField(f, 1 << 20, "stats") } : readReply(f);

/**
 * Reads the body of a welcome, error, pong, cadence or notice message from either dialect's
 * fields, and of a stats or reply message with `answers` (null: not read, null returned; a
 * client that asked nothing drops them). A frame's sections differ too much between the
 * dialects, so each reads its own. Throws {@link DecodeError} (`unknown_kind` for any other
 * `kind`), or a SyntaxError for JSON text that is not JSON.
 */
export function readServerBody(kind: string, f: ServerFields, answers: AnswerReader | null): Exclude<ServerMessage, { kind: "frame" }> | null {
  switch (kind) {
    case "welcome": {
      const head = {
        version: f.u16("v"),
        playerId: f.varuint("playerId"),
        token: f.string(128, "token"),
        tickMs: f.u16("tickMs"),
        syncIntervalMs: f.u16("syncIntervalMs"),
        serverTime: f.finiteF64("serverTime"),
        roomEpoch: f.finiteF64("roomEpoch"),
      };
      const flags = f.u8("flags");
      if (flags > 3) throw new DecodeError("bad_value", `flags ${flags}`);
      return {
        kind: "welcome",
        ...head,
        reconnected: (flags & 1) !== 0,
        json: (flags & 2) !== 0,
        roomKind: f.string(64, "roomKind"),
        cap: f.u16("cap"),
        schemaHash: f.u32("schemaHash"),
        lastSeq: f.varuint("lastSeq"),
      };
    }
    case "error":
      return { kind: "error", ...readRefusal(f, f.u16("code")) };
    case "pong":
      return { kind: "pong", clientTime: f.finiteF64("ct"), serverTime: f.finiteF64("st") };
    case "stats":
    case "reply":
      return answers && answers(kind, f);
    case "cadence":
      return { kind: "cadence", tickMs: f.u16("tickMs"), syncIntervalMs: f.u16("syncIntervalMs") };
    case "notice":
      return readNotice(f);
  }
  throw new DecodeError("unknown_kind", `kind ${kind.slice(0, 32)}`);
}

/**
 * Decodes one binary server→client frame, every kind. Never throws: a malformed frame comes back
 * as a {@link DecodeError}, `bad_json` when a STATS, REPLY or NOTICE value is not JSON.
 */
export function decodeServerMessage(bytes: Uint8Array): ServerMessage | DecodeError {
  return decodeServerBytes(bytes, readAnswer)!;
}

/**
 * {@link decodeServerMessage} with the answers to requests read by `answers`, or, with null, not
 * read at all (null comes back for them: a client that asked nothing drops them unread).
 */
export function decodeServerBytes(bytes: Uint8Array, answers: AnswerReader | null): ServerMessage | DecodeError | null {
  try {
    const r = new BinaryReader(bytes);
    const kind = r.u8();
    let msg: ServerMessage | null;
    if (kind === KIND_FRAME) {
      const flags = r.u8();
      if (flags > 7) throw new DecodeError("bad_value", `flags ${flags}`);
      const tick = r.varuint();
      const time = r.varuint();
      const ackSeq = flags & FLAG_ACK ? r.varuint() : -1;
      const events: Uint8Array[] = [];
      if (flags & FLAG_EVENTS) {
        const n = r.varuint();
        if (n > MAX_EVENTS_PER_FRAME) throw new DecodeError("too_large", `events ${n}`);
        for (let i = 0; i < n; i++) events.push(r.bytes(r.varuint()));
      }
      const hasState = (flags & FLAG_DELTA) !== 0;
      msg = { kind: "frame", tick, time, ackSeq, events, hasState, body: hasState ? r.bytes(r.remaining) : null };
    } else {
      msg = readServerBody(SERVER_KINDS[kind - KIND_WELCOME] ?? `0x${kind.toString(16)}`, r, answers);
    }
    if (msg) r.expectEnd();
    return msg;
  } catch (e) {
    if (e instanceof DecodeError) return e;
    // Only JSON.parse throws a SyntaxError here (the reader's own failures are DecodeErrors).
    return new DecodeError(e instanceof SyntaxError ? "bad_json" : "bad_value", String(e));
  }
}
