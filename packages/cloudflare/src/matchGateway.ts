import { admissionAddress, type GameDefinition } from "@tikron/core";
import {
  anonymousIdentity,
  listingQuery,
  matchOverrides,
  resolveMatchmaking,
  seatReservationOf,
  shardOfRoom,
  webSocketOrigin,
  type Caller,
  type ReservedSeat,
} from "@tikron/core/match";
import { ANY_ROOM } from "@tikron/core/ticket";
import {
  MATCH_ERROR_STATUS,
  MAX_MATCH_BODY_CHARS,
  isMatchError,
  matchError,
  readMatchRequest,
  readQueueRequest,
  routeMatchPath,
  type MatchError,
  type MatchRoute,
} from "@tikron/protocol";
import { matchmakerStub, matchmakerUnavailable, type MatchmakerRpc } from "./matchmakerRpc";
import { checkOrigin } from "./originPolicy";
import { identifyRequest, SIGN_IN_RETRY_MS, type IdentityEnv } from "./callerIdentity";

/** Bindings the match routes read (a subset of the gateway's; `AUTH_*`: see `IdentityEnv`). */
export interface MatchEnv extends IdentityEnv {
  /** The matchmaker objects: one per kind and shard (`idFromName(matchmakerName(kind, shard))`). */
  MATCHMAKER?: DurableObjectNamespace;
  /** `"true"` on staging and local dev: no ticket needed, DEV_MODE overrides, stats, restart. */
  DEV_MODE?: string;
  /** HMAC secret of tickets (match tickets included). */
  TICKET_SECRET?: string;
  /** Origins whose pages may call the API (the same list as for room sockets). */
  ALLOWED_ORIGINS?: string;
}

function json(status: number, body: unknown, cors: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...cors } });
}

function refusal(err: MatchError, cors: Record<string, string>): Response {
  const headers: Record<string, string> = { ...cors };
  if (err.retryAfterMs !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(err.retryAfterMs / 1000)));
  return new Response(JSON.stringify(err), { status: MATCH_ERROR_STATUS[err.code], headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });
}

/** CORS headers for a browser caller whose origin may use the API (none for other callers). */
function corsFor(request: Request): Record<string, string> {
  const origin = request.headers.get("Origin");
  if (origin === null) return {};
  return { "access-control-allow-origin": origin, vary: "Origin" };
}

/**
 * Who is asking: the player of a match ticket (a room ticket for room `*`, or for the room asked
 * for) or of a sign-in JWT, by the joins' rule (`identifyRequest`); an anonymous caller in
 * DEV_MODE when none is sent. A JWT is not room-scoped: it is good for any room of the gateway.
 */
async function callerOf(request: Request, env: MatchEnv, kind: string, roomId?: string): Promise<Caller | MatchError> {
  const verdict = await identifyRequest(request, env, kind, roomId === undefined ? ANY_ROOM : [ANY_ROOM, roomId]);
  if (verdict.ok) {
    if (verdict.identity !== null) return { identity: verdict.identity, verified: true, rateKey: verdict.identity };
    return { identity: anonymousIdentity(), verified: false, rateKey: admissionAddress(request.headers.get("CF-Connecting-IP")) };
  }
  if (verdict.reason === "unconfigured") return matchError("unavailable", "matchmaking is not configured on this gateway", 60_000);
  if (verdict.reason === "jwks_unavailable") return matchError("unavailable", verdict.message, SIGN_IN_RETRY_MS);
  if (verdict.status === 401) return matchError("unauthorized", "a match ticket (Authorization: Bearer <ticket>, room id *) or a sign-in token (Authorization: Bearer <JWT>) is required");
  return matchError("forbidden", `match request refused: ${verdict.message}`);
}

async function readBody(request: Request): Promise<unknown | MatchError> {
  const text = await request.text();
  if (text.length > MAX_MATCH_BODY_CHARS) return matchError("bad_request", `the body is over ${MAX_MATCH_BODY_CHARS} characters`);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return matchError("bad_request", "the body is not JSON");
  }
}

/**
 * Serves the matchmaking paths (`/match/…`, see the protocol's `routeMatchPath`); null for any
 * other path. Identity, origin, body and overrides are checked here, before any object is
 * touched; the decision is the kind's matchmaker object's (`MatchmakerObject`), reached by RPC.
 * A matchmaker that cannot be reached (restarting, deploying) is answered `503 unavailable`
 * with a short `retryAfterMs`: the request is safe to repeat.
 */
export async function routeMatchRequest(request: Request, url: URL, env: MatchEnv, games: Readonly<Record<string, GameDefinition>>): Promise<Response | null> {
  const cors = corsFor(request);
  if (request.method === "OPTIONS" && url.pathname.startsWith("/match/")) {
    if (!checkOrigin(request, env.ALLOWED_ORIGINS, env.DEV_MODE === "true").ok) return new Response(null, { status: 403 });
    return new Response(null, {
      status: 204,
      headers: { ...cors, "access-control-allow-methods": "GET, POST, DELETE", "access-control-allow-headers": "content-type, authorization", "access-control-max-age": "600" },
    });
  }
  const route = routeMatchPath(url.pathname, request.method);
  if (route === null) return null;
  if ("method" in route) return json(405, matchError("bad_request", `use ${route.method}`), { allow: route.method, ...cors });
  const def = games[route.kind];
  if (!Object.hasOwn(games, route.kind) || !def) return refusal(matchError("unknown_kind", `unknown room kind "${route.kind.slice(0, 32)}"`), cors);
  const origin = checkOrigin(request, env.ALLOWED_ORIGINS, env.DEV_MODE === "true");
  if (!origin.ok) return refusal(matchError("forbidden", `origin ${origin.origin} may not use this matchmaker`), {});
  if (!env.MATCHMAKER) return refusal(matchError("unavailable", "this gateway has no MATCHMAKER binding", 60_000), cors);
  const ns = env.MATCHMAKER;
  const shards = resolveMatchmaking(def.matchmaking).shards;
  const stub = (shard: number): MatchmakerRpc => matchmakerStub(ns, route.kind, shard);
  try {
    return await serve(route, request, url, env, shards, stub, cors);
  } catch (e) {
    return refusal(matchmakerUnavailable(e), cors);
  }
}

type Stub = (shard: number) => MatchmakerRpc;

async function serve(route: MatchRoute, request: Request, url: URL, env: MatchEnv, shards: number, stub: Stub, cors: Record<string, string>): Promise<Response> {
  const kind = route.kind;
  const devMode = env.DEV_MODE === "true";
  const seat = (out: ReservedSeat | MatchError): Response => (isMatchError(out) ? refusal(out, cors) : json(200, seatReservationOf(kind, out, webSocketOrigin(url)), cors));
  switch (route.op) {
    case "rooms": {
      const q = listingQuery(url.searchParams, devMode);
      if (isMatchError(q)) return refusal(q, cors);
      const parts = await Promise.all(Array.from({ length: shards }, (_, s) => stub(s).rooms(kind, s, q.filters, q.overrides)));
      const bad = parts.find(isMatchError);
      if (bad) return refusal(bad, cors);
      return json(200, parts.flat(), cors);
    }
    case "stats":
    case "restart": {
      if (!devMode) return refusal(matchError("forbidden", `${route.op} is available in DEV_MODE only`), cors);
      if (route.op === "restart") {
        await Promise.all(Array.from({ length: shards }, (_, s) => stub(s).restart().catch(() => {})));
        return json(200, { restarted: shards }, cors);
      }
      return json(200, await Promise.all(Array.from({ length: shards }, (_, s) => stub(s).stats(kind, s))), cors);
    }
    case "cancel": {
      const who = await callerOf(request, env, kind);
      if (isMatchError(who)) return refusal(who, cors);
      const s = shardOfRoom(route.queueId, shards);
      const done = await stub(s).cancel(kind, s, route.queueId, who);
      return done ? new Response(null, { status: 204, headers: cors }) : refusal(matchError("not_found", "nothing of yours waits under that queue id"), cors);
    }
    case "joinById": {
      const who = await callerOf(request, env, kind, route.roomId);
      if (isMatchError(who)) return refusal(who, cors);
      const s = shardOfRoom(route.roomId, shards);
      return seat(await stub(s).joinById(kind, s, route.roomId, who));
    }
    case "queue": {
      const who = await callerOf(request, env, kind);
      if (isMatchError(who)) return refusal(who, cors);
      const body = await readBody(request);
      if (isMatchError(body)) return refusal(body, cors);
      const req = readQueueRequest(body);
      if (isMatchError(req)) return refusal(req, cors);
      const s = shardOfRoom(req.queueId, shards);
      return seat(await stub(s).queue(kind, s, req, who));
    }
    case "match": {
      const who = await callerOf(request, env, kind);
      if (isMatchError(who)) return refusal(who, cors);
      const body = await readBody(request);
      if (isMatchError(body)) return refusal(body, cors);
      const req = readMatchRequest(body);
      if (isMatchError(req)) return refusal(req, cors);
      const creation = matchOverrides(url.searchParams, devMode);
      if (isMatchError(creation)) return refusal(creation, cors);
      // One player's requests go to one shard; anonymous callers spread at random.
      const s = shardOfRoom(who.verified ? who.identity : who.identity.slice(5), shards);
      return seat(await stub(s).match(kind, s, req, who, creation));
    }
  }
}
