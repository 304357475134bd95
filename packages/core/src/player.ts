/**
 * Who is joining, as a game sees it: one {@link Player} record per seat (its id, display name,
 * verified identity, the sign-in claims the deployment hands games, and the join options the
 * player chose), what a seat keeps of it across reconnects, checkpoints and restarts
 * ({@link SeatPlayer}), and the game's answer to a player asking in ({@link refuseJoin}).
 */
import { JOIN_OPTION_NAME_PATTERN, MAX_JOIN_OPTIONS, MAX_JOIN_OPTIONS_BYTES, textEncoder, type JoinOptionValues } from "@tikron/protocol";
import { toBase64Url } from "./base64url";

/** A JSON value a sign-in claim may hold. */
export type ClaimValue = string | number | boolean | null | readonly ClaimValue[] | { readonly [key: string]: ClaimValue };

/** Sign-in claims a deployment hands its games (`AUTH_CLAIMS`: `name`, `roles`, …), by claim name. */
export type PlayerClaims = Readonly<Record<string, ClaimValue>>;

/**
 * The player on a seat, as the game gets it in `join`, `reconnected` and `restore`: the same
 * record for the seat's whole life (reconnects, checkpoints and restarts keep it). Frozen.
 * `O` is the game's join options (`PlayerOptionsOf<typeof game>`), checked with its defaults.
 */
export interface Player<O = JoinOptionValues> {
  /** The seat's player id in the room. */
  readonly playerId: number;
  /** The display name the hello carried (at most 32 characters; may be empty). */
  readonly name: string;
  /**
   * Who the player is: the verified identity (a room ticket's player id, `jwt:<sub>` for a
   * sign-in JWT, the identity a matchmaker's reservation was made for), or an anonymous id
   * (`anon-…`) for a DEV_MODE join without a credential. Stable for the seat's life; a verified
   * one is the same in every room (what a player's own record across rooms is kept by).
   */
  readonly identity: string;
  /**
   * The claims of the player's sign-in JWT the deployment names (`AUTH_CLAIMS`, `serveRooms({
   * auth: { claims } })`), at most {@link MAX_PLAYER_CLAIMS_BYTES} of JSON; `{}` without a JWT.
   * Verified: a game may trust them (a `name` to show, `roles` to check).
   */
  readonly claims: PlayerClaims;
  /** The join options the player chose, checked against the game's declaration, defaults filled in. */
  readonly options: O;
}

/** A player asking for a seat (the game's `admit`): its {@link Player} record but the id its seat would get. */
export type JoiningPlayer<O = JoinOptionValues> = Omit<Player<O>, "playerId">;

/** Most bytes of JSON the claims handed to a game take (a seat carries them across restarts). */
export const MAX_PLAYER_CLAIMS_BYTES = 512;

/** The prefix of an anonymous identity (a DEV_MODE join without a credential). */
export const ANONYMOUS_PREFIX = "anon-";

/**
 * A fresh anonymous identity (`anon-` and 96 random bits as base64url): a DEV_MODE join's without
 * a credential, and a DEV_MODE match request's (the identity its reservation is made for).
 */
export function anonymousIdentity(): string {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return ANONYMOUS_PREFIX + toBase64Url(b);
}

function jsonBytes(v: unknown): number {
  return textEncoder.encode(JSON.stringify(v)).length;
}

/**
 * The claims named `names` out of a verified token's payload, in that order, each kept while the
 * whole stays within {@link MAX_PLAYER_CLAIMS_BYTES} of JSON (a claim that would pass it is left
 * out, and so is one that is absent).
 */
export function pickClaims(payload: Readonly<Record<string, unknown>>, names: readonly string[]): PlayerClaims {
  const out: Record<string, ClaimValue> = {};
  let used = 2;
  for (const name of names) {
    if (!Object.hasOwn(payload, name) || payload[name] === undefined) continue;
    const value = payload[name] as ClaimValue;
    const cost = jsonBytes(name) + 1 + jsonBytes(value) + (used > 2 ? 1 : 0);
    if (used + cost > MAX_PLAYER_CLAIMS_BYTES) continue;
    out[name] = value;
    used += cost;
  }
  return out;
}

function isClaimValue(v: unknown, depth: number): v is ClaimValue {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (depth > 8 || typeof v !== "object") return false;
  if (Array.isArray(v)) return v.every((x) => isClaimValue(x, depth + 1));
  return Object.values(v).every((x) => isClaimValue(x, depth + 1));
}

/**
 * `v` as claims a room may hold (from a host's metadata, a checkpoint, a relay's message): a
 * plain object of JSON values within {@link MAX_PLAYER_CLAIMS_BYTES}; null for anything else.
 */
export function readClaims(v: unknown): PlayerClaims | null {
  if (typeof v !== "object" || v === null || Array.isArray(v) || !isClaimValue(v, 0)) return null;
  return jsonBytes(v) <= MAX_PLAYER_CLAIMS_BYTES ? (v as PlayerClaims) : null;
}

/**
 * What a seat keeps of its player besides its id, name and bound identity (`SeatTicket`,
 * `CheckpointSeat`): what makes the {@link Player} record whole again after a restart. Each part
 * is left out when empty, so a seat without claims or options costs nothing more to keep.
 */
export interface SeatPlayer {
  /** The anonymous identity of a seat no verified identity is bound to. */
  anonymous?: string;
  /** The player's claims. */
  claims?: PlayerClaims;
  /** The player's checked join options. */
  options?: JoinOptionValues;
}

const ANONYMOUS_PATTERN = /^anon-[A-Za-z0-9_-]{16}$/;

/**
 * Checked join options as a seat keeps them: at most {@link MAX_JOIN_OPTIONS} of them, each named
 * as a declaration names one, each a finite number, a flag or a string no longer than a declared
 * text may be. (Their values were checked against the game's declaration when the seat was taken.)
 */
function isOptionValues(v: unknown): v is JoinOptionValues {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return (
    entries.length <= MAX_JOIN_OPTIONS &&
    entries.every(([k, x]) => JOIN_OPTION_NAME_PATTERN.test(k) && (typeof x === "boolean" || (typeof x === "number" && Number.isFinite(x)) || (typeof x === "string" && x.length <= MAX_JOIN_OPTIONS_BYTES)))
  );
}

const SEAT_PLAYER_PARTS = new Set(["anonymous", "claims", "options"]);

/**
 * `v` as a kept seat's {@link SeatPlayer}, whole: undefined when there is none (absent, or no part
 * in it), null when anything in it is not what {@link seatPlayerOf} writes (a part malformed or
 * past its bound, a part it does not name). A seat record that holds such a player does not
 * read: the game would get a record other than the one it was given.
 */
export function readKeptSeatPlayer(v: unknown): SeatPlayer | undefined | null {
  if (v === undefined) return undefined;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const p = v as Record<string, unknown>;
  if (Object.keys(p).some((k) => !SEAT_PLAYER_PARTS.has(k))) return null;
  if (p.anonymous !== undefined && (typeof p.anonymous !== "string" || !ANONYMOUS_PATTERN.test(p.anonymous))) return null;
  if (p.claims !== undefined && readClaims(p.claims) === null) return null;
  if (p.options !== undefined && !isOptionValues(p.options)) return null;
  return readSeatPlayer(p);
}

/** `v` as a {@link SeatPlayer} (from a checkpoint or an attachment); the parts that are not what they should be are dropped. */
export function readSeatPlayer(v: unknown): SeatPlayer | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const p = v as Record<string, unknown>;
  const out: SeatPlayer = {};
  if (typeof p.anonymous === "string" && ANONYMOUS_PATTERN.test(p.anonymous)) out.anonymous = p.anonymous;
  const claims = p.claims === undefined ? null : readClaims(p.claims);
  if (claims && Object.keys(claims).length > 0) out.claims = claims;
  if (isOptionValues(p.options) && Object.keys(p.options).length > 0) out.options = p.options;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The kept part of `player` (see {@link SeatPlayer}); undefined when there is nothing to keep. */
export function seatPlayerOf(player: Player, verified: boolean): SeatPlayer | undefined {
  const out: SeatPlayer = {};
  if (!verified) out.anonymous = player.identity;
  if (Object.keys(player.claims).length > 0) out.claims = player.claims;
  if (Object.keys(player.options).length > 0) out.options = player.options;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A frozen {@link Player} record (its claims and options frozen too: the game cannot change the seat's). */
export function playerRecord(playerId: number, name: string, identity: string, claims: PlayerClaims, options: JoinOptionValues): Player {
  return Object.freeze({ playerId, name, identity, claims: deepFreeze(claims), options: Object.freeze({ ...options }) });
}

function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** The game's refusal of a player asking in ({@link refuseJoin}). */
export interface JoinRefusal {
  /** Marks the refusal (what `admit` returns when it says no). */
  readonly refused: true;
  /** The game's own code (`team_full`, `level_too_low`): 1–32 of `a-z 0-9 _`. */
  readonly code: string;
  /** Why, for the player (clipped to what a close reason carries). */
  readonly reason: string;
  /** When > 0, how long the player should wait before trying again (ms). */
  readonly retryAfterMs: number;
}

/** What the game's `admit` may answer: nothing (or `true`) admits, a {@link JoinRefusal} refuses. */
export type AdmitVerdict = void | undefined | boolean | JoinRefusal;

/** The game's refusal codes: short names a client can switch on. */
export const JOIN_REFUSAL_CODE_PATTERN = /^[a-z0-9_]{1,32}$/;

/**
 * Refuses a player in the game's `admit` (before a seat is taken): the player's join ends with
 * a `JoinError` `join_refused` (close 4024) whose reason is `<code>: <reason>` (the SDK's
 * `gameRefusal(error)` reads both back), counted in `tk:stats` `refused.join_refused`.
 *
 * @throws RangeError for a code that is not 1–32 of `a-z 0-9 _` (the room then answers
 * `admission_failed`, as for any throw).
 */
export function refuseJoin(code: string, reason = "", retryAfterMs = 0): JoinRefusal {
  if (!JOIN_REFUSAL_CODE_PATTERN.test(code)) throw new RangeError(`refusal code ${JSON.stringify(code)} is not 1-32 of a-z 0-9 _`);
  return { refused: true, code, reason: String(reason), retryAfterMs: Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? Math.ceil(retryAfterMs) : 0 };
}

/** True for what {@link refuseJoin} made. */
export function isJoinRefusal(v: unknown): v is JoinRefusal {
  return typeof v === "object" && v !== null && (v as JoinRefusal).refused === true && typeof (v as JoinRefusal).code === "string";
}
