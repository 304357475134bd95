import type { GameDefinition } from "@tikron/core";
import { hasOverrides, parseOverrides, writeRoomMeta } from "./roomRequest";

/** Bindings the gateway needs from the Worker environment. */
export interface GatewayEnv {
  ROOMS: DurableObjectNamespace;
  ASSETS?: Fetcher;
  DEV_MODE?: string;
}

/** Room ids: URL-safe, short. */
export const ROOM_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const ROOM_PATH = /^\/rooms\/([^/]+)\/([^/]+)(\/stats)?\/?$/;

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

/**
 * Routes one Worker request: `GET /rooms/:kind/:roomId` (WebSocket upgrade) to the room's
 * Durable Object (`idFromName(kind + ':' + roomId)`), `/health`, DEV_MODE stats at
 * `/rooms/:kind/:roomId/stats`, and static assets for everything else.
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
  const m = ROOM_PATH.exec(url.pathname);
  if (!m) {
    if (env.ASSETS) return env.ASSETS.fetch(request);
    return text(404, "not found");
  }
  const kind = decodeURIComponent(m[1]!);
  const roomId = decodeURIComponent(m[2]!);
  const isStats = m[3] !== undefined;
  if (!Object.hasOwn(games, kind)) return text(404, `unknown room kind "${kind.slice(0, 32)}"`);
  if (!ROOM_ID_PATTERN.test(roomId)) return text(400, "room id must be 1-64 characters of A-Z a-z 0-9 _ -");
  if (isStats && !devMode) return text(403, "room stats over HTTP are available in DEV_MODE only");

  let overrides: ReturnType<typeof parseOverrides> = { options: {}, params: {} };
  if (hasOverrides(url.searchParams)) {
    if (!devMode) return text(403, "room option overrides are refused outside DEV_MODE");
    overrides = parseOverrides(url.searchParams);
    if (typeof overrides === "string") return text(400, overrides);
  }
  if (!isStats && request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
    return text(426, "expected a WebSocket upgrade");
  }
  const stub = env.ROOMS.get(env.ROOMS.idFromName(`${kind}:${roomId}`));
  const headers = new Headers(request.headers);
  writeRoomMeta(headers, { kind, roomId, options: overrides.options, params: overrides.params });
  return stub.fetch(new Request(request.url, { method: request.method, headers }));
}
