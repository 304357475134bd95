/**
 * The join URL, the one contract every host shares before the first frame: rooms live at
 * `/rooms/:kind/:roomId` (plus `/stats` for the DEV_MODE probe over HTTP), room ids follow
 * {@link ROOM_ID_PATTERN}, and the query may carry room-creation overrides in DEV_MODE
 * (`?tickMs=33&cap=100&world=800`). The overrides are part of the contract too: hosts (the Cloudflare gateway, the Node host) parse them
 * with {@link parseRoomOverrides}, and pages and tools that build join URLs forward exactly
 * {@link ROOM_OVERRIDE_KEYS}. The option names are a subset of the core's `RoomOptions` (the
 * core checks that at compile time); the ranges keep a typo or a silly value from creating a
 * room that measures nonsense.
 */
import { SYNC_INTERVAL_MS_RANGE, TICK_MS_RANGE } from "./cadence";

/** Room options a join URL may override, with the types the room expects. */
export interface RoomOptionOverrides {
  /** Simulation tick length (ms). */
  tickMs?: number;
  /** Least ms between two state frames to one client. */
  syncIntervalMs?: number;
  /** Seat cap. */
  cap?: number;
  /** How long a dropped player's seat is held (ms). */
  reconnectWindowMs?: number;
  /** Queue inputs to the next tick (true) or apply each on arrival. */
  queueInputs?: boolean;
  /** Per-connection sustained message rate. */
  msgRatePerSec?: number;
  /** Per-connection message burst. */
  msgBurst?: number;
  /** Joins admitted per second. */
  joinRatePerSec?: number;
  /** Join admission burst. */
  joinBurst?: number;
  /** Least ms between two stats answers to one connection. */
  minStatsIntervalMs?: number;
  /** Empty-frame spacing for idle clients (ms; 0 off). */
  idleFrameMs?: number;
  /** Connected clients per slice of a flush (0: every flush in one task). */
  flushSliceClients?: number;
  /** Bot players seated when the room is created (kinds that define bots). */
  bots?: number;
  /** How often a ticking room checkpoints its seats and world (ms; 0 off). */
  checkpointMs?: number;
  /** How soon after the last checkpoint a change the game marks (`keepSoon`) is kept (ms; 0: not sooner than `checkpointMs`). */
  keepSoonMs?: number;
  /** Relay objects holding the room's sockets (0: the room holds its own; see AGENTS.md "Relays"). */
  relays?: number;
  /** Seats at which a room with relays becomes relayed (0: from its start; see AGENTS.md "Relays"). */
  relayAt?: number;
}

/** Game-level knobs a join URL may override (world size, AOI radius). */
export interface GameParamOverrides {
  /** World edge length in world units (square worlds). */
  world?: number;
  /** AOI radius in world units. */
  aoi?: number;
}

/** What {@link parseRoomOverrides} returns for an acceptable query. */
export interface RoomOverrides {
  /** Room option overrides. */
  options: RoomOptionOverrides;
  /** Game params. */
  params: GameParamOverrides;
}

/** The most relay objects one relayed room may have (the `relays` override, and a deployment's `ROOM_RELAYS`). */
export const MAX_RELAYS = 16;

interface Range {
  min: number;
  max: number;
  integer?: boolean;
}

const NUMERIC_OPTIONS: Readonly<Record<Exclude<keyof RoomOptionOverrides, "queueInputs">, Range>> = {
  tickMs: { ...TICK_MS_RANGE, integer: true },
  syncIntervalMs: { ...SYNC_INTERVAL_MS_RANGE, integer: true },
  cap: { min: 1, max: 1000, integer: true },
  reconnectWindowMs: { min: 0, max: 600_000, integer: true },
  msgRatePerSec: { min: 1, max: 10_000 },
  msgBurst: { min: 1, max: 10_000 },
  joinRatePerSec: { min: 1, max: 10_000 },
  joinBurst: { min: 1, max: 10_000 },
  minStatsIntervalMs: { min: 0, max: 60_000, integer: true },
  idleFrameMs: { min: 0, max: 60_000, integer: true },
  flushSliceClients: { min: 0, max: 1000, integer: true },
  bots: { min: 0, max: 200, integer: true },
  checkpointMs: { min: 0, max: 600_000, integer: true },
  keepSoonMs: { min: 0, max: 600_000, integer: true },
  relays: { min: 0, max: MAX_RELAYS, integer: true },
  relayAt: { min: 0, max: 1000, integer: true },
};
const PARAMS: Readonly<Record<keyof GameParamOverrides, Range>> = {
  world: { min: 100, max: 100_000 },
  aoi: { min: 10, max: 100_000 },
};
const BOOLEAN_OPTIONS: readonly string[] = ["queueInputs"] satisfies (keyof RoomOptionOverrides)[];

/** Every query key that is a room-creation override; any other query key is ignored. */
export const ROOM_OVERRIDE_KEYS: readonly string[] = [...Object.keys(NUMERIC_OPTIONS), ...BOOLEAN_OPTIONS, ...Object.keys(PARAMS)];

/** True when the query asks for any override (hosts refuse them outside DEV_MODE). */
export function hasRoomOverrides(query: URLSearchParams): boolean {
  for (const key of query.keys()) if (ROOM_OVERRIDE_KEYS.includes(key)) return true;
  return false;
}

/**
 * Parses the override keys of a join query. Returns an error string naming the first bad key,
 * so a sweep with a typo fails loudly instead of measuring the defaults.
 */
export function parseRoomOverrides(query: URLSearchParams): RoomOverrides | string {
  const options: Record<string, number | boolean> = {};
  const params: Record<string, number> = {};
  for (const [key, raw] of query) {
    if (BOOLEAN_OPTIONS.includes(key)) {
      if (raw !== "true" && raw !== "false" && raw !== "1" && raw !== "0") return `${key} must be true or false`;
      options[key] = raw === "true" || raw === "1";
      continue;
    }
    const isParam = Object.hasOwn(PARAMS, key);
    const range = isParam ? PARAMS[key as keyof GameParamOverrides] : Object.hasOwn(NUMERIC_OPTIONS, key) ? NUMERIC_OPTIONS[key as keyof typeof NUMERIC_OPTIONS] : undefined;
    if (!range) continue;
    const v = Number(raw);
    if (!Number.isFinite(v) || v < range.min || v > range.max || (range.integer && !Number.isInteger(v))) {
      return `${key}=${raw} is outside ${range.min}..${range.max}`;
    }
    if (isParam) params[key] = v;
    else options[key] = v;
  }
  return { options: options as RoomOptionOverrides, params: params as GameParamOverrides };
}

/** Room ids: URL-safe and short (1–64 of `A-Z a-z 0-9 _ -`). */
export const ROOM_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const ROOM_PATH = /^\/rooms\/([^/]+)\/([^/]+)(\/stats|\/bots|\/abort)?\/?$/;

/** A join URL a host may serve: which room, whether it asks for stats, and its overrides. */
export interface RoomRoute {
  /** Room kind from the path. */
  kind: string;
  /** Room id from the path. */
  roomId: string;
  /** `/rooms/:kind/:roomId/stats` (DEV_MODE only). */
  stats: boolean;
  /**
   * `POST /rooms/:kind/:roomId/bots?count=N`: seat N bot players (DEV_MODE, or kinds whose
   * definition allows bots in production; the host decides that).
   */
  bots: boolean;
  /**
   * `POST /rooms/:kind/:roomId/abort` (DEV_MODE only): a failure drill. A host that runs rooms
   * as objects of their own makes one die as it would on the edge (`?relay=i`: relay `i` of a
   * relayed room, else the room's own object); a host that has none refuses it.
   */
  abort: boolean;
  /** DEV_MODE overrides from the query (empty when none). */
  overrides: RoomOverrides;
}

/** A join URL refused before any upgrade, with the HTTP status the host answers. */
export interface RouteRefusal {
  /** HTTP status to answer with. */
  status: 400 | 403 | 404;
  /** Why, as a short text body. */
  reason: string;
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * Reads a room URL the way every host does, in the order the error table documents:
 * malformed `%` escape 400, unknown kind 404, bad room id 400, stats or abort outside DEV_MODE 403,
 * overrides outside DEV_MODE 403, an override out of range 400. Returns null when the path is
 * not a room path at all. Identity (tickets, origins) is the host's business after this.
 */
export function routeRoomUrl(url: URL, opts: { devMode: boolean; hasKind(kind: string): boolean }): RoomRoute | RouteRefusal | null {
  const m = ROOM_PATH.exec(url.pathname);
  if (!m) return null;
  const kind = safeDecode(m[1]!);
  const roomId = safeDecode(m[2]!);
  if (kind === null || roomId === null) return { status: 400, reason: "malformed percent-encoding in the room path" };
  const stats = m[3] === "/stats";
  const bots = m[3] === "/bots";
  const abort = m[3] === "/abort";
  if (!opts.hasKind(kind)) return { status: 404, reason: `unknown room kind "${kind.slice(0, 32)}"` };
  if (!ROOM_ID_PATTERN.test(roomId)) return { status: 400, reason: "room id must be 1-64 characters of A-Z a-z 0-9 _ -" };
  if (stats && !opts.devMode) return { status: 403, reason: "room stats over HTTP are available in DEV_MODE only" };
  if (abort && !opts.devMode) return { status: 403, reason: "aborting a room's object is available in DEV_MODE only" };
  let overrides: RoomOverrides = { options: {}, params: {} };
  if (hasRoomOverrides(url.searchParams)) {
    if (!opts.devMode) return { status: 403, reason: "room option overrides are refused outside DEV_MODE" };
    const parsed = parseRoomOverrides(url.searchParams);
    if (typeof parsed === "string") return { status: 400, reason: parsed };
    overrides = parsed;
  }
  return { kind, roomId, stats, bots, abort, overrides };
}

/** True when {@link routeRoomUrl} refused the URL. */
export function isRouteRefusal(r: RoomRoute | RouteRefusal): r is RouteRefusal {
  return "status" in r;
}

/** Most bots one request may ask a room for (the core clamps to its own limit too). */
export const MAX_BOTS_PER_ROOM = 200;

/**
 * Reads `count` of `POST /rooms/:kind/:roomId/bots?count=N`: an integer 0..{@link
 * MAX_BOTS_PER_ROOM}, or an error string.
 */
export function parseBotCount(query: URLSearchParams): number | string {
  const raw = query.get("count");
  const n = Number(raw);
  if (raw === null || raw === "" || !Number.isInteger(n) || n < 0 || n > MAX_BOTS_PER_ROOM) {
    return `count must be an integer 0..${MAX_BOTS_PER_ROOM}`;
  }
  return n;
}

/**
 * Reads `relay` of `POST /rooms/:kind/:roomId/abort?relay=i`: undefined for the room's own
 * object, an index 0..{@link MAX_RELAYS}-1, or an error string.
 */
export function parseAbortRelay(query: URLSearchParams): number | undefined | string {
  const raw = query.get("relay");
  if (raw === null) return undefined;
  const n = Number(raw);
  if (raw === "" || !Number.isInteger(n) || n < 0 || n >= MAX_RELAYS) return `relay must be an integer 0..${MAX_RELAYS - 1}`;
  return n;
}
