/**
 * The Tikron gateway Worker: routes WebSocket joins to one Durable Object per room and serves
 * the demo page. Game kinds come from `@tikron/games`; hosting logic from `@tikron/cloudflare`.
 */
import { MatchmakerObject, RoomObject, meteredGateway, routeGatewayRequest, type GatewayEnv } from "@tikron/cloudflare";
import { gameDefinitions, recentRounds, type TttEnv } from "@tikron/games";
import { ROOM_ID_PATTERN } from "@tikron/protocol";

/** Worker bindings (see wrangler.jsonc / wrangler.staging.jsonc). */
export interface Env extends GatewayEnv, TttEnv {
  /** Room records (`room_records`, packages/cloudflare/migrations). */
  DB?: D1Database;
  /** Game results: finished ttt-json rounds (`ttt_rounds`, packages/games/migrations). */
  RESULTS?: D1Database;
}

/** One instance per room (`idFromName(kind + ':' + roomId)`). */
export class RoomDurableObject extends RoomObject<Env> {
  protected readonly games = gameDefinitions;
}

/** The matchmaker behind `/match/<kind>/…`: one per kind and shard; rooms report to it. */
export class MatchmakerDurableObject extends MatchmakerObject<Env> {
  protected readonly games = gameDefinitions;
}

const RESULTS_PATH = /^\/results\/ttt-json\/([^/]+)$/;

/**
 * `GET /results/ttt-json/<roomId>?limit=N`: the room's finished rounds from `RESULTS`, newest
 * first (`{ roomId, rounds }`; at most 50, default 10). 404 without the binding (staging).
 */
async function tttResults(request: Request, env: Env, roomId: string): Promise<Response> {
  if (request.method !== "GET") return new Response("GET only", { status: 405 });
  if (!ROOM_ID_PATTERN.test(roomId)) return new Response("bad room id", { status: 400 });
  if (!env.RESULTS) return new Response("no results database here (RESULTS binding)", { status: 404 });
  const limit = Number(new URL(request.url).searchParams.get("limit") ?? 10);
  const rounds = await recentRounds(env.RESULTS, roomId, limit);
  return Response.json({ roomId, rounds });
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const results = RESULTS_PATH.exec(new URL(request.url).pathname);
    if (results) return tttResults(request, env, results[1]!);
    // Metered: DEV_MODE `GET /gateway/stats` says what the gateway's requests cost (gatewayMeter.ts).
    return meteredGateway(request, env, (req, metered) => routeGatewayRequest(req, metered, gameDefinitions));
  },
} satisfies ExportedHandler<Env>;
