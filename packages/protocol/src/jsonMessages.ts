import { DecodeError } from "./decodeError";
import { MAX_CLIENT_FRAME_BYTES } from "./constants";
import { readAnswer, readServerBody, type AnswerReader, type ServerMessage, type WelcomeMessage } from "./serverMessages";
import { JsonFields } from "./serverFields";
import { isMessageType } from "./roomMessages";

/**
 * JSON text mode, for turn-based rooms where readability beats bytes. Same message set as the
 * binary mode; every message is an object with a `t` discriminator.
 */
export type JsonClientMessage =
  | {
      t: "hello";
      /** Protocol version the client speaks ({@link PROTOCOL_VERSION}). */
      v: number;
      /** Reconnect token of a held seat, or empty for a new seat. */
      token: string;
      /** Display name (≤ 64 UTF-16 units). */
      name: string;
      /** The player's join options (a JSON object, at most `MAX_JOIN_OPTIONS_BYTES` of JSON; the room checks them); absent for none. */
      options?: object | undefined;
    }
  | {
      t: "input";
      /** Input sequence number, strictly increasing per seat. */
      seq: number;
      /** The game's input, validated by its `decodeInput`. */
      data: unknown;
    }
  | {
      t: "ping";
      /** Client clock at sending (ms), echoed in the pong. */
      ct: number;
    }
  | {
      t: "stats";
      /** Request id, echoed in the answer. */
      id: number;
    }
  | { t: "leave" }
  | { t: "ka" }
  | {
      t: "msg";
      /** The message type ({@link isMessageType}). */
      type: string;
      /** Request id echoed by the reply; absent or 0 when no reply is wanted. */
      id?: number;
      /** The payload, any JSON value (absent reads as null). */
      data?: unknown;
    }
  /** Receipt: server messages (`m`) and UTF-16 units (`b`) read so far, modulo 2^32. */
  | {
      t: "rc";
      /** Server messages read on this socket, modulo 2^32. */
      m: number;
      /** UTF-16 units of them read, modulo 2^32. */
      b: number;
    };

/**
 * The JSON rooms' keepalive, sent as this exact text and answered with the same text. It is a
 * fixed string so a hibernating Durable Object can answer it with a WebSocket auto-response
 * without waking up; a room that is awake answers it the same way.
 */
export const JSON_KEEPALIVE = '{"t":"ka"}';

/**
 * The JSON welcome: the binary {@link WelcomeMessage}'s fields under the same names, with the
 * version as `v` and without `json` (implied) and `schemaHash` (JSON rooms have no schema).
 * Built from the binary shape by {@link toJsonWelcome}, so the two cannot drift apart.
 */
export type JsonWelcome = {
  t: "welcome";
  /** Protocol version the room speaks. */
  v: number;
} & Omit<WelcomeMessage, "kind" | "version" | "json" | "schemaHash">;

/** The welcome's fields as a room fills them in, whichever dialect the client speaks. */
export type WelcomeFields = Omit<WelcomeMessage, "kind">;

/** Server→client messages of JSON mode; the binary counterparts live in serverMessages.ts. */
export type JsonServerMessage =
  | JsonWelcome
  | {
      t: "state";
      /** Tick the state belongs to. */
      tick: number;
      /** Room time (ms since `roomEpoch`) of that tick. */
      time: number;
      /** Highest processed input seq, when it changed. */
      ack?: number;
      /** The game's JSON view for this player, when it changed. */
      state?: unknown;
      /** Game events for this player since the last message. */
      events?: unknown[];
    }
  | {
      t: "error";
      /** Numeric {@link ErrorCode}. */
      code: number;
      /** Symbolic {@link ErrorName}. */
      name: string;
      /** Human-readable explanation. */
      reason: string;
      /** How long to wait before retrying (ms), when the server asks for it. */
      retryAfterMs?: number;
    }
  | {
      t: "pong";
      /** The ping's client time, echoed. */
      ct: number;
      /** Server wall clock at answering (epoch ms). */
      st: number;
    }
  | {
      t: "stats";
      /** The request's id. */
      id: number;
      /** The room's `tk:stats` snapshot. */
      stats: unknown;
    }
  | { t: "ka" }
  | {
      t: "cadence";
      /** Simulation tick length (ms). */
      tickMs: number;
      /** Least ms between two state frames to one client. */
      syncIntervalMs: number;
    }
  | {
      t: "reply";
      /** The request's id. */
      id: number;
      /** Success: the reply value. */
      data?: unknown;
      /** Refusal: the numeric {@link ErrorCode} (absent on success). */
      code?: number;
      /** Refusal: the symbolic {@link ErrorName}. */
      name?: string;
      /** Refusal: a human-readable explanation. */
      reason?: string;
      /** Refusal: how long to wait before asking again (ms). */
      retryAfterMs?: number;
    }
  | {
      t: "notice";
      /** The notice type. */
      type: string;
      /** The payload, any JSON value. */
      data: unknown;
    };

/** The JSON-mode welcome carrying the same fields as the binary one (see {@link JsonWelcome}). */
export function toJsonWelcome(m: WelcomeFields): JsonWelcome {
  return {
    t: "welcome",
    v: m.version,
    playerId: m.playerId,
    token: m.token,
    tickMs: m.tickMs,
    syncIntervalMs: m.syncIntervalMs,
    serverTime: m.serverTime,
    roomEpoch: m.roomEpoch,
    reconnected: m.reconnected,
    roomKind: m.roomKind,
    cap: m.cap,
    lastSeq: m.lastSeq,
  };
}

function isU32(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

function isShortString(v: unknown, max: number): v is string {
  return typeof v === "string" && v.length <= max;
}

/** Parses and validates one JSON-mode client message. Never throws. */
export function decodeJsonClientMessage(text: string): JsonClientMessage | DecodeError {
  if (text.length > MAX_CLIENT_FRAME_BYTES) {
    return new DecodeError("too_large", `text frame of ${text.length} chars exceeds ${MAX_CLIENT_FRAME_BYTES}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return new DecodeError("bad_json", "frame is not valid JSON");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    return new DecodeError("bad_json", "frame is not a JSON object");
  }
  const o = v as Record<string, unknown>;
  switch (o.t) {
    case "hello":
      if (!isU32(o.v) || !isShortString(o.token ?? "", 128) || !isShortString(o.name ?? "", 64)) {
        return new DecodeError("bad_value", "hello needs v:int, token:string, name:string");
      }
      // Any JSON value passes here: what the options may be is the room's check (bad_request, naming the option).
      return { t: "hello", v: o.v, token: (o.token as string) ?? "", name: (o.name as string) ?? "", ...(o.options !== undefined ? { options: o.options as object } : {}) };
    case "input":
      if (!isU32(o.seq)) return new DecodeError("bad_value", "input.seq must be a non-negative integer");
      return { t: "input", seq: o.seq, data: o.data };
    case "ping":
      if (typeof o.ct !== "number" || !Number.isFinite(o.ct)) {
        return new DecodeError("bad_value", "ping.ct must be a finite number");
      }
      return { t: "ping", ct: o.ct };
    case "stats":
      if (!isU32(o.id)) return new DecodeError("bad_value", "stats.id must be a non-negative integer");
      return { t: "stats", id: o.id };
    case "leave":
      return { t: "leave" };
    case "ka":
      return { t: "ka" };
    case "rc":
      if (!isU32(o.m) || !isU32(o.b)) return new DecodeError("bad_value", "rc.m and rc.b must be u32");
      return { t: "rc", m: o.m, b: o.b };
    case "msg":
      if (!isMessageType(o.type)) return new DecodeError("bad_value", "msg.type must be 1-32 of A-Z a-z 0-9 _ . : -");
      if (o.id !== undefined && !isU32(o.id)) return new DecodeError("bad_value", "msg.id must be a non-negative integer");
      return { t: "msg", type: o.type, id: o.id ?? 0, data: o.data === undefined ? null : o.data };
    default:
      return new DecodeError("unknown_kind", `unknown message type ${JSON.stringify(o.t)?.slice(0, 32)}`);
  }
}

/** Parses a JSON-mode server message (client side). Never throws. */
export function decodeJsonServerMessage(text: string): JsonServerMessage | DecodeError {
  try {
    const v = JSON.parse(text) as JsonServerMessage | null;
    // Only an object can carry a string `t` (null has no fields: `?.`).
    if (typeof v?.t === "string") return v;
  } catch {
    // Not JSON at all: the same refusal as JSON of the wrong shape.
  }
  return new DecodeError("bad_json", "not a JSON object with a string t");
}

/** The JSON rooms' keepalive answer ({@link JSON_KEEPALIVE}), decoded. */
export interface KeepaliveMessage {
  /** Discriminator. */
  kind: "keepalive";
}

/** A server message of either dialect after decoding: event and state bodies are bytes or JSON values. */
export type DecodedServerMessage = ServerMessage<unknown, unknown> | KeepaliveMessage;

/**
 * Decodes a JSON-dialect server message into the shape {@link decodeServerMessage} gives binary
 * ones: the welcome gains `json: true` and `schemaHash` 0, fields take their binary names, and
 * both dialects read a message's fields through one reader ({@link readServerBody}). Never
 * throws; a missing field, or one not of its binary type (a u32, a finite number, a string
 * within its binary limit), is a `bad_value` error. Answers to requests are read by `answers`
 * (by default all of them; null: not read, null returned, as {@link decodeServerBytes} does).
 */
export function decodeServerText(text: string, answers: AnswerReader | null = readAnswer): DecodedServerMessage | DecodeError | null {
  const m = decodeJsonServerMessage(text);
  if (m instanceof DecodeError) return m;
  // What JSON leaves out: optional refusal fields (a reply's code: 0 is success), and the
  // welcome's schema hash and flags byte (4, which the welcome refuses, when `reconnected` is
  // not a boolean).
  const reconnected = (m as { reconnected?: unknown }).reconnected;
  const f = new JsonFields({ retryAfterMs: 0, reason: "", schemaHash: 0, ...(m.t === "reply" && { code: 0 }), ...m, flags: reconnected === true ? 3 : reconnected === false ? 2 : 4 });
  try {
    switch (m.t) {
      case "state":
        return { kind: "frame", tick: f.varuint("tick"), time: f.varuint("time"), ackSeq: m.ack === undefined ? -1 : f.varuint("ack"), events: Array.isArray(m.events) ? m.events : [], hasState: m.state !== undefined, body: m.state };
      case "ka":
        return { kind: "keepalive" };
    }
    return readServerBody(m.t, f, answers);
  } catch (e) {
    // JsonFields throws DecodeErrors; anything else still comes back as a value, never thrown.
    return e instanceof DecodeError ? e : new DecodeError("bad_value", String(e));
  }
}
