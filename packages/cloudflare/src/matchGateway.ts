import { admissionAddress, type GameDefinition } from "@tikron/core";
import { RateLimitMemory, callerOfVerdict, matchmakerName, matchmakerUnavailable, matchRefusal, resolveMatchmaking, serveMatchRoute, shardedBackend, webSocketOrigin, type MatchAnswer, type MatchmakerRpc } from "@tikron/core/match";
import { ANY_ROOM } from "@tikron/core/ticket";
import { checkOrigin } from "@tikron/core/join";
import { matchError, routeMatchPath } from "@tikron/protocol";
import { identifyRequest, type IdentityEnv } from "./callerIdentity";
import { gatewayBody } from "./gatewayMeter";

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

/** The matchmaker object of a kind's shard, as its RPC surface (core `MatchmakerRpc`). */
export function matchmakerStub(ns: DurableObjectNamespace, kind: string, shard: number): MatchmakerRpc {
  return ns.get(ns.idFromName(matchmakerName(kind, shard))) as unknown as MatchmakerRpc;
}

/** Callers a matchmaker told to wait, answered by this isolate until then (before their body is read). */
const limits = new RateLimitMemory();

function respond(answer: MatchAnswer, cors: Record<string, string>): Response {
  const headers = { ...cors, ...answer.headers };
  if (answer.body === undefined) return new Response(null, { status: answer.status, headers });
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });
}

/** CORS headers for a browser caller whose origin may use the API (none for other callers). */
function corsFor(request: Request): Record<string, string> {
  const origin = request.headers.get("Origin");
  if (origin === null) return {};
  return { "access-control-allow-origin": origin, vary: "Origin" };
}

/**
 * Serves the matchmaking paths (`/match/…`, see the protocol's `routeMatchPath`); null for any
 * other path. Origin and kind are checked here, the rest by the core's `serveMatchRoute` (a body
 * declared over the limit, who is asking, by the joins' rule: a match ticket for room `*` or the
 * room asked for, or a sign-in JWT, which is good for any room; a caller told to wait moments
 * ago; the body, read bounded; overrides), before any object is touched; the decision
 * is the kind's matchmaker objects' (`MatchmakerObject`), reached by RPC, the shard by the core's
 * rule (`shardedBackend`). A matchmaker that
 * cannot be reached (restarting, deploying) is answered `503 unavailable` with a short
 * `retryAfterMs`: the request is safe to repeat.
 */
export async function routeMatchRequest(request: Request, url: URL, env: MatchEnv, games: Readonly<Record<string, GameDefinition>>): Promise<Response | null> {
  const cors = corsFor(request);
  const devMode = env.DEV_MODE === "true";
  if (request.method === "OPTIONS" && url.pathname.startsWith("/match/")) {
    if (!checkOrigin(request, env.ALLOWED_ORIGINS, devMode).ok) return new Response(null, { status: 403 });
    return new Response(null, {
      status: 204,
      headers: { ...cors, "access-control-allow-methods": "GET, POST, DELETE", "access-control-allow-headers": "content-type, authorization", "access-control-max-age": "600" },
    });
  }
  const route = routeMatchPath(url.pathname, request.method);
  if (route === null) return null;
  if ("method" in route) return respond({ status: 405, body: matchError("bad_request", `use ${route.method}`), headers: { allow: route.method } }, cors);
  const def = games[route.kind];
  if (!Object.hasOwn(games, route.kind) || !def) return respond(matchRefusal(matchError("unknown_kind", `unknown room kind "${route.kind.slice(0, 32)}"`)), cors);
  const origin = checkOrigin(request, env.ALLOWED_ORIGINS, devMode);
  if (!origin.ok) return respond(matchRefusal(matchError("forbidden", `origin ${origin.origin} may not use this matchmaker`)), {});
  if (!env.MATCHMAKER) return respond(matchRefusal(matchError("unavailable", "this gateway has no MATCHMAKER binding", 60_000)), cors);
  const ns = env.MATCHMAKER;
  const kind = route.kind;
  const backend = shardedBackend(kind, resolveMatchmaking(def.matchmaking).shards, (shard) => matchmakerStub(ns, kind, shard));
  try {
    const answer = await serveMatchRoute(
      {
        route,
        url,
        devMode,
        wsOrigin: webSocketOrigin(url),
        caller: async (roomId) =>
          callerOfVerdict(await identifyRequest(request, env, kind, roomId === undefined ? ANY_ROOM : [ANY_ROOM, roomId]), admissionAddress(request.headers.get("CF-Connecting-IP")), "gateway"),
        // Read bounded by the core; its arrival is I/O, not the gateway's time (gatewayMeter.ts).
        body: { contentLength: request.headers.get("content-length"), body: gatewayBody(request.body) },
        limits,
        joinOptions: def.joinOptions,
      },
      backend,
    );
    return respond(answer, cors);
  } catch (e) {
    return respond(matchRefusal(matchmakerUnavailable(e)), cors);
  }
}
