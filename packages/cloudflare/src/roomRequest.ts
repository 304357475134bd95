import { defaultRoomOptions, type GameParams, type RoomOptions } from "@tikron/core";

/** What the Worker tells the room object about a join, in one request header. */
export interface RoomRequestMeta {
  /** Room kind from the path. */
  kind: string;
  /** Room id from the path. */
  roomId: string;
  /** DEV_MODE overrides, applied only when the room is created. */
  options: Partial<RoomOptions>;
  /** DEV_MODE game params (`world`, `aoi`), applied only when the room is created. */
  params: GameParams;
  /** The player id from a verified room ticket; absent in DEV_MODE joins without one. */
  playerId?: string;
}

/** Header carrying {@link RoomRequestMeta} from the Worker to the Durable Object. */
export const ROOM_META_HEADER = "x-tikron-room";

/** Writes the join's {@link RoomRequestMeta} into the request headers for the room object. */
export function writeRoomMeta(headers: Headers, meta: RoomRequestMeta): void {
  headers.set(ROOM_META_HEADER, JSON.stringify(meta));
}

/** Reads the {@link RoomRequestMeta} the gateway wrote; null when missing or malformed. */
export function readRoomMeta(headers: Headers): RoomRequestMeta | null {
  const raw = headers.get(ROOM_META_HEADER);
  if (!raw) return null;
  try {
    const m = JSON.parse(raw) as RoomRequestMeta;
    if (typeof m !== "object" || m === null) return null;
    if (m.playerId !== undefined && typeof m.playerId !== "string") return null;
    return typeof m.kind === "string" && typeof m.roomId === "string" ? m : null;
  } catch {
    return null;
  }
}

interface Range {
  min: number;
  max: number;
  integer?: boolean;
}

const OPTION_RANGES: Partial<Record<keyof RoomOptions, Range>> = {
  tickMs: { min: 5, max: 1000, integer: true },
  syncIntervalMs: { min: 5, max: 5000, integer: true },
  cap: { min: 1, max: 1000, integer: true },
  reconnectWindowMs: { min: 0, max: 600_000, integer: true },
  msgRatePerSec: { min: 1, max: 10_000 },
  msgBurst: { min: 1, max: 10_000 },
  joinRatePerSec: { min: 1, max: 10_000 },
  joinBurst: { min: 1, max: 10_000 },
  minStatsIntervalMs: { min: 0, max: 60_000, integer: true },
};
const PARAM_RANGES: Record<keyof GameParams, Range> = {
  world: { min: 100, max: 100_000 },
  aoi: { min: 10, max: 100_000 },
};
const BOOLEAN_OPTIONS = new Set<keyof RoomOptions>(["queueInputs"]);

/** Query keys that are room-creation overrides (everything else in the query is ignored). */
export const OVERRIDE_KEYS: readonly string[] = [...Object.keys(OPTION_RANGES), ...Object.keys(PARAM_RANGES), ...BOOLEAN_OPTIONS];

/**
 * Parses DEV_MODE room overrides from a query string. Returns an error string naming the first
 * bad key, so a sweep with a typo fails loudly instead of measuring the defaults.
 */
export function parseOverrides(q: URLSearchParams):
  | {
      /** Room option overrides. */
      options: Partial<RoomOptions>;
      /** Game params. */
      params: GameParams;
    }
  | string {
  const options: Partial<RoomOptions> = {};
  const params: GameParams = {};
  for (const [key, raw] of q) {
    if (BOOLEAN_OPTIONS.has(key as keyof RoomOptions)) {
      if (raw !== "true" && raw !== "false" && raw !== "1" && raw !== "0") return `${key} must be true or false`;
      (options as Record<string, unknown>)[key] = raw === "true" || raw === "1";
      continue;
    }
    const range = OPTION_RANGES[key as keyof RoomOptions] ?? PARAM_RANGES[key as keyof GameParams];
    if (!range) continue;
    const v = Number(raw);
    if (!Number.isFinite(v) || v < range.min || v > range.max || (range.integer && !Number.isInteger(v))) {
      return `${key}=${raw} is outside ${range.min}..${range.max}`;
    }
    if (key in PARAM_RANGES) (params as Record<string, number>)[key] = v;
    else (options as Record<string, number>)[key] = v;
  }
  return { options, params };
}

/** True when the query asks for any override. */
export function hasOverrides(q: URLSearchParams): boolean {
  for (const k of q.keys()) if (OVERRIDE_KEYS.includes(k)) return true;
  return false;
}

export { defaultRoomOptions };
