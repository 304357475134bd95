/**
 * What a room was made with that a restart must make it with again: the DEV_MODE overrides of
 * the request that created it (room options such as `cap`, game params such as `world`), e.g. a
 * matchmaker's 8-seat agar room (`POST /match/agar?cap=8`). A host keeps them with the room
 * (`RoomCheckpoint.madeWith`: core room/keptRoom.ts on Cloudflare, the Node host's checkpoints)
 * and makes a room it brings back with them, not with the overrides of whichever join wakes it
 * (a reconnect's URL carries none): otherwise the restored room would seat to the kind's default
 * cap while its matchmaker lists it at the match's.
 */
import { parseRoomOverrides, type GameParamOverrides, type RoomOptionOverrides } from "@tikron/protocol";

/** The overrides a room was made with (see the module comment). JSON-able. */
export interface RoomMadeWith {
  /** Room option overrides (`cap`, `tickMs`, …). */
  options: RoomOptionOverrides;
  /** Game params (`world`, `aoi`). */
  params: GameParamOverrides;
}

/** What a host makes a room with: option overrides and game params, as a join's route carries them. */
export interface RoomMaking {
  /** Room option overrides. */
  options: object;
  /** Game params. */
  params: object;
}

/** The query text of a making's overrides, as a join URL would carry them; `bots` left out. */
function asQuery(m: RoomMaking): URLSearchParams {
  const q = new URLSearchParams();
  for (const part of [m.options, m.params]) for (const [k, v] of Object.entries(part)) if (k !== "bots" && v !== undefined) q.append(k, String(v));
  return q;
}

/**
 * What to keep of a room made with `making`, or undefined when there is nothing to keep (no
 * overrides). `bots` is left out: bots seated at the making are seats, kept as any other, and a
 * restored room seating them again would have no room for its own seats.
 */
export function roomMadeWith(making: RoomMaking): RoomMadeWith | undefined {
  const kept = readRoomMadeWith(making);
  return kept && (Object.keys(kept.options).length > 0 || Object.keys(kept.params).length > 0) ? kept : undefined;
}

/**
 * A kept {@link RoomMadeWith} read back, or null when `value` is not one: every key and value
 * checked by the join URL's own rule (protocol `parseRoomOverrides`: known keys, ranges), a key it
 * does not know refusing the whole. Never throws.
 */
export function readRoomMadeWith(value: unknown): RoomMadeWith | null {
  const v = value as Partial<RoomMaking> | null;
  if (!v || typeof v !== "object" || Array.isArray(v) || !isPlain(v.options) || !isPlain(v.params)) return null;
  const query = asQuery(v as RoomMaking);
  const parsed = parseRoomOverrides(query);
  if (typeof parsed === "string") return null;
  const known = Object.keys(parsed.options).length + Object.keys(parsed.params).length;
  return known === [...query.keys()].length ? { options: parsed.options, params: parsed.params } : null;
}

function isPlain(x: unknown): x is object {
  return !!x && typeof x === "object" && !Array.isArray(x);
}

/**
 * What a host makes a room with: when it brings a kept room back (`saved`: the checkpoint it
 * found, undefined when none), what that room was made with (its `madeWith`; none kept: no
 * overrides), never the overrides of the request that wakes it; else `requested` (the creating
 * request's). A kept value that does not read is left out with a warning (the room comes back
 * with the kind's defaults).
 */
export function makingFor<M extends RoomMaking>(saved: unknown, requested: M): M {
  if (saved === undefined || saved === null || typeof saved !== "object") return requested;
  const kept = (saved as { madeWith?: unknown }).madeWith;
  const read = kept === undefined ? null : readRoomMadeWith(kept);
  if (kept !== undefined && !read) console.warn("[kept room] the overrides it was made with do not read; it comes back with its kind's defaults");
  // Read by the join URL's rule: the same shapes a route's overrides have.
  return { ...requested, options: { ...read?.options }, params: { ...read?.params } };
}
