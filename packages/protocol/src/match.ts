/**
 * The matchmaking contract: what a client asks the matchmaker over HTTP (`POST /match/<kind>`,
 * `POST /match/<kind>/<roomId>`, `GET /match/<kind>/rooms`, `POST /match/<kind>/queue`), what it
 * answers, and the filter grammar rooms are chosen by. One definition for every host (the
 * Cloudflare gateway, the Node host) and the client SDK; the decisions themselves are the core's
 * (`@tikron/core/match`).
 */

/** How a match request picks its room. */
export type MatchMode = "joinOrCreate" | "create" | "join";

/** A metadata value a room may carry and a filter may compare: JSON scalars only. */
export type MetadataValue = string | number | boolean;

/** A room's metadata: declared by its game, set at creation and at run time. */
export type RoomMetadata = Record<string, MetadataValue>;

/** A numeric range on one metadata key (inclusive bounds; either may be left out). */
export interface FilterRange {
  /** Lowest accepted value. */
  gte?: number;
  /** Highest accepted value. */
  lte?: number;
}

/** Filters on metadata keys: a value (equality) or a numeric {@link FilterRange}. */
export type MatchFilters = Record<string, MetadataValue | FilterRange>;

/** The body of `POST /match/<kind>`. */
export interface MatchRequest {
  /** `joinOrCreate` (default), `create` (always a new room) or `join` (an existing room only). */
  mode: MatchMode;
  /** Which rooms qualify: keys the game declared filterable. */
  filters: MatchFilters;
  /** Options a new room is created with (the game turns them into metadata). */
  options: Record<string, unknown>;
  /** A created room is private: never listed, never picked; joined by its id only. */
  private: boolean;
  /**
   * The player's join options (what it will send in its hello), checked against the game's
   * declaration before any seat is reserved (`bad_request` naming the option); unchecked here.
   */
  joinOptions?: unknown;
}

/** The body of `POST /match/<kind>/queue`. */
export interface QueueRequest {
  /** The player's rating: groups are formed of players whose ratings lie within the window. */
  rating: number;
  /** Chosen by the client so it can cancel (`DELETE /match/<kind>/queue/<queueId>`). */
  queueId: string;
  /** The player's join options, as in a {@link MatchRequest}. */
  joinOptions?: unknown;
}

/** The body of `POST /match/<kind>/<roomId>` (none at all is an empty one). */
export interface JoinByIdRequest {
  /** The player's join options, as in a {@link MatchRequest}. */
  joinOptions?: unknown;
}

/** A seat held for one player in one room: what every successful match answers. */
export interface SeatReservation {
  /** Room kind. */
  kind: string;
  /** The room the seat is held in. */
  roomId: string;
  /**
   * The reservation token: single-use for taking the seat, then the player's ticket back into
   * this room (reconnects) until it expires.
   */
  reservation: string;
  /** The WebSocket URL to join with (`…/rooms/<kind>/<roomId>?reservation=…`). */
  url: string;
  /** When the held seat is given up if unused, Unix ms. */
  expiresAt: number;
  /** True when the room was created for this request. */
  created: boolean;
  /** Queue matches: how many players were seated together (the game's group size). */
  group?: number;
}

/** One room of `GET /match/<kind>/rooms`. */
export interface RoomListing {
  /** Room id within its kind. */
  roomId: string;
  /** Seats taken (players and bots, connected or held for a reconnect). */
  clients: number;
  /** Bots among {@link RoomListing.clients}. */
  bots: number;
  /** Seats held for reservations not used yet. */
  reserved: number;
  /** Seat cap. */
  maxClients: number;
  /** The game's metadata. */
  metadata: RoomMetadata;
  /** When the room was created, Unix ms. */
  createdAt: number;
}

/** Why a match request was refused: the `code` of a refusal's JSON body. */
export type MatchErrorCode =
  | "bad_request"
  | "too_large"
  | "bad_filter"
  | "bad_options"
  | "unauthorized"
  | "forbidden"
  | "unknown_kind"
  | "not_found"
  | "no_room"
  | "room_full"
  | "locked"
  | "no_queue"
  | "rate_limited"
  | "queue_timeout"
  | "cancelled"
  | "party_full"
  | "unavailable";

/** A refusal's JSON body: `{code, reason}` plus, where waiting helps, `retryAfterMs`. */
export interface MatchError {
  /** Machine-readable reason. */
  code: MatchErrorCode;
  /** Human-readable reason. */
  reason: string;
  /** How long to wait before asking again (rate limits, a matchmaker restarting). */
  retryAfterMs?: number;
}

/** The HTTP status each refusal is answered with. */
export const MATCH_ERROR_STATUS: Readonly<Record<MatchErrorCode, number>> = {
  bad_request: 400,
  too_large: 413,
  bad_filter: 400,
  bad_options: 400,
  unauthorized: 401,
  forbidden: 403,
  unknown_kind: 404,
  not_found: 404,
  no_room: 404,
  room_full: 409,
  locked: 409,
  no_queue: 404,
  rate_limited: 429,
  queue_timeout: 408,
  cancelled: 409,
  party_full: 409,
  unavailable: 503,
};

/** Refusals worth asking again for (after `retryAfterMs`): the same request may succeed. */
export function isRetryableMatchError(code: string): boolean {
  return code === "rate_limited" || code === "unavailable" || code === "room_full";
}

/** Builds a {@link MatchError}. */
export function matchError(code: MatchErrorCode, reason: string, retryAfterMs?: number): MatchError {
  return retryAfterMs === undefined ? { code, reason } : { code, reason, retryAfterMs };
}

/**
 * True for a {@link MatchError}: an object whose `code` is a known refusal code and whose `reason`
 * is a string. (Filters, which may hold any key, are wrapped as `{filters}` by their readers so
 * they are never mistaken for one.)
 */
export function isMatchError(v: unknown): v is MatchError {
  if (typeof v !== "object" || v === null) return false;
  const e = v as MatchError;
  return typeof e.code === "string" && Object.hasOwn(MATCH_ERROR_STATUS, e.code) && typeof e.reason === "string";
}

/** Most filter keys one request may name. */
export const MAX_FILTER_KEYS = 16;
/**
 * Most characters of JSON a request body may hold (UTF-16 units; a host refuses a longer body
 * `too_large`, 413, reading at most three bytes of UTF-8 per character of it).
 */
export const MAX_MATCH_BODY_CHARS = 4096;
/** Metadata keys: short identifiers. */
export const METADATA_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;
/** Longest string metadata value. */
export const MAX_METADATA_STRING = 128;
/** Queue ids: what a client may choose (1–64 of `A-Z a-z 0-9 _ -`). */
export const QUEUE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const MODES: readonly string[] = ["joinOrCreate", "create", "join"] satisfies MatchMode[];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether `v` is an acceptable metadata value (finite number, bounded string, boolean). */
export function isMetadataValue(v: unknown): v is MetadataValue {
  if (typeof v === "number") return Number.isFinite(v);
  if (typeof v === "string") return v.length <= MAX_METADATA_STRING;
  return typeof v === "boolean";
}

/** Filters read from a body or a query (wrapped, so a filter named `code` is never an error). */
export interface FiltersRead {
  /** The filters. */
  filters: MatchFilters;
}

/** A match path asked with the wrong method: the method it takes (the host answers 405). */
export interface WrongMethod {
  /** The method the path takes. */
  method: string;
}

/**
 * Checks a filter object's grammar: at most {@link MAX_FILTER_KEYS} keys of
 * {@link METADATA_KEY_PATTERN}, each a metadata value or a range of finite numbers. Which keys a
 * game allows is the matchmaker's check, not this one.
 */
export function readFilters(v: unknown): FiltersRead | MatchError {
  if (v === undefined || v === null) return { filters: {} };
  if (!isPlainObject(v)) return matchError("bad_filter", "filters must be an object");
  const keys = Object.keys(v);
  if (keys.length > MAX_FILTER_KEYS) return matchError("bad_filter", `at most ${MAX_FILTER_KEYS} filter keys`);
  const out: MatchFilters = {};
  for (const key of keys) {
    if (!METADATA_KEY_PATTERN.test(key)) return matchError("bad_filter", `filter key "${key.slice(0, 32)}" is not a metadata key`);
    const f = v[key];
    if (isMetadataValue(f)) {
      out[key] = f;
      continue;
    }
    if (!isPlainObject(f)) return matchError("bad_filter", `filter ${key} must be a value or {gte, lte}`);
    const range: FilterRange = {};
    for (const [bound, n] of Object.entries(f)) {
      if (bound !== "gte" && bound !== "lte") return matchError("bad_filter", `filter ${key}: unknown bound "${bound.slice(0, 16)}"`);
      if (typeof n !== "number" || !Number.isFinite(n)) return matchError("bad_filter", `filter ${key}.${bound} must be a finite number`);
      range[bound] = n;
    }
    out[key] = range;
  }
  return { filters: out };
}

/**
 * Reads filters from a query string: `key=value` (equality; a value that reads as a finite
 * number, `true` or `false` compares as that type) and `key.gte=n` / `key.lte=n` (ranges).
 */
export function readFilterQuery(query: URLSearchParams): FiltersRead | MatchError {
  const obj: Record<string, unknown> = {};
  for (const [raw, value] of query) {
    const dot = raw.lastIndexOf(".");
    const bound = dot > 0 ? raw.slice(dot + 1) : "";
    if (bound === "gte" || bound === "lte") {
      const key = raw.slice(0, dot);
      const prev = obj[key];
      const range = (isPlainObject(prev) ? prev : {}) as Record<string, unknown>;
      range[bound] = value.trim() === "" ? NaN : Number(value);
      obj[key] = range;
      continue;
    }
    obj[raw] = value === "true" ? true : value === "false" ? false : value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return readFilters(obj);
}

/** Whether metadata `m` passes every filter (a key missing from `m` fails its filter). */
export function matchesFilters(m: RoomMetadata, filters: MatchFilters): boolean {
  for (const key in filters) {
    const f = filters[key]!;
    const v = m[key];
    if (typeof f === "object") {
      if (typeof v !== "number") return false;
      if (f.gte !== undefined && v < f.gte) return false;
      if (f.lte !== undefined && v > f.lte) return false;
    } else if (v !== f) {
      return false;
    }
  }
  return true;
}

/** Reads the body of `POST /match/<kind>` (already parsed from JSON). */
export function readMatchRequest(v: unknown): MatchRequest | MatchError {
  if (v === undefined || v === null) v = {};
  if (!isPlainObject(v)) return matchError("bad_request", "the body must be a JSON object");
  const mode = v.mode ?? "joinOrCreate";
  if (typeof mode !== "string" || !MODES.includes(mode)) return matchError("bad_request", `mode must be one of ${MODES.join(", ")}`);
  const read = readFilters(v.filters);
  if (isMatchError(read)) return read;
  const options = v.options ?? {};
  if (!isPlainObject(options)) return matchError("bad_options", "options must be an object");
  const priv = v.private ?? false;
  if (typeof priv !== "boolean") return matchError("bad_request", "private must be true or false");
  if (priv && mode !== "create") return matchError("bad_request", "only mode create makes a private room");
  return { mode: mode as MatchMode, filters: read.filters, options, private: priv, ...(v.joinOptions !== undefined ? { joinOptions: v.joinOptions } : {}) };
}

/** Reads the body of `POST /match/<kind>/queue` (already parsed from JSON). */
export function readQueueRequest(v: unknown): QueueRequest | MatchError {
  if (!isPlainObject(v)) return matchError("bad_request", "the body must be a JSON object");
  if (typeof v.rating !== "number" || !Number.isFinite(v.rating)) return matchError("bad_request", "rating must be a finite number");
  if (typeof v.queueId !== "string" || !QUEUE_ID_PATTERN.test(v.queueId)) return matchError("bad_request", "queueId must be 1-64 of A-Z a-z 0-9 _ -");
  return { rating: v.rating, queueId: v.queueId, ...(v.joinOptions !== undefined ? { joinOptions: v.joinOptions } : {}) };
}

/** Reads the body of `POST /match/<kind>/<roomId>` (already parsed from JSON; none: `{}`). */
export function readJoinByIdRequest(v: unknown): JoinByIdRequest | MatchError {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) return matchError("bad_request", "the body must be a JSON object");
  return v.joinOptions !== undefined ? { joinOptions: v.joinOptions } : {};
}

/** A matchmaking path with no more than its kind: which operation. */
export interface KindRoute {
  /** `POST /match/<kind>`, `GET …/rooms`, `POST …/queue`, DEV_MODE `GET …/stats`, `POST …/restart`. */
  op: "match" | "rooms" | "queue" | "stats" | "restart";
  /** The room kind. */
  kind: string;
}

/** `POST /match/<kind>/<roomId>`: a seat in a known room. */
export interface JoinByIdRoute {
  /** Join by id. */
  op: "joinById";
  /** The room kind. */
  kind: string;
  /** The room. */
  roomId: string;
}

/** `DELETE /match/<kind>/queue/<queueId>`: leave the queue. */
export interface CancelRoute {
  /** Cancel a queue wait. */
  op: "cancel";
  /** The room kind. */
  kind: string;
  /** The wait to end. */
  queueId: string;
}

/** `POST /match/<kind>/party`: make a party. */
export interface PartyCreateRoute {
  /** Make a party. */
  op: "partyCreate";
  /** The room kind. */
  kind: string;
}

/** A path of one party: join it, watch it, leave it, start it or stop its start. */
export interface PartyRoute {
  /**
   * `POST /match/<kind>/party/<code>` (join), `GET` (watch), `DELETE` (leave);
   * `POST /match/<kind>/party/<code>/start` (start), `DELETE` (stop a queued start).
   */
  op: "partyJoin" | "partyWatch" | "partyLeave" | "partyStart" | "partyCancel";
  /** The room kind. */
  kind: string;
  /** The party's code as the path spells it (`normalizePartyCode` reads it). */
  code: string;
}

/** The matchmaking paths, as every host reads them. */
export type MatchRoute = KindRoute | JoinByIdRoute | CancelRoute | PartyCreateRoute | PartyRoute;

const MATCH_PATH = /^\/match\/([A-Za-z0-9_-]{1,64})(?:\/([A-Za-z0-9_-]{1,64}))?(?:\/([A-Za-z0-9_-]{1,64}))?(?:\/([A-Za-z0-9_-]{1,64}))?\/?$/;

/** The party paths (`a` is `party`): by method, with `start` after the code. */
function routePartyPath(kind: string, code: string | undefined, start: string | undefined, method: string): MatchRoute | WrongMethod | null {
  if (code === undefined) return method === "POST" ? { op: "partyCreate", kind } : { method: "POST" };
  if (start === undefined) {
    const op = method === "POST" ? "partyJoin" : method === "GET" ? "partyWatch" : method === "DELETE" ? "partyLeave" : null;
    return op ? { op, kind, code } : { method: "GET, POST, DELETE" };
  }
  if (start !== "start") return null;
  const op = method === "POST" ? "partyStart" : method === "DELETE" ? "partyCancel" : null;
  return op ? { op, kind, code } : { method: "POST, DELETE" };
}

/**
 * Reads a `/match/…` path: `POST /match/<kind>`, `POST /match/<kind>/<roomId>`,
 * `GET /match/<kind>/rooms`, `POST /match/<kind>/queue`, `DELETE /match/<kind>/queue/<queueId>`,
 * the party paths (`/match/<kind>/party…`, see {@link PartyRoute}), and in DEV_MODE
 * `GET /match/<kind>/stats` and `POST /match/<kind>/restart` (the host decides). Null when the
 * path is not a match path; `{method}` when the method does not fit it (405). A room named like
 * one of those words is joined by id with `POST /match/<kind>/room/<roomId>`.
 */
export function routeMatchPath(pathname: string, method: string): MatchRoute | WrongMethod | null {
  const m = MATCH_PATH.exec(pathname);
  if (!m) return null;
  const kind = m[1]!;
  const a = m[2];
  const b = m[3];
  if (a === "party") return routePartyPath(kind, b, m[4], method);
  if (m[4] !== undefined) return null;
  if (a === undefined) return method === "POST" ? { op: "match", kind } : { method: "POST" };
  if (a === "rooms" && b === undefined) return method === "GET" ? { op: "rooms", kind } : { method: "GET" };
  if (a === "queue") {
    if (b === undefined) return method === "POST" ? { op: "queue", kind } : { method: "POST" };
    return method === "DELETE" ? { op: "cancel", kind, queueId: b } : { method: "DELETE" };
  }
  if (a === "room" && b !== undefined) return method === "POST" ? { op: "joinById", kind, roomId: b } : { method: "POST" };
  if (a === "stats" && b === undefined) return method === "GET" ? { op: "stats", kind } : { method: "GET" };
  if (a === "restart" && b === undefined) return method === "POST" ? { op: "restart", kind } : { method: "POST" };
  if (b !== undefined) return null;
  return method === "POST" ? { op: "joinById", kind, roomId: a } : { method: "POST" };
}
