/**
 * Room-creation overrides a join URL may carry in DEV_MODE (`?tickMs=33&cap=100&world=800`).
 * They are part of the join contract: hosts (the Cloudflare gateway, the Node host) parse them
 * with {@link parseRoomOverrides}, and pages and tools that build join URLs forward exactly
 * {@link ROOM_OVERRIDE_KEYS}. The option names are a subset of the core's `RoomOptions` (the
 * core checks that at compile time); the ranges keep a typo or a silly value from creating a
 * room that measures nonsense.
 */

/** Room options a join URL may override, with the types the room expects. */
export interface RoomOptionOverrides {
  tickMs?: number;
  syncIntervalMs?: number;
  cap?: number;
  reconnectWindowMs?: number;
  queueInputs?: boolean;
  msgRatePerSec?: number;
  msgBurst?: number;
  joinRatePerSec?: number;
  joinBurst?: number;
  minStatsIntervalMs?: number;
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
  options: RoomOptionOverrides;
  params: GameParamOverrides;
}

interface Range {
  min: number;
  max: number;
  integer?: boolean;
}

const NUMERIC_OPTIONS: Readonly<Record<Exclude<keyof RoomOptionOverrides, "queueInputs">, Range>> = {
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
