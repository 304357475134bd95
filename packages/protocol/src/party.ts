/**
 * The party contract: friends who want the same room make a party (a code one player makes and
 * the others enter) and are matched as one request. What a client asks over HTTP
 * (`POST /match/<kind>/party`, `POST /match/<kind>/party/<code>`, `GET …/party/<code>?member=`,
 * `DELETE …/party/<code>?member=`, `POST` / `DELETE …/party/<code>/start?member=`), what it is
 * answered, and the code's alphabet. One definition for every host and the SDK; the decisions
 * are the core's matchmaker's.
 */
import { isMatchError, matchError, readMatchRequest, type MatchError, type MatchRequest, type SeatReservation } from "./match";

/** Party codes: Crockford's base 32 (no I, L, O, U), so a code read aloud or retyped survives. */
export const PARTY_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Characters in a party code: 10 of 32, 50 bits (see docs/matchmaking.md "Parties" for the odds). */
export const PARTY_CODE_LENGTH = 10;
/** Member ids: the secret a member names itself by (16 random bytes, base64url). */
export const PARTY_MEMBER_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
/** Longest display name a member gives. */
export const MAX_PARTY_NAME = 32;
/**
 * Most characters of JSON the body of a party create or join may hold: a name, a rating and the
 * member's join options (up to `MAX_JOIN_OPTIONS_BYTES`, 512, of their own).
 */
export const MAX_PARTY_BODY_CHARS = 1024;

const CODE = /^[0-9A-HJKMNP-TV-Z]{10}$/;

/**
 * A party code as typed (any case, with spaces or dashes, O for 0, I or L for 1) in its one
 * spelling, or null when it cannot be a code.
 */
export function normalizePartyCode(text: string): string | null {
  const code = text.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  return CODE.test(code) ? code : null;
}

/**
 * Where a party is: `open` (forming: members join and leave, the leader may start it),
 * `matching` (started: a room or the queue is being found; no one joins), `matched` (every member
 * has a seat reserved in one room; the party ends when the seats' lifetime has passed).
 */
export type PartyState = "open" | "matching" | "matched";

/** One member as every member sees it (identities are not shown). */
export interface PartyMember {
  /** The name the member gave (may be empty). */
  name: string;
  /** The member's rating, if it gave one (the queue matches a party by its members' ratings). */
  rating?: number;
  /** The leader starts the party: its maker, then the longest-standing member. */
  leader: boolean;
  /** This is the member asking. */
  you: boolean;
}

/** A party as one member sees it: every party answer. */
export interface PartyView {
  /** Room kind. */
  kind: string;
  /** The code others join with. */
  code: string;
  /** Your member id: name yourself with it (`?member=`) to watch, start or leave. Keep it to yourself. */
  member: string;
  /** Changes with every change of the party; `GET …?after=<version>` waits for the next. */
  version: number;
  /** See {@link PartyState}. */
  state: PartyState;
  /** The members, in the order they joined (the first is the leader). */
  members: PartyMember[];
  /** Most members the party takes: the seat cap of the rooms it is matched into. */
  maxSize: number;
  /** When the code stops working, Unix ms. */
  expiresAt: number;
  /** Your seat, once `matched`: join with it (its `url`, or `reservation` and `roomId`). */
  seat?: SeatReservation;
  /** Why the last start failed (the party is `open` again): `no_room`, `queue_timeout`, `cancelled`, … */
  error?: MatchError;
}

/** The body of `POST /match/<kind>/party` (make) and `POST /match/<kind>/party/<code>` (join). */
export interface PartyJoinRequest {
  /** A display name for the other members (≤ {@link MAX_PARTY_NAME} characters). */
  name: string;
  /** The member's rating, for a party started into the queue. */
  rating?: number;
  /**
   * The member's join options (what its hello will send), checked against the game's
   * declaration as a match request's are (`bad_request` naming the option); unchecked here.
   */
  joinOptions?: unknown;
}

/**
 * The body of `POST /match/<kind>/party/<code>/start`: a match like `POST /match/<kind>`
 * (`mode`, `filters`, `options`, `private`) for every member at once, or `"mode": "queue"`.
 */
export type PartyStartRequest =
  | {
      /** A match for every member at once. */
      queue: false;
      /** The match: as `POST /match/<kind>` reads it. */
      match: MatchRequest;
    }
  | {
      /** The game's queue, the party as one entry of its members' mean rating. */
      queue: true;
    };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads the body of a party make or join (already parsed from JSON; none is `{}`). */
export function readPartyJoinRequest(v: unknown): PartyJoinRequest | MatchError {
  if (v === undefined || v === null) return { name: "" };
  if (!isPlainObject(v)) return matchError("bad_request", "the body must be a JSON object");
  const name = v.name ?? "";
  if (typeof name !== "string" || name.length > MAX_PARTY_NAME) return matchError("bad_request", `name must be a string of at most ${MAX_PARTY_NAME} characters`);
  const req: PartyJoinRequest = { name };
  if (v.joinOptions !== undefined) req.joinOptions = v.joinOptions;
  if (v.rating === undefined) return req;
  if (typeof v.rating !== "number" || !Number.isFinite(v.rating)) return matchError("bad_request", "rating must be a finite number");
  req.rating = v.rating;
  return req;
}

/** Reads the body of a party start (already parsed from JSON; none is a `joinOrCreate`). */
export function readPartyStartRequest(v: unknown): PartyStartRequest | MatchError {
  if (isPlainObject(v) && v.mode === "queue") return { queue: true };
  const match = readMatchRequest(v);
  return isMatchError(match) ? match : { queue: false, match };
}

/** A party answer's member id (`?member=`), or the refusal when it is missing or malformed. */
export function readPartyMember(query: URLSearchParams): string | MatchError {
  const m = query.get("member");
  return m !== null && PARTY_MEMBER_PATTERN.test(m) ? m : matchError("bad_request", "?member= must name your member id");
}

/** A watch's `?after=<version>`: undefined (answer at once) or a version to wait past. */
export function readPartyAfter(query: URLSearchParams): number | undefined | MatchError {
  const a = query.get("after");
  if (a === null) return undefined;
  const n = Number(a);
  return a.trim() !== "" && Number.isSafeInteger(n) && n >= 0 ? n : matchError("bad_request", "after must be a version (a whole number)");
}
