/**
 * The game's Worker: routes `/rooms/tag/<roomId>` joins to one Durable Object per room, the
 * matchmaker's paths (`/match/tag`: find a seat, list rooms) to one matchmaker object and the
 * admin API (`/admin/api/…`) to them both, serves the operator console at `/admin` from
 * `@tikron/admin`, and the page in `public/`. Everything Cloudflare-specific comes from
 * `@tikron/cloudflare`.
 */
import { adminConsole } from "@tikron/admin";
import { MatchmakerObject, RoomObject, routeGatewayRequest, type GatewayEnv } from "@tikron/cloudflare";
import { games } from "./tagGame";

/** Worker bindings (see wrangler.jsonc). Add `DB?: D1Database` to keep room records in D1. */
export interface Env extends GatewayEnv {}

/** One instance per room; the class name matches `durable_objects` in wrangler.jsonc. */
export class TagRoom extends RoomObject<Env> {
  protected readonly games = games;
}

/** The matchmaker of the game's rooms (binding `MATCHMAKER` in wrangler.jsonc): same games. */
export class TagMatchmaker extends MatchmakerObject<Env> {
  protected readonly games = games;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    // The console's page, script and stylesheet; everything else (its API included) is routed.
    return adminConsole(request) ?? routeGatewayRequest(request, env, games);
  },
} satisfies ExportedHandler<Env>;
