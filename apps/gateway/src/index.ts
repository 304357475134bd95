/**
 * The Tikron gateway Worker: routes WebSocket joins to one Durable Object per room and serves
 * the demo page. Game kinds come from `@tikron/games`; hosting logic from `@tikron/cloudflare`.
 */
import { MatchmakerObject, RoomObject, routeGatewayRequest, type GatewayEnv } from "@tikron/cloudflare";
import { gameDefinitions } from "@tikron/games";

/** Worker bindings (see wrangler.jsonc / wrangler.staging.jsonc). */
export interface Env extends GatewayEnv {
  DB?: D1Database;
}

/** One instance per room (`idFromName(kind + ':' + roomId)`). */
export class RoomDurableObject extends RoomObject<Env> {
  protected readonly games = gameDefinitions;
}

/** The matchmaker behind `/match/<kind>/…`: one per kind and shard; rooms report to it. */
export class MatchmakerDurableObject extends MatchmakerObject<Env> {
  protected readonly games = gameDefinitions;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return routeGatewayRequest(request, env, gameDefinitions);
  },
} satisfies ExportedHandler<Env>;
