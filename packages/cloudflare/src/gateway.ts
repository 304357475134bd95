import { admissionAddress, type GameDefinition } from "@tikron/core";
import { isRouteRefusal, routeRoomUrl } from "@tikron/protocol";
import { LOBBY_NAME } from "./lobbyName";
import { checkOrigin } from "./originPolicy";
import { writeRoomMeta } from "./roomRequest";
import { verifyRoomTicket, type TicketRefusal } from "./roomTicket";

/** Bindings the gateway needs from the Worker environment. */
export interface GatewayEnv {
  /** The Durable Object namespace of the room class (one object per room). */
  ROOMS: DurableObjectNamespace;
  /** Static assets served for every path that is not a room or `/health`. */
  ASSETS?: Fetcher;
  /** `"true"` skips join tickets and allows overrides and HTTP stats; never in production. */
  DEV_MODE?: string;
  /** HMAC secret for room tickets (`wrangler secret put TICKET_SECRET`); required outside DEV_MODE. */
  TICKET_SECRET?: string;
  /** Comma-separated origins whose pages may open room sockets (see originPolicy.ts). */
  ALLOWED_ORIGINS?: string;
  /** The room registry behind `GET /lobby/rooms` (one object, `idFromName("lobby")`); optional. */
  LOBBY?: DurableObjectNamespace;
}

const TICKET_REFUSALS: Record<TicketRefusal, string> = {
  missing: "a room ticket is required (?ticket=)",
  malformed: "room ticket is malformed",
  bad_signature: "room ticket signature is invalid",
  expired: "room ticket has expired",
  too_long: "room ticket expires further away than a ticket may live (24 h)",
  wrong_room: "room ticket is for another room",
};

/**
 * Callers the room refused with 429 (its per-identity limits), until their `Retry-After` ends:
 * a caller that retries at once is answered here, without another trip into the room's object.
 * Per isolate and best effort (an isolate sees only some requests); the room stays the judge.
 */
const refusedUntil = new Map<string, number>();
/** Entries kept before the cache starts over (it only ever saves trips). */
const REFUSED_CACHE_MAX = 4096;

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

/**
 * Routes one Worker request: `GET /rooms/:kind/:roomId` (WebSocket upgrade) to the room's
 * Durable Object (`idFromName(kind + ':' + roomId)`), `/health`, DEV_MODE stats at
 * `/rooms/:kind/:roomId/stats`, and static assets for everything else.
 *
 * Refusals happen here, before any upgrade and before the Durable Object is touched: the join
 * URL's own (the protocol's `routeRoomUrl`: unknown kind 404, bad room id 400, overrides or
 * stats outside DEV_MODE 403), then foreign Origin 403, missing ticket 401,
 * bad/expired/wrong-room ticket 403, not an upgrade 426.
 */
export async function routeGatewayRequest(
  request: Request,
  env: GatewayEnv,
  games: Readonly<Record<string, GameDefinition>>,
): Promise<Response> {
  const url = new URL(request.url);
  const devMode = env.DEV_MODE === "true";
  if (url.pathname === "/health") {
    return Response.json({ ok: true, devMode, kinds: Object.keys(games) });
  }
  if (url.pathname === "/lobby/rooms") {
    if (request.method !== "GET") return text(405, "GET /lobby/rooms");
    if (!env.LOBBY) return Response.json({ now: Date.now(), rooms: [], unavailable: "no LOBBY binding" });
    return env.LOBBY.get(env.LOBBY.idFromName(LOBBY_NAME)).fetch(new Request("https://lobby/rooms"));
  }
  const route = routeRoomUrl(url, { devMode, hasKind: (kind) => Object.hasOwn(games, kind) });
  if (!route) {
    if (env.ASSETS) return env.ASSETS.fetch(request);
    return text(404, "not found");
  }
  if (isRouteRefusal(route)) return text(route.status, route.reason);
  const { kind, roomId, stats: isStats, bots: isBots, overrides } = route;
  if (isBots) {
    if (request.method !== "POST") return text(405, "POST /rooms/:kind/:roomId/bots?count=N");
    if (!devMode && games[kind]!.bots?.allowInProduction !== true) return text(403, `bots are available in DEV_MODE only for ${kind}`);
  }
  let playerId: string | undefined;
  if (!isStats) {
    const origin = checkOrigin(request, env.ALLOWED_ORIGINS, devMode);
    if (!origin.ok) return text(403, `origin ${origin.origin} may not open room sockets`);
    const ticket = url.searchParams.get("ticket");
    // DEV_MODE needs no ticket, but one that is sent is still checked when a secret is set, so
    // staging can rehearse the production flow.
    if (!devMode || (ticket !== null && env.TICKET_SECRET)) {
      if (!env.TICKET_SECRET) {
        console.error("[gateway] TICKET_SECRET is not set: refusing every join (set it with `wrangler secret put TICKET_SECRET`)");
        return text(503, "joins are not configured on this gateway");
      }
      let verdict;
      try {
        verdict = await verifyRoomTicket(ticket, { secret: env.TICKET_SECRET, kind, roomId });
      } catch (e) {
        console.error("[gateway] TICKET_SECRET is unusable:", e instanceof Error ? e.message : e);
        return text(503, "joins are not configured on this gateway");
      }
      if (!verdict.ok) return text(verdict.reason === "missing" ? 401 : 403, TICKET_REFUSALS[verdict.reason]);
      playerId = verdict.claims.playerId;
    }
    if (!isBots && request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return text(426, "expected a WebSocket upgrade");
    }
  }
  const caller = playerId ?? admissionAddress(request.headers.get("CF-Connecting-IP"));
  const cacheKey = caller !== undefined && !isStats ? `${kind}:${roomId}:${caller}` : undefined;
  if (cacheKey !== undefined) {
    const until = refusedUntil.get(cacheKey);
    if (until !== undefined) {
      const waitMs = until - Date.now();
      if (waitMs > 0) return new Response("refused by the room; retry later", { status: 429, headers: { "retry-after": String(Math.ceil(waitMs / 1000)) } });
      refusedUntil.delete(cacheKey);
    }
  }
  const stub = env.ROOMS.get(env.ROOMS.idFromName(`${kind}:${roomId}`));
  const headers = new Headers(request.headers);
  // The address lets the room limit callers without a ticket (DEV_MODE) per address; with a
  // ticket the player id is the key and the address is not used.
  const address = admissionAddress(request.headers.get("CF-Connecting-IP"));
  writeRoomMeta(headers, {
    kind,
    roomId,
    options: overrides.options,
    params: overrides.params,
    ...(playerId !== undefined ? { playerId } : {}),
    ...(address !== undefined ? { address } : {}),
  });
  const response = await stub.fetch(new Request(request.url, { method: request.method, headers }));
  if (response.status === 429 && cacheKey !== undefined) {
    if (refusedUntil.size >= REFUSED_CACHE_MAX) refusedUntil.clear();
    refusedUntil.set(cacheKey, Date.now() + 1000 * (Number(response.headers.get("retry-after")) || 1));
  }
  return response;
}
