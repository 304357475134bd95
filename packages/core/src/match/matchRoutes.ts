/**
 * The matchmaking paths (`/match/…`) served once for every host: which checks run in which order
 * (who is asking, the body, DEV_MODE overrides), what each path asks of the kind's matchmaker,
 * and the answer's status and headers. A host gives the parsed route, a way to read the caller
 * and the body, and a {@link MatchBackend} (the Node host: a `Matchmaker` in process; Cloudflare:
 * the kind's matchmaker objects by RPC, shard by shard), then writes the {@link MatchAnswer} out.
 */
import {
  MATCH_ERROR_STATUS,
  MAX_MATCH_BODY_CHARS,
  MAX_PARTY_BODY_CHARS,
  checkJoinOptionsValue,
  isMatchError,
  matchError,
  normalizePartyCode,
  readJoinByIdRequest,
  readMatchRequest,
  readPartyAfter,
  readPartyJoinRequest,
  readPartyMember,
  readPartyStartRequest,
  readQueueRequest,
  type JoinOptionsDecl,
  type MatchError,
  type MatchFilters,
  type MatchRequest,
  type MatchRoute,
  type PartyJoinRequest,
  type PartyRoute,
  type PartyStartRequest,
  type QueueRequest,
  type RoomListing,
} from "@tikron/protocol";
import { SIGN_IN_RETRY_MS, type CallerVerdict } from "../auth/identify";
import { declaredTooLarge, readBoundedBody, type BodySource, type BoundedBody } from "./boundedBody";
import { anonymousIdentity, listingQuery, matchOverrides, partyViewOf, seatReservationOf } from "./matchHttp";
import type { PartyAnswer } from "./parties";
import type { RateLimitMemory } from "./rateMemory";
import type { Caller, ReservedSeat } from "./seats";
import type { RoomCreation } from "./roomPort";

/** An HTTP answer for the host to write: status, JSON body (none for 204), extra headers. */
export interface MatchAnswer {
  /** HTTP status. */
  status: number;
  /** JSON body; absent for 204. */
  body?: unknown;
  /** Headers beside `content-type` (e.g. `retry-after`). */
  headers?: Record<string, string>;
}

/** What the paths ask of one kind's matchmaking; each answers what the core `Matchmaker` would. */
export interface MatchBackend {
  /** `POST /match/<kind>`: a seat by the request's mode. */
  match(req: MatchRequest, who: Caller, creation: RoomCreation): Promise<ReservedSeat | MatchError>;
  /** `POST /match/<kind>/<roomId>`: a seat in that room. */
  joinById(roomId: string, who: Caller): Promise<ReservedSeat | MatchError>;
  /** `POST /match/<kind>/queue`: a seat once the queue has made a group. */
  queue(req: QueueRequest, who: Caller): Promise<ReservedSeat | MatchError>;
  /** `DELETE /match/<kind>/queue/<id>`: whether the caller's entry was there. */
  cancel(queueId: string, who: Caller): Promise<boolean>;
  /** `GET /match/<kind>/rooms`: the listed rooms. */
  rooms(filters: MatchFilters, overrides: string | undefined): Promise<RoomListing[] | MatchError>;
  /** `GET /match/<kind>/stats` (DEV_MODE): the matchmakers' counters and directories. */
  stats(): Promise<unknown>;
  /** `POST /match/<kind>/restart` (DEV_MODE): restart the matchmakers; absent where it means nothing. */
  restart?(): Promise<unknown>;
  /** `POST /match/<kind>/party`: a new party, the caller its leader (its rooms made with `creation`). */
  partyCreate(req: PartyJoinRequest, who: Caller, creation: RoomCreation): Promise<PartyAnswer | MatchError>;
  /** `POST /match/<kind>/party/<code>`: the caller joins the party. */
  partyJoin(code: string, req: PartyJoinRequest, who: Caller): Promise<PartyAnswer | MatchError>;
  /** `GET /match/<kind>/party/<code>`: the party as `member` sees it, held until it changes past `after`. */
  partyWatch(code: string, member: string, after: number | undefined, who: Caller): Promise<PartyAnswer | MatchError>;
  /** `DELETE /match/<kind>/party/<code>`: `member` leaves. */
  partyLeave(code: string, member: string, who: Caller): Promise<true | MatchError>;
  /** `POST /match/<kind>/party/<code>/start`: the leader starts the party; answers once it is matched or not. */
  partyStart(code: string, member: string, req: PartyStartRequest, who: Caller): Promise<PartyAnswer | MatchError>;
  /** `DELETE /match/<kind>/party/<code>/start`: the leader stops a queued start. */
  partyCancel(code: string, member: string, who: Caller): Promise<true | MatchError>;
}

/** One request to a match path, as the host read it. */
export interface MatchCall {
  /** The route (`routeMatchPath`; a wrong method is the host's 405). */
  route: MatchRoute;
  /** The request URL (its query: filters and DEV_MODE overrides). */
  url: URL;
  /** DEV_MODE: overrides, stats and restart allowed, credentials optional. */
  devMode: boolean;
  /** `ws://host` or `wss://host`: the origin of the join URLs handed out. */
  wsOrigin: string;
  /** Who is asking, for a request that names `roomId` (a join by id) or none. */
  caller(roomId?: string): Promise<Caller | MatchError>;
  /** The request's body, unread: the route reads it, bounded (`readBoundedBody`), once the caller is known. */
  body: BodySource;
  /**
   * The host's memory of callers told `rate_limited` (one per process or isolate): their
   * requests within the wait are answered before their body is read. Absent: none kept.
   */
  limits?: RateLimitMemory;
  /** The host's clock for {@link limits} (default `Date.now`). */
  now?(): number;
  /**
   * The kind's join options (its `GameDefinition.joinOptions`): a request's `joinOptions` are
   * checked against them before any seat is reserved. Absent: the kind takes none.
   */
  joinOptions?: JoinOptionsDecl | undefined;
}

/** The answer to a refused match request: its status, the error as JSON, a `retry-after` when it says to wait. */
export function matchRefusal(err: MatchError): MatchAnswer {
  const answer: MatchAnswer = { status: MATCH_ERROR_STATUS[err.code], body: err };
  if (err.retryAfterMs !== undefined) answer.headers = { "retry-after": String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))) };
  return answer;
}

/**
 * A match caller from the hosts' one credential rule (`identifyCaller`): a verified identity, an
 * anonymous caller rate-limited by its address (DEV_MODE, none sent), or the refusal a client can
 * act on. `host` names the server in the "not configured" text.
 */
export function callerOfVerdict(verdict: CallerVerdict, address: string | undefined, host: string): Caller | MatchError {
  if (verdict.ok) {
    if (verdict.via === "jwt") return { identity: verdict.identity, verified: true, rateKey: verdict.identity, claims: verdict.playerClaims };
    // A guest (a DEV_MODE caller's own key) is limited by its address: keys cost nothing to make.
    if (verdict.via === null && verdict.identity !== null) return { identity: verdict.identity, verified: true, rateKey: address };
    if (verdict.identity !== null) return { identity: verdict.identity, verified: true, rateKey: verdict.identity };
    return { identity: anonymousIdentity(), verified: false, rateKey: address };
  }
  if (verdict.reason === "unconfigured") return matchError("unavailable", `matchmaking is not configured on this ${host}`, 60_000);
  if (verdict.reason === "jwks_unavailable") return matchError("unavailable", verdict.message, SIGN_IN_RETRY_MS);
  // A missing, malformed, forged or expired credential is one refusal everywhere: unauthorized.
  if (verdict.reason === "missing") return matchError("unauthorized", "a match ticket (Authorization: Bearer <ticket>, room id *) or a sign-in token (Authorization: Bearer <JWT>) is required");
  return matchError("unauthorized", `match request refused: ${verdict.message}`);
}

/** A match request's body: JSON within `limit` characters ({@link MAX_MATCH_BODY_CHARS} unless a route says less), or none. */
export function readMatchBody(text: string, limit = MAX_MATCH_BODY_CHARS): unknown {
  if (text.length > limit) return matchError("too_large", `the body is over ${limit} characters`);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return matchError("bad_request", "the body is not JSON");
  }
}

function bodyRefusal(r: Exclude<BoundedBody, { ok: true }>): MatchError {
  return matchError(r.status === 413 ? "too_large" : "bad_request", r.reason);
}

/**
 * The most characters a route's body may hold: a party's create and join carry a name and a
 * rating ({@link MAX_PARTY_BODY_CHARS}); every other route that takes a body (a match, the queue,
 * a party's start) {@link MAX_MATCH_BODY_CHARS}. Routes without a body are held to the larger.
 */
export function bodyLimitOf(op: MatchRoute["op"]): number {
  return op === "partyCreate" || op === "partyJoin" ? MAX_PARTY_BODY_CHARS : MAX_MATCH_BODY_CHARS;
}

/** What one request's routes share: its caller (with the remembered wait), its body, and its refusals. */
interface RouteKit {
  /** The caller, unless refused or still told to wait. */
  caller(roomId?: string): Promise<Caller | MatchError>;
  /** The body read (bounded by the route's limit) and parsed by `read`. */
  body<T>(read: (v: unknown) => T | MatchError): Promise<T | MatchError>;
  /** The refusal's answer; a `rate_limited` one is remembered for `who`. */
  refuse(who: Caller, err: MatchError): MatchAnswer;
}

/** A party's answer: 200 with the view (its seat as a join URL), or the refusal. */
function partyAnswer(kit: RouteKit, who: Caller, kind: string, out: PartyAnswer | MatchError, wsOrigin: string): MatchAnswer {
  return isMatchError(out) ? kit.refuse(who, out) : { status: 200, body: partyViewOf(kind, out, wsOrigin) };
}

/**
 * The paths of one party: its code read (any spelling, {@link normalizePartyCode}), the caller
 * and, but for a join, the member it names itself by (`?member=`), then the body where there is one.
 */
async function serveParty(call: MatchCall, route: PartyRoute, backend: MatchBackend, kit: RouteKit): Promise<MatchAnswer> {
  const code = normalizePartyCode(route.code);
  if (code === null) return matchRefusal(matchError("not_found", "no such party: a code is 10 letters and digits"));
  const who = await kit.caller();
  if (isMatchError(who)) return matchRefusal(who);
  const answer = (out: PartyAnswer | MatchError): MatchAnswer => partyAnswer(kit, who, route.kind, out, call.wsOrigin);
  const gone = (out: true | MatchError): MatchAnswer => (out === true ? { status: 204 } : kit.refuse(who, out));
  if (route.op === "partyJoin") {
    const req = await kit.body(readPartyJoinRequest);
    return isMatchError(req) ? matchRefusal(req) : answer(await backend.partyJoin(code, req, who));
  }
  const member = readPartyMember(call.url.searchParams);
  if (isMatchError(member)) return matchRefusal(member);
  switch (route.op) {
    case "partyWatch": {
      const after = readPartyAfter(call.url.searchParams);
      return isMatchError(after) ? matchRefusal(after) : answer(await backend.partyWatch(code, member, after, who));
    }
    case "partyLeave":
      return gone(await backend.partyLeave(code, member, who));
    case "partyCancel":
      return gone(await backend.partyCancel(code, member, who));
    case "partyStart": {
      const req = await kit.body(readPartyStartRequest);
      return isMatchError(req) ? matchRefusal(req) : answer(await backend.partyStart(code, member, req, who));
    }
  }
}

/**
 * Serves one match path. The order is the cheapest refusal first, and nothing is read before it
 * must be: a declared body over the limit (any path: 413 without reading), the caller (its
 * credential), a caller the host remembers told to wait (`rate_limited`, before its body is
 * read), then the body through the bounded reader, the overrides, and the backend. Every refusal
 * is a {@link matchRefusal}; what the backend throws is the host's to answer (a matchmaker that
 * cannot be reached).
 */
export async function serveMatchRoute(call: MatchCall, backend: MatchBackend): Promise<MatchAnswer> {
  const { route, url, devMode } = call;
  const now = call.now ?? Date.now;
  const limit = bodyLimitOf(route.op);
  const declared = declaredTooLarge(call.body.contentLength, limit);
  if (declared && !declared.ok) return matchRefusal(bodyRefusal(declared));
  const kit: RouteKit = {
    async caller(roomId) {
      const who = await call.caller(roomId);
      if (isMatchError(who)) return who;
      const wait = call.limits?.waitMs(who.rateKey, now()) ?? 0;
      return wait > 0 ? matchError("rate_limited", "too many match requests; retry later", Math.max(100, wait)) : who;
    },
    async body(read) {
      const text = await readBoundedBody(call.body, limit);
      if (!text.ok) return bodyRefusal(text);
      const parsed = readMatchBody(text.text, limit);
      const req = isMatchError(parsed) ? parsed : read(parsed);
      // The player's join options (a match, the queue, a join by id, a party made or joined) are
      // checked with the body, before the backend reserves anything: a join the room would
      // refuse leaves no reservation behind.
      if (isMatchError(req) || typeof req !== "object" || req === null || !("joinOptions" in req)) return req;
      const checked = checkJoinOptionsValue(call.joinOptions, req.joinOptions);
      return checked.ok ? req : matchError("bad_request", checked.reason);
    },
    refuse(who, err) {
      if (err.code === "rate_limited") call.limits?.remember(who.rateKey, err.retryAfterMs ?? 0, now());
      return matchRefusal(err);
    },
  };
  const seat = (who: Caller, out: ReservedSeat | MatchError): MatchAnswer => (isMatchError(out) ? kit.refuse(who, out) : { status: 200, body: seatReservationOf(route.kind, out, call.wsOrigin) });
  switch (route.op) {
    case "partyCreate": {
      const who = await kit.caller();
      if (isMatchError(who)) return matchRefusal(who);
      const req = await kit.body(readPartyJoinRequest);
      if (isMatchError(req)) return matchRefusal(req);
      const creation = matchOverrides(url.searchParams, devMode);
      return isMatchError(creation) ? matchRefusal(creation) : partyAnswer(kit, who, route.kind, await backend.partyCreate(req, who, creation), call.wsOrigin);
    }
    case "partyJoin":
    case "partyWatch":
    case "partyLeave":
    case "partyStart":
    case "partyCancel":
      return serveParty(call, route, backend, kit);
    case "rooms": {
      const q = listingQuery(url.searchParams, devMode);
      if (isMatchError(q)) return matchRefusal(q);
      const listed = await backend.rooms(q.filters, q.overrides);
      return isMatchError(listed) ? matchRefusal(listed) : { status: 200, body: listed };
    }
    case "stats":
    case "restart": {
      if (!devMode) return matchRefusal(matchError("forbidden", `${route.op} is available in DEV_MODE only`));
      if (route.op === "stats") return { status: 200, body: await backend.stats() };
      if (!backend.restart) return matchRefusal(matchError("forbidden", "this host's matchmakers live with its process: restart the process"));
      return { status: 200, body: await backend.restart() };
    }
    case "cancel": {
      const who = await call.caller();
      if (isMatchError(who)) return matchRefusal(who);
      return (await backend.cancel(route.queueId, who)) ? { status: 204 } : matchRefusal(matchError("not_found", "nothing of yours waits under that queue id"));
    }
    case "joinById": {
      const who = await kit.caller(route.roomId);
      if (isMatchError(who)) return matchRefusal(who);
      const req = await kit.body(readJoinByIdRequest);
      return isMatchError(req) ? matchRefusal(req) : seat(who, await backend.joinById(route.roomId, who));
    }
    case "queue": {
      const who = await kit.caller();
      if (isMatchError(who)) return matchRefusal(who);
      const req = await kit.body(readQueueRequest);
      return isMatchError(req) ? matchRefusal(req) : seat(who, await backend.queue(req, who));
    }
    case "match": {
      const who = await kit.caller();
      if (isMatchError(who)) return matchRefusal(who);
      const req = await kit.body(readMatchRequest);
      if (isMatchError(req)) return matchRefusal(req);
      const creation = matchOverrides(url.searchParams, devMode);
      return isMatchError(creation) ? matchRefusal(creation) : seat(who, await backend.match(req, who, creation));
    }
  }
}
