/**
 * The Tikron gateway Worker: routes WebSocket joins to one Durable Object per room and serves
 * the demo page. Game kinds come from `@tikron/games`; hosting logic from `@tikron/cloudflare`.
 */
import { ANY_ROOM, MatchmakerObject, RoomObject, identifyRequest, meteredGateway, routeGatewayRequest, type GatewayEnv } from "@tikron/cloudflare";
import { d1TttRecords, gameDefinitions, recentRounds, type TttEnv } from "@tikron/games";
import { ROOM_ID_PATTERN } from "@tikron/protocol";

/** Worker bindings (see wrangler.jsonc / wrangler.staging.jsonc). */
export interface Env extends GatewayEnv, TttEnv {
  /** Room records (`room_records`, packages/cloudflare/migrations). */
  DB?: D1Database;
  /** Game results: finished ttt-json rounds (`ttt_rounds`, packages/games/migrations). */
  RESULTS?: D1Database;
}

/** One instance per room (`idFromName(roomObjectName(kind, roomId))`: `kind:roomId`, core/src/join/objectNames.ts). */
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

/**
 * `GET /records/ttt-json/me`: the caller's own tic-tac-toe record across rooms, from `RESULTS`
 * (`ttt_records`): `{ identity, record: { wins, losses, draws } }`. The caller is who a join would
 * be (a match ticket for room `*`, a sign-in JWT; in DEV_MODE a guest key, `?guest=`). Where no
 * record is kept (no `RESULTS` binding: staging) or the caller is nobody in particular (no
 * credential, no guest key), `record` is null: a page asks without knowing, and is not answered
 * an error for it. A credential that is sent and refused is answered as a join would be (401/403).
 */
async function ownTttRecord(request: Request, env: Env): Promise<Response> {
  if (request.method !== "GET") return new Response("GET only", { status: 405 });
  const verdict = await identifyRequest(request, env, "ttt-json", ANY_ROOM);
  const anonymous = !verdict.ok && verdict.reason === "missing";
  if (!verdict.ok && !anonymous) return new Response(verdict.message, { status: verdict.status });
  const identity = verdict.ok ? verdict.identity : null;
  const record = identity !== null && env.RESULTS ? await d1TttRecords(env.RESULTS).get(identity) : null;
  return Response.json({ identity, record }, { headers: { "cache-control": "no-store" } });
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    const results = RESULTS_PATH.exec(path);
    if (results) return tttResults(request, env, results[1]!);
    if (path === "/records/ttt-json/me") return ownTttRecord(request, env);
    // Metered: DEV_MODE `GET /gateway/stats` says what the gateway's requests cost (gatewayMeter.ts).
    return meteredGateway(request, env, (req, metered) => routeGatewayRequest(req, metered, gameDefinitions));
  },
} satisfies ExportedHandler<Env>;
