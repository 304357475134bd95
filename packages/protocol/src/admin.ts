/**
 * The admin API's contract: its paths, the bodies its actions take, and the shapes it answers —
 * one definition for every host (the Cloudflare gateway, the Node host) and the console page.
 * Who may call it (an admin token, or a Cloudflare Access sign-in) is the hosts' business; what a
 * room does for each action is the core's (`HostedRoom`). The shapes it answers: adminAnswers.ts.
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
