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
  checkJoinOptionsValue,
  isMatchError,
  matchError,
  readJoinByIdRequest,
  readMatchRequest,
  readQueueRequest,
  type JoinOptionsDecl,
  type MatchError,
  type MatchFilters,
  type MatchRequest,
  type MatchRoute,
  type QueueRequest,
  type RoomListing,
} from "@tikron/protocol";
import { SIGN_IN_RETRY_MS, type CallerVerdict } from "../auth/identify";
import { anonymousIdentity, listingQuery, matchOverrides, seatReservationOf } from "./matchHttp";
import type { Caller, ReservedSeat } from "./matchmaker";
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
  /** The request body as text. */
  body(): Promise<string>;
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
  if (verdict.status === 401) return matchError("unauthorized", "a match ticket (Authorization: Bearer <ticket>, room id *) or a sign-in token (Authorization: Bearer <JWT>) is required");
  return matchError("forbidden", `match request refused: ${verdict.message}`);
}

/** A match request's body: JSON within {@link MAX_MATCH_BODY_CHARS}, or none. */
export function readMatchBody(text: string): unknown {
  if (text.length > MAX_MATCH_BODY_CHARS) return matchError("bad_request", `the body is over ${MAX_MATCH_BODY_CHARS} characters`);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return matchError("bad_request", "the body is not JSON");
  }
}

/**
 * Serves one match path: the caller is identified before the body is read, the body and the
 * overrides checked before the backend is asked, and every refusal is a {@link matchRefusal}.
 * What the backend throws is the host's to answer (a matchmaker that cannot be reached).
 */
export async function serveMatchRoute(call: MatchCall, backend: MatchBackend): Promise<MatchAnswer> {
  const { route, url, devMode } = call;
  const seat = (out: ReservedSeat | MatchError): MatchAnswer => (isMatchError(out) ? matchRefusal(out) : { status: 200, body: seatReservationOf(route.kind, out, call.wsOrigin) });
  // The player's join options are checked with the body, before the backend reserves anything:
  // a join the room would refuse leaves no reservation behind.
  const body = async <T extends { joinOptions?: unknown }>(read: (v: unknown) => T | MatchError): Promise<T | MatchError> => {
    const parsed = readMatchBody(await call.body());
    const req = isMatchError(parsed) ? parsed : read(parsed);
    if (isMatchError(req)) return req;
    const checked = checkJoinOptionsValue(call.joinOptions, req.joinOptions);
    return checked.ok ? req : matchError("bad_request", checked.reason);
  };
  switch (route.op) {
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
      const who = await call.caller(route.roomId);
      if (isMatchError(who)) return matchRefusal(who);
      const req = await body(readJoinByIdRequest);
      return isMatchError(req) ? matchRefusal(req) : seat(await backend.joinById(route.roomId, who));
    }
    case "queue": {
      const who = await call.caller();
      if (isMatchError(who)) return matchRefusal(who);
      const req = await body(readQueueRequest);
      return isMatchError(req) ? matchRefusal(req) : seat(await backend.queue(req, who));
    }
    case "match": {
      const who = await call.caller();
      if (isMatchError(who)) return matchRefusal(who);
      const req = await body(readMatchRequest);
      if (isMatchError(req)) return matchRefusal(req);
      const creation = matchOverrides(url.searchParams, devMode);
      return isMatchError(creation) ? matchRefusal(creation) : seat(await backend.match(req, who, creation));
    }
  }
}
