/**
 * The admin API's contract: its paths, the bodies its actions take, and the shapes it answers —
 * one definition for every host (the Cloudflare gateway, the Node host) and the console page.
 * Who may call it (an admin token, or a Cloudflare Access sign-in) is the hosts' business; what a
 * room does for each action is the core's (`HostedRoom`).
 *
 * | request | answer |
 * |---|---|
 * | `GET /admin/api/rooms` | {@link AdminRoomList} |
 * | `GET /admin/api/rooms/<kind>/<roomId>` | {@link AdminRoomDetail} |
 * | `GET /admin/api/rooms/<kind>/<roomId>/metrics` | {@link MetricPoint}[] |
 * | `POST /admin/api/rooms/<kind>/<roomId>/<kick\|ban\|unban\|lock\|close\|notice>` | {@link AdminActionResult} |
 * | `GET /admin/api/audit?limit=N` | {@link AuditEntry}[] |
 * | `GET /admin/api/replays/<kind>` | {@link MatchSummary}[] (newest first) |
 * | `GET /admin/api/replays/<kind>/<matchId>` | the match log's bytes (`application/octet-stream`; docs/replay.md) |
 * | `GET /admin/api/refusals` | {@link AdminRefusals} |
 */
import { ROOM_ID_PATTERN } from "./joinUrl";
import type { RoomMetadata } from "./match";

/** Every admin path starts with this. */
export const ADMIN_API_PREFIX = "/admin/api";

/**
 * An operator's notice to every player of a room ("server restarts in 5 minutes"): a NOTICE of
 * this type (the room's own, beside the game's declared notice types) whose data is `{ text }`.
 */
export const OPERATOR_NOTICE = "tk:notice";

/** Longest operator notice text (UTF-16 units); the admin API refuses longer ones. */
export const MAX_NOTICE_CHARS = 500;

/** The actions an operator can take on one room. */
export const ADMIN_ACTIONS = ["kick", "ban", "unban", "lock", "close", "notice"] as const;

/** One of {@link ADMIN_ACTIONS}. */
export type AdminActionOp = (typeof ADMIN_ACTIONS)[number];

/** What an admin path asks for. */
export type AdminRoute =
  | {
      /** Every room of every kind. */
      op: "rooms";
    }
  | {
      /** Recent recorded actions. */
      op: "audit";
    }
  | {
      /** The joins this host refused before any room, by cause. */
      op: "refusals";
    }
  | {
      /** One room's detail (`room`), or its recent metric points (`metrics`). */
      op: "room" | "metrics";
      /** Room kind. */
      kind: string;
      /** Room id. */
      roomId: string;
    }
  | {
      /** A kind's recorded matches. */
      op: "replays";
      /** Room kind. */
      kind: string;
    }
  | {
      /** One recorded match's log. */
      op: "replay";
      /** Room kind. */
      kind: string;
      /** The match's id ({@link MATCH_ID_PATTERN}). */
      matchId: string;
    }
  | {
      /** An action on one room (the body says the rest: {@link readAdminAction}). */
      op: AdminActionOp;
      /** Room kind. */
      kind: string;
      /** Room id. */
      roomId: string;
    };

/** Why an admin request was refused. */
export type AdminErrorCode = "bad_request" | "too_large" | "unauthorized" | "forbidden" | "not_found" | "method_not_allowed" | "conflict" | "unavailable";

/** An admin refusal: its code and a reason for the operator (its HTTP status: {@link ADMIN_ERROR_STATUS}). */
export interface AdminError {
  /** The refusal's code. */
  code: AdminErrorCode;
  /** What went wrong, for the operator. */
  reason: string;
}

/** The HTTP status of each {@link AdminErrorCode}. */
export const ADMIN_ERROR_STATUS: Readonly<Record<AdminErrorCode, number>> = {
  bad_request: 400,
  too_large: 413,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  unavailable: 503,
};

/** An {@link AdminError}. */
export function adminError(code: AdminErrorCode, reason: string): AdminError {
  return { code, reason };
}

/** Whether `v` is an {@link AdminError}. */
export function isAdminError(v: unknown): v is AdminError {
  if (typeof v !== "object" || v === null) return false;
  const e = v as AdminError;
  return typeof e.code === "string" && Object.hasOwn(ADMIN_ERROR_STATUS, e.code) && typeof e.reason === "string";
}

/** The method an admin path takes, when it was asked with another (answered 405 with `Allow`). */
export interface AdminMethodHint {
  /** The method the path takes. */
  method: string;
}

/** Whether a path belongs to the admin API (every such path needs the admin credential, even one that leads nowhere). */
export function isAdminPath(pathname: string): boolean {
  return pathname === ADMIN_API_PREFIX || pathname.startsWith(`${ADMIN_API_PREFIX}/`);
}

const KIND_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A recorded match's id: its start in base 36 (9 digits, so ids sort by time), a dash, 10 hex digits. */
export const MATCH_ID_PATTERN = /^[0-9a-z]{9}-[0-9a-f]{10}$/;

/**
 * Reads an admin path (after the credential was checked): the route, `{ method }` when the path
 * exists under another method, or an {@link AdminError} (`not_found`) for anything else.
 */
export function routeAdminPath(pathname: string, method: string): AdminRoute | AdminMethodHint | AdminError {
  const parts = pathname.slice(ADMIN_API_PREFIX.length).split("/").slice(1);
  const get = (route: AdminRoute): AdminRoute | AdminMethodHint => (method === "GET" ? route : { method: "GET" });
  if (parts.length === 1 && parts[0] === "rooms") return get({ op: "rooms" });
  if (parts.length === 1 && parts[0] === "audit") return get({ op: "audit" });
  if (parts.length === 1 && parts[0] === "refusals") return get({ op: "refusals" });
  if (parts[0] === "replays" && (parts.length === 2 || parts.length === 3)) {
    const [, kind, matchId] = parts as [string, string, string | undefined];
    if (!KIND_PATTERN.test(kind)) return adminError("not_found", "room kinds are 1-64 characters of A-Z a-z 0-9 _ -");
    if (matchId === undefined) return get({ op: "replays", kind });
    if (!MATCH_ID_PATTERN.test(matchId)) return adminError("not_found", "not a match id");
    return get({ op: "replay", kind, matchId });
  }
  if (parts[0] === "rooms" && (parts.length === 3 || parts.length === 4)) {
    const [, kind, roomId, op] = parts as [string, string, string, string | undefined];
    if (!KIND_PATTERN.test(kind) || !ROOM_ID_PATTERN.test(roomId)) return adminError("not_found", "room kinds and ids are 1-64 characters of A-Z a-z 0-9 _ -");
    if (op === undefined) return get({ op: "room", kind, roomId });
    if (op === "metrics") return get({ op: "metrics", kind, roomId });
    if ((ADMIN_ACTIONS as readonly string[]).includes(op)) return method === "POST" ? { op: op as AdminActionOp, kind, roomId } : { method: "POST" };
  }
  return adminError("not_found", "no such admin path");
}

/** Longest reason an operator gives for a kick, ban or close (UTF-16 units). */
export const MAX_ADMIN_REASON_CHARS = 200;

/** Longest ban: 30 days (seconds). */
export const MAX_BAN_SECONDS = 30 * 24 * 3600;

/** Longest admin request body (characters; longer: `too_large`, 413). */
export const MAX_ADMIN_BODY_CHARS = 4096;

/** A player identity as rooms bind it: 1–128 printable ASCII characters without spaces. */
const IDENTITY_PATTERN = /^[\x21-\x7e]{1,128}$/;

/** An action's body, checked ({@link readAdminAction}). */
export type AdminAction =
  | {
      /** Removes the player: the socket closes with `kicked` (4022) and the reason, and the seat is freed. */
      op: "kick";
      /** The seat's player id in the room. */
      playerId: number;
      /** Told to the player in the close. */
      reason: string;
    }
  | {
      /**
       * Bans an identity from the room for `seconds`: its sockets close with `banned` (4023), its
       * joins are refused until then. Names the identity, or the player whose identity it is.
       */
      op: "ban";
      /** A seated player whose identity is banned. */
      playerId?: number;
      /** The identity itself (a ticket's player id, `jwt:<sub>`, …). */
      identity?: string;
      /** How long, 1..{@link MAX_BAN_SECONDS}. */
      seconds: number;
      /** Told to the player. */
      reason: string;
    }
  | {
      /** Lifts a ban. */
      op: "unban";
      /** The banned identity. */
      identity: string;
    }
  | {
      /** Locks (no new players) or unlocks the room. */
      op: "lock";
      /** True to lock. */
      locked: boolean;
    }
  | {
      /** Closes every socket with `room_closed` (4008) and the reason, and frees every seat. */
      op: "close";
      /** Told to every player in the close. */
      reason: string;
    }
  | {
      /** Sends every player a NOTICE. */
      op: "notice";
      /** The text, 1..{@link MAX_NOTICE_CHARS} UTF-16 units. */
      text: string;
    };

/** Checks the body of action `op`; the action or why not (`bad_request`). */
export function readAdminAction(op: AdminActionOp, body: unknown): AdminAction | AdminError {
  const o = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const bad = (why: string) => adminError("bad_request", `${op}: ${why}`);
  const reason = o.reason === undefined ? "" : o.reason;
  if (typeof reason !== "string" || reason.length > MAX_ADMIN_REASON_CHARS) return bad(`reason must be a string of at most ${MAX_ADMIN_REASON_CHARS} characters`);
  const playerId = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 0xffffffff;
  switch (op) {
    case "kick":
      return playerId(o.playerId) ? { op, playerId: o.playerId, reason } : bad("playerId must be a seat's player id");
    case "ban": {
      const seconds = o.seconds;
      if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_BAN_SECONDS) return bad(`seconds must be a whole number in 1..${MAX_BAN_SECONDS}`);
      const hasPlayer = o.playerId !== undefined;
      const hasIdentity = o.identity !== undefined;
      if (hasPlayer === hasIdentity) return bad("name either playerId or identity");
      if (hasPlayer) return playerId(o.playerId) ? { op, playerId: o.playerId, seconds, reason } : bad("playerId must be a seat's player id");
      return typeof o.identity === "string" && IDENTITY_PATTERN.test(o.identity) ? { op, identity: o.identity, seconds, reason } : bad("identity must be 1-128 printable characters");
    }
    case "unban":
      return typeof o.identity === "string" && IDENTITY_PATTERN.test(o.identity) ? { op, identity: o.identity } : bad("identity must be 1-128 printable characters");
    case "lock":
      return typeof o.locked === "boolean" ? { op, locked: o.locked } : bad("locked must be true or false");
    case "close":
      return { op, reason };
    case "notice":
      return typeof o.text === "string" && o.text.trim() !== "" && o.text.length <= MAX_NOTICE_CHARS ? { op, text: o.text } : bad(`text must be 1-${MAX_NOTICE_CHARS} characters`);
  }
}

/**
 * Reads an action's request body as it arrived (text): over {@link MAX_ADMIN_BODY_CHARS} is
 * `too_large`; not JSON, or not what the action needs, `bad_request`; an empty body is `{}`.
 */
export function parseAdminAction(op: AdminActionOp, text: string): AdminAction | AdminError {
  if (text.length > MAX_ADMIN_BODY_CHARS) return adminError("too_large", `the body is over ${MAX_ADMIN_BODY_CHARS} characters`);
  let body: unknown = {};
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      return adminError("bad_request", "the body is not JSON");
    }
  }
  return readAdminAction(op, body);
}

/** What an action did (the answer of every `POST` action path). */
export interface AdminActionResult {
  /** The action. */
  op: AdminActionOp;
  /** Sockets it closed (kick, ban, close), or players it reached (notice); 0 for lock and unban. */
  affected: number;
  /** The identity banned or unbanned. */
  identity?: string;
  /** When a ban ends (Unix ms). */
  until?: number;
  /** Whether the action was recorded in the audit log (false where the host has no log). */
  audited: boolean;
}

/**
 * One room's counters over one sampling interval: what the hosts write to Workers Analytics
 * Engine (one data point per room per interval) and keep in memory for the admin API. Counts
 * are deltas over the interval; `clients` and `seats` are the values at its end; `flushP99Ms`
 * the 99th percentile of the room's recent flushes.
 */
export interface MetricPoint {
  /** End of the interval (Unix ms). */
  at: number;
  /** Length of the interval (ms). */
  intervalMs: number;
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** Connected players at the end. */
  clients: number;
  /** Seats taken at the end (connected or held). */
  seats: number;
  /** State frames sent. */
  frames: number;
  /** Bytes sent to clients. */
  bytesOut: number;
  /** Bytes received from clients. */
  bytesIn: number;
  /** Messages received from clients. */
  messagesIn: number;
  /** Errors (every `tk:stats` `errors` counter). */
  errors: number;
  /** Socket closes (every close code). */
  closes: number;
  /** 99th percentile flush time (ms) of the recent flushes. */
  flushP99Ms: number;
}

/** A room in the admin list: what its matchmaker knows, and a summary of its `tk:stats`. */
export interface AdminRoomSummary {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** Seats taken (players and bots, connected or held). */
  clients: number;
  /** Bots among them. */
  bots: number;
  /** Seats held for reservations. */
  reserved: number;
  /** Seat cap. */
  maxClients: number;
  /** Takes no new players. */
  locked: boolean;
  /** Never listed or picked. */
  private: boolean;
  /** When the room was created (Unix ms). */
  createdAt: number;
  /** The game's metadata. */
  metadata: RoomMetadata;
  /** The room's own counters, or null when it could not be asked. */
  stats: AdminStatsSummary | null;
}

/** A few `tk:stats` numbers of one room. */
export interface AdminStatsSummary {
  /** Connected players. */
  ccu: number;
  /** Seats taken. */
  seats: number;
  /** ms since the room was made (this instance). */
  uptimeMs: number;
  /** State frames sent. */
  frames: number;
  /** Bytes sent. */
  bytesOut: number;
  /** Errors of every kind. */
  errors: number;
  /** Socket closes of every code. */
  closes: number;
  /** 99th percentile flush time of the recent flushes (ms). */
  flushP99Ms: number;
}

/** `GET /admin/api/rooms`. */
export interface AdminRoomList {
  /** Every room the matchmakers know, newest first. */
  rooms: AdminRoomSummary[];
  /** Kinds whose matchmaker could not be asked (their rooms are missing from the list). */
  unavailable: string[];
}

/** One seat as the operator sees it. */
export interface AdminSeat {
  /** Player id in the room. */
  playerId: number;
  /** Display name. */
  name: string;
  /** The verified identity bound to the seat (ticket player id, `jwt:<sub>`), or null (anonymous). */
  identity: string | null;
  /** A live socket sits on it. */
  connected: boolean;
  /** One of the room's bots. */
  bot: boolean;
  /** Held for a reconnect: ms left of the window; null while connected. */
  heldForMs: number | null;
  /** Highest input seq applied. */
  lastSeq: number;
  /** Bytes sent the client has not confirmed (receipts): a client falling behind shows here. */
  backlogBytes: number;
  /**
   * Round trip to the client (ms) when the room knows it; the room answers pings but does not see
   * their round trip, so today always null (the SDK's net graph shows it client-side).
   */
  rttMs: number | null;
}

/** One error the room sent a client (or hit itself), most recent last. */
export interface AdminRoomError {
  /** When (Unix ms). */
  at: number;
  /** The error's name (`bad_input`, `rate_limited`, `internal`, …). */
  name: string;
  /** Its reason. */
  reason: string;
  /** The seat it went to, or null (a socket before hello, or the room itself). */
  playerId: number | null;
}

/** A ban in force. */
export interface AdminBan {
  /** The banned identity. */
  identity: string;
  /** When it ends (Unix ms). */
  until: number;
  /** The operator's reason. */
  reason: string;
}

/** `GET /admin/api/rooms/<kind>/<roomId>`. */
export interface AdminRoomDetail {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** Every seat, connected or held. */
  seats: AdminSeat[];
  /** The room's recent errors, oldest first. */
  errors: AdminRoomError[];
  /** Bans in force. */
  bans: AdminBan[];
  /** Metadata, lock and visibility. */
  listing: {
    /** Takes no new players. */
    locked: boolean;
    /** Never listed or picked. */
    private: boolean;
    /** The game's metadata. */
    metadata: RoomMetadata;
  };
  /** The full `tk:stats` snapshot. */
  stats: unknown;
  /** Recent metric points, oldest first. */
  metrics: MetricPoint[];
}

/** One recorded admin action (`GET /admin/api/audit`). */
export interface AuditEntry {
  /** Row id, increasing. */
  id: number;
  /** When (Unix ms). */
  at: number;
  /** Who: `token` (the admin token) or `access:<email>` (a Cloudflare Access sign-in). */
  actor: string;
  /** The action ({@link AdminActionOp}). */
  action: string;
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** The action's body as sent (JSON text). */
  detail: string;
  /** `ok`, or the refusal's {@link AdminErrorCode}. */
  result: string;
}

/** A recorded match, as a host lists it (`GET /admin/api/replays/<kind>`). */
export interface MatchSummary {
  /** The match's id ({@link MATCH_ID_PATTERN}; its log's name in the host's store). */
  matchId: string;
  /** The room's kind. */
  kind: string;
  /** The room's id. */
  roomId: string;
  /** Room time 0 of the match (epoch ms). */
  startedAt: number;
  /** When the match ended (epoch ms). */
  endedAt: number;
  /** Players seated during the match (distinct player ids, bots included). */
  players: number;
  /** The log's size in bytes. */
  bytes: number;
  /** Why it ended: `disposed` (the room was let go or closed), `handed_over` (a restart took it on), `limit` (the record's length or size limit). */
  reason: string;
}

/**
 * Why a host refused a join before any room saw it (counted per cause): no credential; one that
 * is `malformed`, `forged` (a signature that does not verify, a key the provider does not
 * publish, an algorithm not accepted), `expired` (or not valid yet, or living too long), or a
 * valid one for another room, kind, issuer or audience (`wrong_room`); credentials naming two
 * players (`two_identities`); an unknown kind or path (`not_found`); a malformed room id or
 * override (`bad_request`); a foreign origin or a DEV_MODE-only request (`forbidden`); joins not
 * configured, or the sign-in provider unreachable (`unavailable`); and the host's own
 * `join_throttled` answers to a caller the room refused moments ago (`throttled`).
 */
export const REFUSAL_CAUSES = ["no_credential", "malformed", "forged", "expired", "wrong_room", "two_identities", "not_found", "bad_request", "forbidden", "unavailable", "throttled"] as const;

/** One of {@link REFUSAL_CAUSES}. */
export type RefusalCause = (typeof REFUSAL_CAUSES)[number];

/**
 * The joins a host refused before any room (`GET /admin/api/refusals`): on Cloudflare the Worker
 * isolate that answered (each isolate counts its own; the Analytics Engine points add them up),
 * on the Node host the process.
 */
export interface AdminRefusals {
  /** When counting started (Unix ms): the isolate's or process's start. */
  since: number;
  /** Refusals by cause, since {@link since}. */
  byCause: Record<RefusalCause, number>;
  /**
   * Of those, refused upgrades answered with a plain HTTP status instead of an upgrade closed at
   * once, because their address had used its budget of refusals read as a close.
   */
  plain: number;
}
