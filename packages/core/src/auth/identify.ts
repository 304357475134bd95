/**
 * Who is joining: the one call a host makes with an upgrade (or matchmaking) request, before
 * anything reaches a room. It reads the request's credential — a room ticket (`?ticket=`) or a
 * provider's JWT (`Authorization: Bearer`, or `?token=` because browsers cannot set headers on
 * a WebSocket) — verifies it with what the host accepts, and answers the player's identity or
 * why not, with the HTTP status and client-safe text to refuse with.
 */
import type { JWTPayload } from "jose";
import { TICKET_REFUSAL_TEXT, verifyRoomTicket, type RoomTicketClaims, type TicketRefusal } from "../ticket";
import type { JwtRefusal, JwtVerifier } from "./jwtVerifier";
import type { PlayerClaims } from "../player";
import { toBase64Url } from "../base64url";

/** The part of a `Headers` object {@link identify} reads. */
export interface HeadersLike {
  /** The header's value, or `null` when absent (names are case-insensitive). */
  get(name: string): string | null;
}

/** What {@link identify} reads of a request: a `Request` is one; a Node host builds one. */
export interface IdentifyRequest {
  /** The request URL; a path alone (Node's `req.url`) is read against `http://localhost`. */
  url: string | URL;
  /** Its headers, for `Authorization: Bearer`. */
  headers?: HeadersLike;
}

/** What a room ticket must be for to be accepted (what `verifyRoomTicket` checks it against). */
export interface TicketRequirement {
  /** The HMAC secret (`TICKET_SECRET`). */
  secret: string;
  /** The room kind being joined. */
  kind: string;
  /** The room id being joined, or the ids any of which will do (a match ticket: `[ANY_ROOM, roomId]`). */
  roomId: string | readonly string[];
  /** Current time in ms (defaults to `Date.now()`); tests pin it. */
  nowMs?: number;
}

/** What a host accepts; omit a field to refuse that kind of credential. */
export interface IdentifyOptions {
  /** Room tickets, and the room one must be for. */
  ticket?: TicketRequirement | null;
  /** Provider JWTs, verified by this verifier (one per configuration, kept for the process's life). */
  jwt?: JwtVerifier | null;
}

/** A credential found in a request. */
export interface Credential {
  /** Which kind: a room ticket or a provider's JWT. */
  kind: "ticket" | "jwt";
  /** The token itself. */
  value: string;
}

/** Why a request's identity was refused: a ticket's reasons, a JWT's reasons. */
export type IdentityRefusal = TicketRefusal | JwtRefusal;

/** Result of {@link identify}. */
export type IdentityVerdict =
  | {
      /** Verified. */
      ok: true;
      /** Verified from a room ticket. */
      via: "ticket";
      /** The player id the ticket names. */
      identity: string;
      /** The ticket's claims. */
      claims: RoomTicketClaims;
      /** The ticket itself (hosts remember refused ones). */
      credential: string;
    }
  | {
      /** Verified. */
      ok: true;
      /** Verified from a provider's JWT. */
      via: "jwt";
      /** The configured prefix + the identity claim's value. */
      identity: string;
      /** The token's verified claims. */
      claims: JWTPayload;
      /** The claims handed to games in the player's record (the configuration's `claims`, bounded). */
      playerClaims: PlayerClaims;
      /** The token itself (hosts remember refused ones). */
      credential: string;
    }
  | {
      /** Refused. */
      ok: false;
      /** The credential that was refused; `null` when none was usable. */
      via: "ticket" | "jwt" | null;
      /** Why. */
      reason: IdentityRefusal;
      /**
       * 401 for every refusal of the caller's credential (none, malformed, forged, expired, for
       * another room, another audience, …: one refusal, `unauthorized`, on every host and path);
       * 503 when the provider's keys cannot be had now.
       */
      status: 401 | 503;
      /** Text safe to send the client. */
      message: string;
      /** One line for the server's log (may hold claims: never send it). */
      detail?: string;
    };

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
/** A room ticket's shape (`<payload>.<signature>`): one dot, where a JWT has two. */
const TICKET_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The credential a request carries, `null` when it has none, or `"ambiguous"` when it carries
 * more than one (a ticket and a token, or two different tokens): guessing which one was meant
 * would hide a client's bug, so such a request is refused. `Authorization: Bearer` carries
 * either: a room ticket (a match ticket travels there) by its shape, else a JWT.
 */
export function readCredential(request: IdentifyRequest): Credential | null | "ambiguous" {
  const url = typeof request.url === "string" ? new URL(request.url, "http://localhost") : request.url;
  const query = url.searchParams.get("ticket");
  const token = url.searchParams.get("token");
  const bearer = BEARER.exec(request.headers?.get("authorization") ?? "")?.[1] ?? null;
  const bearerTicket = bearer !== null && TICKET_SHAPE.test(bearer) ? bearer : null;
  const bearerJwt = bearer !== null && bearerTicket === null ? bearer : null;
  const ticket = query ?? bearerTicket;
  const jwt = token ?? bearerJwt;
  if ((query !== null && bearerTicket !== null && query !== bearerTicket) || (token !== null && bearerJwt !== null && token !== bearerJwt)) return "ambiguous";
  if (ticket !== null && jwt !== null) return "ambiguous";
  if (ticket !== null) return { kind: "ticket", value: ticket };
  if (jwt !== null) return { kind: "jwt", value: jwt };
  return null;
}

/**
 * The identity a request proves, by the credentials `options` accepts. Never throws on what a
 * client sends; a ticket secret that is too weak throws (a configuration error the host must
 * answer with 503 and log, as it does today).
 */
export async function identify(request: IdentifyRequest, options: IdentifyOptions): Promise<IdentityVerdict> {
  const credential = readCredential(request);
  if (credential === "ambiguous") return refuse(null, "malformed", AMBIGUOUS);
  if (credential?.kind === "ticket" && options.ticket) {
    const verdict = await verifyRoomTicket(credential.value, options.ticket);
    if (verdict.ok) return { ok: true, via: "ticket", identity: verdict.claims.playerId, claims: verdict.claims, credential: credential.value };
    return refuse("ticket", verdict.reason, verdict.reason === "missing" ? missingText(options) : TICKET_REFUSAL_TEXT[verdict.reason]);
  }
  if (credential?.kind === "jwt" && options.jwt) {
    const verdict = await options.jwt.verify(credential.value);
    if (verdict.ok) return { ok: true, via: "jwt", identity: verdict.identity, claims: verdict.claims, playerClaims: verdict.playerClaims, credential: credential.value };
    return refuse("jwt", verdict.reason, verdict.reason === "missing" ? missingText(options) : JWT_TEXT[verdict.reason], verdict.detail);
  }
  const detail = credential ? `${credential.kind === "ticket" ? "room tickets are" : "sign-in tokens are"} not accepted here` : undefined;
  return refuse(null, "missing", missingText(options), detail);
}

/** How long a client is told to wait when the sign-in provider's keys cannot be fetched (ms): every host's `jwks_unavailable` answer. */
export const SIGN_IN_RETRY_MS = 5_000;

/** What {@link identifyCaller} answers: an identity, an anonymous caller (credentials optional), or a refusal. */
export type CallerVerdict =
  | IdentityVerdict
  | {
      /** Let in. */
      ok: true;
      /** No credential was verified: an anonymous caller (DEV_MODE, or a host that asks for none). */
      via: null;
      /**
       * None, or the identity of the guest key it sent ({@link guestIdentity}: the same in every
       * room and match, so what is kept by identity, a player's own record, is its own).
       */
      identity: string | null;
    }
  | {
      /** Refused. */
      ok: false;
      /** No credential was looked at. */
      via: null;
      /** This host accepts no credential at all while it requires one. */
      reason: "unconfigured";
      /** 503: the host, not the caller, must change. */
      status: 503;
      /** Text safe to send the client. */
      message: string;
    };

/**
 * The one rule every host applies to a caller (a join, a match request): with `required`
 * (production) a verified credential or a refusal — and when the host accepts none at all (no
 * ticket secret, no JWT sign-in) every caller is refused `unconfigured` (503); without it
 * (DEV_MODE) a caller may come anonymously, but a credential it does send is verified when the
 * host accepts its kind, so staging rehearses the production flow. Throws what {@link identify}
 * throws (a ticket secret too weak to use).
 */
export async function identifyCaller(request: IdentifyRequest, options: IdentifyOptions & { required: boolean }): Promise<CallerVerdict> {
  if (!options.ticket && !options.jwt) {
    if (!options.required) return anonymousCaller(request);
    return { ok: false, via: null, reason: "unconfigured", status: 503, message: "sign-in is not configured on this server" };
  }
  const verdict = await identify(request, options);
  // Optional credentials: none (or one of a kind this host does not check) is an anonymous caller.
  if (!verdict.ok && verdict.reason === "missing" && !options.required) return anonymousCaller(request);
  return verdict;
}

/** The query parameter an anonymous caller names its guest key in (`?guest=`). */
export const GUEST_KEY_PARAM = "guest";

/** A guest key: 16–128 characters of base64url (a page makes one at random and keeps it). */
export const GUEST_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The identity of guest key `key`: `guest-` and 96 bits of its SHA-256 as base64url. Where
 * credentials are optional (DEV_MODE), a caller without one that sends a guest key joins and
 * matches as this identity (one seat per identity, like a ticket's), the same in every room:
 * the key is its bearer secret, and the identity tells nothing of it.
 */
export async function guestIdentity(key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`tikron.guest.${key}`)));
  return `guest-${toBase64Url(digest.subarray(0, 12))}`;
}

/** An anonymous caller: a guest's identity when it sent a guest key, else none. */
async function anonymousCaller(request: IdentifyRequest): Promise<CallerVerdict> {
  const url = typeof request.url === "string" ? new URL(request.url, "http://localhost") : request.url;
  const key = url.searchParams.get(GUEST_KEY_PARAM);
  return { ok: true, via: null, identity: key !== null && GUEST_KEY_PATTERN.test(key) ? await guestIdentity(key) : null };
}

const AMBIGUOUS = "two credentials (they may name two players): send one, a room ticket (?ticket=) or a sign-in token (?token= or Authorization: Bearer)";

const JWT_TEXT: Record<JwtRefusal, string> = {
  missing: "a sign-in token is required (?token= or Authorization: Bearer)",
  malformed: "sign-in token is malformed",
  bad_signature: "sign-in token signature is invalid",
  expired: "sign-in token has expired",
  not_yet_valid: "sign-in token is not valid yet",
  wrong_issuer: "sign-in token is from another issuer",
  wrong_audience: "sign-in token is for another audience",
  unknown_key: "sign-in token is signed with a key the provider does not publish",
  bad_algorithm: "sign-in token uses an algorithm this server does not accept",
  jwks_unavailable: "sign-in cannot be checked right now; try again shortly",
  bad_identity: "sign-in token names no usable player id",
};

/** Says what this host would have accepted. */
function missingText(options: IdentifyOptions): string {
  if (options.ticket && options.jwt) return "a room ticket (?ticket=) or a sign-in token (?token= or Authorization: Bearer) is required";
  return options.jwt ? JWT_TEXT.missing : TICKET_REFUSAL_TEXT.missing;
}

function refuse(via: "ticket" | "jwt" | null, reason: IdentityRefusal, message: string, detail?: string): IdentityVerdict {
  const status = reason === "jwks_unavailable" ? 503 : 401;
  return detail === undefined ? { ok: false, via, reason, status, message } : { ok: false, via, reason, status, message, detail };
}

/**
 * The claims a verified caller's seat hands its game (`Player.claims`): a sign-in JWT's, as the
 * configuration names them; none for a room ticket or an anonymous caller.
 */
export function playerClaimsOf(verdict: CallerVerdict): PlayerClaims | undefined {
  return verdict.ok && verdict.via === "jwt" ? verdict.playerClaims : undefined;
}
