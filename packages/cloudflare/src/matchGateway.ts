import { admissionAddress, type GameDefinition } from "@tikron/core";
import { RateLimitMemory, callerOfVerdict, matchRefusal, resolveMatchmaking, serveMatchRoute, shardOfRoom, webSocketOrigin, type MatchAnswer, type MatchBackend } from "@tikron/core/match";
import { ANY_ROOM } from "@tikron/core/ticket";
import { checkOrigin } from "@tikron/core/join";
import { isMatchError, matchError, routeMatchPath, type RoomListing } from "@tikron/protocol";
import { matchmakerStub, matchmakerUnavailable, type MatchmakerRpc } from "./matchmakerRpc";
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
 * is the kind's matchmaker objects' (`MatchmakerObject`), reached by RPC. A matchmaker that
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

/**
 * A kind's matchmaking over its shards: a room, a queue entry, a party (by its code) and a
 * verified player each belong to one shard (`shardOfRoom`; anonymous callers spread at random),
 * a listing asks them all.
 */
function shardedBackend(kind: string, shards: number, stub: (shard: number) => MatchmakerRpc): MatchBackend {
  const all = <T>(ask: (rpc: MatchmakerRpc, shard: number) => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: shards }, (_, s) => ask(stub(s), s)));
  const on = <T>(key: string, ask: (rpc: MatchmakerRpc, shard: number) => Promise<T>): Promise<T> => {
    const s = shardOfRoom(key, shards);
    return ask(stub(s), s);
  };
  return {
    match: (req, who, creation) => on(who.verified ? who.identity : who.identity.slice(5), (m, s) => m.match(kind, s, req, who, creation)),
    joinById: (roomId, who) => on(roomId, (m, s) => m.joinById(kind, s, roomId, who)),
    queue: (req, who) => on(req.queueId, (m, s) => m.queue(kind, s, req, who)),
    cancel: (queueId, who) => on(queueId, (m, s) => m.cancel(kind, s, queueId, who)),
    rooms: async (filters, overrides) => {
      const parts = await all((m, s) => m.rooms(kind, s, filters, overrides));
      const bad = parts.find(isMatchError);
      return bad ?? (parts as RoomListing[][]).flat();
    },
    stats: () => all((m, s) => m.stats(kind, s)),
    restart: async () => {
      await all((m) => m.restart().catch(() => {}));
      return { restarted: shards };
    },
    // A party lives on the shard its code hashes to; a new one on its maker's shard (like a match).
    partyCreate: (req, who, creation) => on(who.verified ? who.identity : who.identity.slice(5), (m, s) => m.partyCreate(kind, s, req, who, creation)),
    partyJoin: (code, req, who) => on(code, (m, s) => m.partyJoin(kind, s, code, req, who)),
    partyWatch: (code, member, after, who) => on(code, (m, s) => m.partyWatch(kind, s, code, member, after, who)),
    partyLeave: (code, member, who) => on(code, (m, s) => m.partyLeave(kind, s, code, member, who)),
    partyStart: (code, member, req, who) => on(code, (m, s) => m.partyStart(kind, s, code, member, req, who)),
    partyCancel: (code, member, who) => on(code, (m, s) => m.partyCancel(kind, s, code, member, who)),
  };
}
