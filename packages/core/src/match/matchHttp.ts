import { PARTY_CODE_ALPHABET, PARTY_CODE_LENGTH, ROOM_OVERRIDE_KEYS, hasRoomOverrides, isMatchError, matchError, parseRoomOverrides, readFilterQuery, type MatchError, type MatchFilters, type PartyView, type SeatReservation } from "@tikron/protocol";
import { toBase64Url } from "../base64url";
import type { PartyAnswer } from "./parties";
import type { ReservedSeat } from "./seats";
import { NO_OVERRIDES, type RoomCreation } from "./roomPort";

/**
 * What both hosts share when they serve the matchmaking paths: DEV_MODE overrides on a match
 * request, the answer a client gets, the join URL in it, fresh ids, and which matchmaker shard a
 * room or a request belongs to. The paths themselves are served by `matchRoutes.ts`.
 */

/**
 * Room-creation overrides a match request carries in its query (DEV_MODE only, like a join URL's:
 * `POST /match/agar?cap=8`). Rooms a matchmaker creates with them only take requests with the
 * same overrides, so a test's small rooms never mix with the defaults.
 */
export function matchOverrides(query: URLSearchParams, devMode: boolean): RoomCreation | MatchError {
  if (!hasRoomOverrides(query)) return NO_OVERRIDES;
  if (!devMode) return matchError("forbidden", "room option overrides are refused outside DEV_MODE");
  const parsed = parseRoomOverrides(query);
  if (typeof parsed === "string") return matchError("bad_request", parsed);
  const options = parsed.options as Record<string, unknown>;
  const params = parsed.params as Record<string, unknown>;
  return { overrides: { options, params }, key: overridesKey(options, params) };
}

/**
 * The key of a room's creation overrides ("" for none): rooms only match requests made with the
 * same key. `bots` is left out: seating bots when a room is made does not change what it is.
 */
export function overridesKey(options: Record<string, unknown>, params: Record<string, unknown>): string {
  const canonical = (o: Record<string, unknown>): string =>
    Object.keys(o)
      .filter((k) => k !== "bots")
      .sort()
      .map((k) => `${k}=${String(o[k])}`)
      .join("&");
  const o = canonical(options);
  const p = canonical(params);
  return o === "" && p === "" ? "" : `${o}|${p}`;
}

/** What a room list asks for. */
export interface ListingQuery {
  /** Metadata filters. */
  filters: MatchFilters;
  /** The overrides key rooms must have been made with; undefined for any. */
  overrides: string | undefined;
}

/**
 * The query of `GET /match/<kind>/rooms`: metadata filters, and (DEV_MODE) room overrides, which
 * limit the list to rooms made with them. `ticket` is neither.
 */
export function listingQuery(query: URLSearchParams, devMode: boolean): ListingQuery | MatchError {
  const creation = matchOverrides(query, devMode);
  if (isMatchError(creation)) return creation;
  const rest = new URLSearchParams();
  for (const [k, v] of query) if (k !== "ticket" && !ROOM_OVERRIDE_KEYS.includes(k)) rest.append(k, v);
  const read = readFilterQuery(rest);
  if (isMatchError(read)) return read;
  return { filters: read.filters, overrides: creation === NO_OVERRIDES ? undefined : creation.key };
}

/** The WebSocket origin of a request's URL (`ws://host:port` or `wss://host`). */
export function webSocketOrigin(url: URL): string {
  return `${url.protocol === "https:" ? "wss:" : "ws:"}//${url.host}`;
}

/** The answer to a successful match: the seat and the URL to join it with. */
export function seatReservationOf(kind: string, seat: ReservedSeat, wsOrigin: string): SeatReservation {
  const url = `${wsOrigin}/rooms/${encodeURIComponent(kind)}/${encodeURIComponent(seat.roomId)}?reservation=${encodeURIComponent(seat.token)}`;
  const out: SeatReservation = { kind, roomId: seat.roomId, reservation: seat.token, url, expiresAt: seat.expiresAt, created: seat.created };
  if (seat.group !== undefined) out.group = seat.group;
  return out;
}

/** A party answer as its member reads it: the kind, and its seat (once matched) with the URL to join it. */
export function partyViewOf(kind: string, answer: PartyAnswer, wsOrigin: string): PartyView {
  const { seat, ...rest } = answer;
  return seat ? { kind, ...rest, seat: seatReservationOf(kind, seat, wsOrigin) } : { kind, ...rest };
}

/** `bytes` random bytes as base64url: room ids (10 bytes, 14 characters), reservation ids (16). */
export function randomId(bytes: number): string {
  const b = new Uint8Array(bytes);
  crypto.getRandomValues(b);
  return toBase64Url(b);
}

/** An anonymous identity for a DEV_MODE caller without a ticket (one per request): the core's one form (player.ts). */
export { anonymousIdentity } from "../player";

/** FNV-1a of a string: cheap and stable across hosts, for shard placement. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The matchmaker shard a room belongs to: a hash of its id, so a room found by id (a join by id,
 * a report) reaches the shard that knows it with no lookup. With one shard, 0.
 */
export function shardOfRoom(roomId: string, shards: number): number {
  return shards <= 1 ? 0 : fnv1a(roomId) % shards;
}

/** The name of a kind's matchmaker shard (a Durable Object name): the kind itself for shard 0. */
export function matchmakerName(kind: string, shard: number): string {
  return shard === 0 ? kind : `${kind}#${shard}`;
}

/** A fresh room id that belongs to `shard` (ids are drawn until one hashes there). */
export function newRoomIdFor(shard: number, shards: number): string {
  for (;;) {
    const id = randomId(10);
    if (shardOfRoom(id, shards) === shard) return id;
  }
}

/**
 * A fresh party code that belongs to `shard` (codes are drawn until one hashes there): the
 * party's every request reaches the shard that holds it by its code alone.
 */
export function newPartyCodeFor(shard: number, shards: number): string {
  const b = new Uint8Array(PARTY_CODE_LENGTH);
  for (;;) {
    crypto.getRandomValues(b);
    // 256 is a multiple of 32: every character is equally likely.
    let code = "";
    for (const x of b) code += PARTY_CODE_ALPHABET[x & 31];
    if (shardOfRoom(code, shards) === shard) return code;
  }
}
