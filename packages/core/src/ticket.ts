/**
 * Room tickets: short-lived, HMAC-SHA-256 signed permissions to join one room as one player.
 *
 * A game backend that knows `TICKET_SECRET` mints a ticket; the browser passes it as
 * `?ticket=` on the WebSocket URL (browsers cannot set headers on a WebSocket handshake); the
 * gateway Worker verifies it before anything reaches the room's Durable Object.
 *
 * Two more uses of the same token: a **match ticket** (room id {@link ANY_ROOM}, `*`) lets its
 * player ask the kind's matchmaker for a seat, and never joins a room by itself; a **seat
 * reservation** is a ticket the matchmaker mints for the room it chose, with the reservation id
 * as claim `s`: the join that names it takes the seat held for it, and afterwards it is the
 * player's ticket back into that room until it expires.
 *
 * Wire format: `<payload>.<signature>`, both base64url without padding.
 * - payload: UTF-8 JSON `{"v":1,"k":kind,"r":roomId,"p":playerId,"e":expiryUnixSeconds}`,
 *   plus `"s":reservationId` on a seat reservation
 * - signature: HMAC-SHA-256 over the ASCII string `tk1.` + payload (the prefix keeps a MAC made
 *   with the same secret for any other purpose from ever passing as a ticket).
 *
 * Only WebCrypto, TextEncoder and btoa/atob are used, so this module runs unchanged in Workers,
 * Node 22 and browsers. It must never import `cloudflare:workers`.
 *
 * @module @tikron/core/ticket
 */
import { fromBase64Url, toBase64Url } from "./base64url";

/** Current ticket format version (the `v` claim). */
export const TICKET_VERSION = 1;

/** Secrets shorter than this are refused: a guessable secret makes every ticket forgeable. */
export const MIN_TICKET_SECRET_LENGTH = 16;

/** Longest accepted ticket string; anything longer is malformed before any crypto runs. */
export const MAX_TICKET_LENGTH = 1024;

/** Longest lifetime a minted ticket may have (one day); verification refuses longer ones. */
export const MAX_TICKET_TTL_SECONDS = 86_400;

/** Clock difference allowed between the minting backend and the gateway, on top of the lifetime. */
export const TICKET_CLOCK_SKEW_SECONDS = 300;

/** Player ids: printable ASCII without spaces, 1-128 characters (chosen by the game backend). */
export const TICKET_PLAYER_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;

const SIGNING_PREFIX = "tk1.";
/** HMAC-SHA-256 output is 32 bytes = 43 base64url characters. */
const SIGNATURE_CHARS = 43;

/** The room id of a match ticket: any room of the kind, through its matchmaker only. */
export const ANY_ROOM = "*";

/**
 * The secret reservations are signed with on a DEV_MODE host that has no `TICKET_SECRET`: public,
 * so it secures nothing, and hosts accept it only in DEV_MODE.
 */
export const DEV_MODE_SECRET = "tikron-dev-mode-only-not-a-secret";

/** Reservation ids: what claim `s` holds (unguessable, URL-safe). */
export const RESERVATION_ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** What a valid ticket grants. */
export interface RoomTicketClaims {
  /** Room kind the ticket admits to. */
  kind: string;
  /** Room id the ticket admits to. */
  roomId: string;
  /** The game backend's id for the player; the room binds one seat to it. */
  playerId: string;
  /** Expiry, Unix epoch seconds (the ticket is refused from this second on). */
  expiresAt: number;
  /** On a seat reservation: the reservation id the room holds a seat under. */
  seat?: string;
}

/** Input of {@link mintRoomTicket}. */
export interface MintRoomTicketInput {
  /** The shared secret (`TICKET_SECRET`), at least {@link MIN_TICKET_SECRET_LENGTH} characters. */
  secret: string;
  /** Room kind to admit to. */
  kind: string;
  /** Room id to admit to. */
  roomId: string;
  /** The backend's id for the player (1–128 printable ASCII, no spaces). */
  playerId: string;
  /** Lifetime in seconds, 1..{@link MAX_TICKET_TTL_SECONDS}. */
  ttlSeconds: number;
  /** Current time in ms (defaults to `Date.now()`); tests pin it. */
  nowMs?: number;
  /** A seat reservation's id (matchmakers mint these; see the module doc). */
  seat?: string;
}

/** Why a ticket was refused. All of them mean "403" except `missing`, which means "401". */
export type TicketRefusal = "missing" | "malformed" | "bad_signature" | "expired" | "too_long" | "wrong_room";

/** What each {@link TicketRefusal} tells the client (safe to send: it names no secret). */
export const TICKET_REFUSAL_TEXT: Readonly<Record<TicketRefusal, string>> = {
  missing: "a room ticket is required (?ticket=)",
  malformed: "room ticket is malformed",
  bad_signature: "room ticket signature is invalid",
  expired: "room ticket has expired",
  too_long: "room ticket expires further away than a ticket may live (24 h)",
  wrong_room: "room ticket is for another room",
};

/** Result of {@link verifyRoomTicket}. */
export type TicketVerdict =
  | {
      /** The ticket is valid for this room. */
      ok: true;
      /** What it grants. */
      claims: RoomTicketClaims;
    }
  | {
      /** Refused. */
      ok: false;
      /** Why. */
      reason: TicketRefusal;
    };

const encoder = new TextEncoder();
const keyCache = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    // One gateway uses one secret; the cap only stops a test suite from growing the cache.
    if (keyCache.size >= 8) keyCache.clear();
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keyCache.set(secret, key);
  }
  return key;
}

/** Throws unless the secret is long enough to be worth signing with. */
export function assertTicketSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== "string" || secret.length < MIN_TICKET_SECRET_LENGTH) {
    throw new Error(`TICKET_SECRET must be a string of at least ${MIN_TICKET_SECRET_LENGTH} characters`);
  }
}

/**
 * Mints a ticket for one player and one room. For game backends (Node or Workers) and tests;
 * the gateway itself only verifies. Throws on a weak secret or out-of-range input, so a
 * misconfigured backend fails loudly instead of handing out tickets the gateway will refuse.
 */
export async function mintRoomTicket(input: MintRoomTicketInput): Promise<string> {
  assertTicketSecret(input.secret);
  const { kind, roomId, playerId, ttlSeconds } = input;
  if (typeof kind !== "string" || kind.length < 1 || kind.length > 64) throw new Error("kind must be 1-64 characters");
  if (typeof roomId !== "string" || roomId.length < 1 || roomId.length > 64) throw new Error("roomId must be 1-64 characters");
  if (!TICKET_PLAYER_ID_PATTERN.test(playerId)) throw new Error("playerId must be 1-128 printable ASCII characters without spaces");
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TICKET_TTL_SECONDS) {
    throw new Error(`ttlSeconds must be an integer in 1..${MAX_TICKET_TTL_SECONDS}`);
  }
  if (input.seat !== undefined && !RESERVATION_ID_PATTERN.test(input.seat)) throw new Error("seat must match RESERVATION_ID_PATTERN");
  const nowSeconds = Math.floor((input.nowMs ?? Date.now()) / 1000);
  const claims: Record<string, unknown> = { v: TICKET_VERSION, k: kind, r: roomId, p: playerId, e: nowSeconds + ttlSeconds };
  if (input.seat !== undefined) claims.s = input.seat;
  const payload = toBase64Url(encoder.encode(JSON.stringify(claims)));
  const key = await hmacKey(input.secret);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(SIGNING_PREFIX + payload)));
  return `${payload}.${toBase64Url(mac)}`;
}

/**
 * Verifies a ticket for the room being joined (`expected.roomId`: the room, or a list of room
 * ids any of which will do, e.g. `[roomId, ANY_ROOM]`). Checks, in order: shape, signature,
 * claims, expiry, room. The signature is checked with `crypto.subtle.verify`, which compares MACs in
 * constant time, and before the payload is parsed, so unsigned bytes are never interpreted.
 * Never throws on hostile input; a weak or missing secret does throw (a configuration error
 * that callers must surface as a server error, not as a refused ticket).
 */
export async function verifyRoomTicket(
  ticket: string | null | undefined,
  expected: { secret: string; kind: string; roomId: string | readonly string[]; nowMs?: number },
): Promise<TicketVerdict> {
  assertTicketSecret(expected.secret);
  if (ticket === null || ticket === undefined || ticket === "") return { ok: false, reason: "missing" };
  if (ticket.length > MAX_TICKET_LENGTH) return { ok: false, reason: "malformed" };
  const dot = ticket.indexOf(".");
  if (dot <= 0 || dot !== ticket.lastIndexOf(".")) return { ok: false, reason: "malformed" };
  const payload = ticket.slice(0, dot);
  const sigText = ticket.slice(dot + 1);
  if (sigText.length !== SIGNATURE_CHARS) return { ok: false, reason: "malformed" };
  const sig = fromBase64Url(sigText);
  const payloadBytes = fromBase64Url(payload);
  if (!sig || sig.length !== 32 || !payloadBytes) return { ok: false, reason: "malformed" };

  const key = await hmacKey(expected.secret);
  const valid = await crypto.subtle.verify("HMAC", key, sig, encoder.encode(SIGNING_PREFIX + payload));
  if (!valid) return { ok: false, reason: "bad_signature" };

  const claims = parseClaims(payloadBytes);
  if (!claims) return { ok: false, reason: "malformed" };
  const nowSeconds = Math.floor((expected.nowMs ?? Date.now()) / 1000);
  if (nowSeconds >= claims.expiresAt) return { ok: false, reason: "expired" };
  // A validly signed ticket that lives for years (a leaked signing key, a backend bug) is as
  // good as a password: refuse expiries further away than any ticket may live.
  if (claims.expiresAt - nowSeconds > MAX_TICKET_TTL_SECONDS + TICKET_CLOCK_SKEW_SECONDS) return { ok: false, reason: "too_long" };
  const room = expected.roomId;
  if (claims.kind !== expected.kind || (typeof room === "string" ? claims.roomId !== room : !room.includes(claims.roomId))) return { ok: false, reason: "wrong_room" };
  return { ok: true, claims };
}

function parseClaims(bytes: Uint8Array): RoomTicketClaims | null {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return null;
  }
  if (typeof raw !== "object" || raw === null) return null;
  const o = raw as Record<string, unknown>;
  if (o.v !== TICKET_VERSION) return null;
  if (typeof o.k !== "string" || typeof o.r !== "string" || typeof o.p !== "string") return null;
  if (!TICKET_PLAYER_ID_PATTERN.test(o.p)) return null;
  if (typeof o.e !== "number" || !Number.isSafeInteger(o.e)) return null;
  if (o.s !== undefined && (typeof o.s !== "string" || !RESERVATION_ID_PATTERN.test(o.s))) return null;
  const claims: RoomTicketClaims = { kind: o.k, roomId: o.r, playerId: o.p, expiresAt: o.e };
  if (o.s !== undefined) claims.seat = o.s;
  return claims;
}
