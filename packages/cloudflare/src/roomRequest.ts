/**
 * The room metadata header: what the gateway Worker tells a room's object about a request (the
 * route it decided, the room, DEV_MODE overrides, the verified player id, the caller's address).
 */
import { readClaims, type GameParams, type PlayerClaims, type RoomOptions } from "@tikron/core";

/**
 * What the Worker's routing decided a request for a room is, besides a socket joining: the
 * DEV_MODE stats probe, seating bots, the DEV_MODE abort drill (the object resets itself), or
 * (from a relay object, never the gateway) a relayed room's relay opening its link to the simulation. The object acts on it and never reads the path again.
 */
export type RoomRequestRoute = "stats" | "bots" | "relay-link" | "abort";

const ROUTES: readonly unknown[] = ["stats", "bots", "relay-link", "abort"] satisfies RoomRequestRoute[];

/** What the Worker tells the room object about a request, in one request header. */
export interface RoomRequestMeta {
  /** What the request is for, as the gateway's `routeRoomUrl` decided; absent for a join. */
  route?: RoomRequestRoute;
  /** Room kind from the path. */
  kind: string;
  /** Room id from the path. */
  roomId: string;
  /** DEV_MODE overrides (the protocol's `parseRoomOverrides`), applied only when the room is created. */
  options: Partial<RoomOptions>;
  /** DEV_MODE game params (`world`, `aoi`), applied only when the room is created. */
  params: GameParams;
  /** The player id from a verified room ticket; absent in DEV_MODE joins without one. */
  playerId?: string;
  /** The sign-in claims verified with `playerId` (a JWT's, as `AUTH_CLAIMS` names them): the seat's `Player.claims`. */
  claims?: PlayerClaims;
  /** The caller's address (`CF-Connecting-IP`) when admission should limit by it (see `admissionAddress`). */
  address?: string;
  /** The seat reservation the join names (from a verified reservation token whose identity is `playerId`). */
  reservation?: string;
  /** For a relayed room (`relays=K`): the relay object (0..K-1) the gateway sent the join to. */
  relay?: number;
}

/** Header carrying {@link RoomRequestMeta} from the Worker to the Durable Object. */
export const ROOM_META_HEADER = "x-tikron-room";

/** Puts the join's metadata on the request the Worker forwards to the room's object. */
export function writeRoomMeta(headers: Headers, meta: RoomRequestMeta): void {
  headers.set(ROOM_META_HEADER, JSON.stringify(meta));
}

/** Reads the join's metadata in the room's object; null when absent or malformed. */
export function readRoomMeta(headers: Headers): RoomRequestMeta | null {
  const raw = headers.get(ROOM_META_HEADER);
  if (!raw) return null;
  try {
    const m = JSON.parse(raw) as RoomRequestMeta;
    if (typeof m !== "object" || m === null) return null;
    if (m.playerId !== undefined && typeof m.playerId !== "string") return null;
    if (m.address !== undefined && typeof m.address !== "string") return null;
    if (m.reservation !== undefined && typeof m.reservation !== "string") return null;
    if (m.route !== undefined && !ROUTES.includes(m.route)) return null;
    if (m.relay !== undefined && !(Number.isInteger(m.relay) && m.relay >= 0)) return null;
    if (m.claims !== undefined && readClaims(m.claims) === null) return null;
    return typeof m.kind === "string" && typeof m.roomId === "string" ? m : null;
  } catch {
    return null;
  }
}

/**
 * Header of a room object's answer to a join that reached a relayed room's own object (a room
 * promoted past its threshold, see core placement `promotionDue`): the room's relay count. The
 * gateway re-sends the join to one of those relays; no client ever sees this answer.
 */
export const ROOM_RELAYED_HEADER = "x-tikron-relayed";

/** The answer "this room is relayed over `relays` relays; send the join to one" (421, internal). */
export function relayedAnswer(relays: number): Response {
  return new Response(`relayed over ${relays} relays`, { status: 421, headers: { [ROOM_RELAYED_HEADER]: String(relays) } });
}

/** The relay count a {@link relayedAnswer} names; 0 for any other answer. */
export function readRelayedAnswer(response: Response): number {
  if (response.status !== 421) return 0;
  const k = Number(response.headers.get(ROOM_RELAYED_HEADER));
  return Number.isInteger(k) && k >= 1 ? k : 0;
}
