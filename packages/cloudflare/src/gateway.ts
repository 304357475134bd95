import { ADMISSION_CLOSE_HEADER, admissionAddress, resolveRoomOptions, type GameDefinition } from "@tikron/core";
import { CloseCode, parseAbortRelay } from "@tikron/protocol";
import { admitRoute, CallerGate, checkOrigin, joinRefusal, relayObjectName, roomObjectName, routeJoin, type GateRefusal, type JoinRefusal } from "@tikron/core/join";
import { identifyRequest, type IdentityEnv } from "./callerIdentity";
import { signingSecret } from "./joinSecret";
import { routeMatchRequest } from "./matchGateway";
import { routeAdminRequest } from "./adminGateway";
import type { AdminEnv } from "@tikron/core/admin";
import type { OperationsEnv } from "./metricsDataPoint";
import { readRelayedAnswer, writeRoomMeta, type RoomRequestMeta } from "./roomRequest";
import { isUpgrade, refusalAnswer, refuseJoin, reportRefusals } from "./gatewayRefusals";
import { gatewayHold } from "./gatewayMeter";
import { relayIndexFor, type RelaysEnv } from "@tikron/core";
import type { ReplaysEnv } from "./roomReplays";

/**
 * Bindings the gateway needs from the Worker environment: `AUTH_*` (the game's sign-in
 * provider, see `IdentityEnv`), `ADMIN_*` (the admin API's credential, see core `AdminEnv`),
 * `METRICS` and `METRICS_INTERVAL_SECONDS` (operator metrics, see `OperationsEnv`),
 * `ROOM_RELAYS` (the kinds whose rooms are relayed, see `RelaysEnv`).
 */
export interface GatewayEnv extends IdentityEnv, AdminEnv, OperationsEnv, RelaysEnv, ReplaysEnv {
  /** The Durable Object namespace of the room class (one object per room). */
  ROOMS: DurableObjectNamespace;
  /** Static assets served for every path that is not a room or `/health`. */
  ASSETS?: Fetcher;
  /** `"true"` skips join tickets and allows overrides and HTTP stats; never in production. */
  DEV_MODE?: string;
  /** HMAC secret for room tickets (`wrangler secret put TICKET_SECRET`); required outside DEV_MODE. */
  TICKET_SECRET?: string;
  /** Comma-separated origins whose pages may open room sockets (core join/originPolicy.ts). */
  ALLOWED_ORIGINS?: string;
  /**
   * The matchmaker objects behind `/match/…` (one per kind and shard); rooms report their status
   * to them. Optional: without it there is no matchmaking and rooms report nothing.
   */
  MATCHMAKER?: DurableObjectNamespace;
  /** D1: room records (written by the rooms) and the admin API's audit log. */
  DB?: unknown;
}

/**
 * Callers the room refused with 429 (its per-identity limits), answered here until their
 * `Retry-After` ends, and bursts of one caller's upgrades held back (core join/callerGate.ts).
 */
const gate = new CallerGate();
/** Sockets one caller may have waiting for hello, per kind (the room's own limit). */
const pendingPerCaller = new Map<string, number>();

function maxPendingFor(kind: string, def: GameDefinition): number {
  let n = pendingPerCaller.get(kind);
  if (n === undefined) {
    n = resolveRoomOptions(def.defaults).maxPendingPerIdentity;
    pendingPerCaller.set(kind, n);
  }
  return n;
}

/**
 * How long the gateway holds its own 429 before answering. Only callers who knock again inside
 * the wait they were given, or push more upgrades at once than the room lets them have waiting,
 * get these; holding the answer costs the Worker a timer, not CPU, and slows a client that
 * retries at once to one try per second per connection it holds open.
 */
export const GATE_REFUSAL_DELAY_MS = 1_000;

async function gateRefusal(r: GateRefusal): Promise<JoinRefusal> {
  await gatewayHold(GATE_REFUSAL_DELAY_MS);
  const body = r.why === "burst" ? "too many of your sockets are on their way into this room; retry later" : "refused by the room; retry later";
  return joinRefusal("throttled", body, Math.max(1000, r.retryAfterMs - GATE_REFUSAL_DELAY_MS));
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

/**
 * A join the gate refused (core `JOIN_REFUSALS`), counted under its cause (gatewayRefusals.ts). A
 * WebSocket upgrade is accepted and closed at once with its close code and the reason (the wait
 * in it, see the protocol's `refusalCloseReason`): a browser cannot read the HTTP status of a
 * failed upgrade, every client reads a close. Any other request (curl, a health check), and an
 * upgrade from an address past its budget of refusals, gets the status, with `Retry-After` when
 * there is a wait. A row without a cause (426) is a plain answer, not counted.
 */
function refuse(request: Request, r: JoinRefusal): Response {
  if (r.cause === null) return text(r.status, r.message);
  return refuseJoin(request, r.cause, r.status, r.message, r.close, r.retryAfterMs);
}

/**
 * The room object's answer to an upgrade, as the client gets it: its admission refusals (429 for
 * this caller, 503 for the room's backlog, 403 for a caller an operator banned, with
 * `Retry-After` and the close they get in `ADMISSION_CLOSE_HEADER`) come back as HTTP, since the
 * object makes no socket it refuses, and are turned into closes here (`join_throttled`,
 * `banned`), the one place that knows whether the request was an upgrade. Anything else passes
 * as it is.
 */
async function roomAnswer(request: Request, response: Response): Promise<Response> {
  const close = Number(response.headers.get(ADMISSION_CLOSE_HEADER)) || (response.status === 429 || response.status === 503 ? CloseCode.join_throttled : 0);
  if (close === 0 || !isUpgrade(request)) return response;
  const retryAfterS = Number(response.headers.get("retry-after")) || 1;
  // The room's own refusal, counted by the room: answered as it asked, outside the gateway's budget.
  return refusalAnswer(request, response.status, await response.text(), close, retryAfterS * 1000);
}

/**
 * The DEV_MODE failure drill `POST /rooms/:kind/:roomId/abort[?relay=i]` (`routeRoomUrl` refuses
 * it outside DEV_MODE): the room's object, or relay `i` of a relayed room, is reset with
 * `ctx.abort()` as a failed or evicted object would be on the edge: its sockets and links break
 * and its next request makes it anew. The object's abort fails the call, which is the answer.
 */
async function abortObject(request: Request, env: GatewayEnv, kind: string, roomId: string, query: URLSearchParams): Promise<Response> {
  if (request.method !== "POST") return text(405, "POST /rooms/:kind/:roomId/abort[?relay=i]");
  const relay = parseAbortRelay(query);
  if (typeof relay === "string") return text(400, relay);
  const name = relay === undefined ? roomObjectName(kind, roomId) : relayObjectName(kind, roomId, relay);
  const headers = new Headers();
  writeRoomMeta(headers, { route: "abort", kind, roomId, options: {}, params: {} });
  try {
    const answer = await env.ROOMS.get(env.ROOMS.idFromName(name)).fetch(new Request(request.url, { method: "POST", headers }));
    // An object that did not abort (it refused the drill) says why.
    if (answer.status !== 202) return answer;
  } catch {
    // The abort itself: the call fails with the object.
  }
  return text(202, `aborted ${name}`);
}

/**
 * Sends a request for room `meta` to the object it goes to: relay `relay` when given, else the
 * room's own object; a join the room's object answers with `relayedAnswer(K)` (the room was
 * promoted to a relayed room) goes on to relay `relayIndexFor(identity, K)`. One extra hop per
 * join of a promoted room, and no state shared between gateways: the room's object is the one
 * that knows, and a room never goes back to single while it lives.
 */
async function joinRoom(env: GatewayEnv, request: Request, headers: Headers, meta: RoomRequestMeta, relay: number | undefined, objectName: string): Promise<Response> {
  const { kind, roomId } = meta;
  const send = (to: number | undefined, name: string): Promise<Response> => {
    writeRoomMeta(headers, to === undefined ? meta : { ...meta, relay: to });
    return env.ROOMS.get(env.ROOMS.idFromName(name)).fetch(new Request(request.url, { method: request.method, headers }));
  };
  const answer = await send(relay, objectName);
  const relays = relay === undefined && meta.route === undefined ? readRelayedAnswer(answer) : 0;
  if (relays === 0) return answer;
  await answer.body?.cancel();
  const to = relayIndexFor(meta.playerId, relays);
  return send(to, relayObjectName(kind, roomId, to));
}

/**
 * Routes one Worker request: `GET /rooms/:kind/:roomId` (WebSocket upgrade) to the room's
 * Durable Object (`idFromName` of the core join gate's `objectName`), the admin API `/admin/api/…`
 * (adminGateway.ts), the matchmaking paths `/match/…` (matchGateway.ts), `/health`, DEV_MODE stats at `/rooms/:kind/:roomId/stats`, and static
 * assets for everything else. A join may name a seat reservation (`?reservation=`, from the
 * matchmaker) instead of a ticket: it is verified the same way and binds the same identity.
 *
 * Refusals happen here, before the Durable Object is touched, decided by the core's join gate
 * (`routeJoin`, `admitRoute`; their causes, statuses and close codes in one table,
 * `JOIN_REFUSALS`, the Node host's too): the join URL's own (the protocol's `routeRoomUrl`:
 * unknown kind 404 `not_found`, bad room id 400 `bad_request`, overrides or stats outside
 * DEV_MODE 403 `forbidden`), then foreign Origin 403 `forbidden`, a ticket the room
 * refused moments ago (429 `join_throttled` until its Retry-After, before the signature is
 * checked again), a missing, malformed, forged, expired or wrong-room credential 401
 * `unauthorized` (also a seat reservation sent with another player's ticket or token: one
 * identity per join), no secret 503 `unavailable`, not an upgrade 426, and the caller's own 429s
 * (`join_throttled`): refused by the room moments ago, or a burst of more upgrades in flight than
 * the room lets one caller have waiting (core join/callerGate.ts). An upgrade gets each refusal as its
 * close code right after the upgrade (see `refuse`; past its address's budget of refusals, as
 * its HTTP status), any other request as its HTTP status; every refusal is counted by cause
 * (gatewayRefusals.ts); the room's own admission refusals are converted the same way (see
 * `roomAnswer`).
 */
export async function routeGatewayRequest(
  request: Request,
  env: GatewayEnv,
  games: Readonly<Record<string, GameDefinition>>,
): Promise<Response> {
  const url = new URL(request.url);
  const devMode = env.DEV_MODE === "true";
  reportRefusals(env);
  if (url.pathname === "/health") {
    return Response.json({ ok: true, devMode, kinds: Object.keys(games) });
  }
  // The admin API: nothing under /admin/api answers without the admin credential (adminGateway.ts).
  const admin = await routeAdminRequest(request, url, env, games);
  if (admin) return admin;
  const matched = await routeMatchRequest(request, url, env, games);
  if (matched) return matched;
  const route = routeJoin(url, { devMode, games });
  if (!route) {
    if (env.ASSETS) return env.ASSETS.fetch(request);
    return text(404, "not found");
  }
  if ("refusal" in route) return refuse(request, route.refusal);
  const { kind, roomId, stats: isStats, bots: isBots, overrides } = route;
  if (route.abort) return abortObject(request, env, kind, roomId, url.searchParams);
  if (isBots) {
    if (request.method !== "POST") return text(405, "POST /rooms/:kind/:roomId/bots?count=N");
    if (!devMode && games[kind]!.bots?.allowInProduction !== true) return text(403, `bots are available in DEV_MODE only for ${kind}`);
  }
  // The core's join gate: origin, a seat reservation or a credential, the upgrade, the relay (core/src/join).
  const verdict = await admitRoute({ url, headers: request.headers, upgrade: isUpgrade(request) }, route, {
    devMode,
    games,
    reservationSecret: signingSecret(env),
    caller: (k, r) => identifyRequest(request, env, k, r),
    relays: env,
    refusedOrigin: () => {
      const origin = checkOrigin(request, env.ALLOWED_ORIGINS, devMode);
      return origin.ok ? null : origin.origin;
    },
    remembered: async (credential) => {
      const remembered = gate.checkTicket(credential, Date.now());
      return remembered ? gateRefusal(remembered) : null;
    },
  });
  if (!verdict.ok) return refuse(request, verdict.refusal);
  const { seat, credential, relay, objectName } = verdict;
  const playerId = seat.identity;
  const caller = playerId ?? admissionAddress(request.headers.get("CF-Connecting-IP"));
  const gateKey = caller !== undefined && !isStats && !isBots ? `${kind}:${roomId}:${caller}` : undefined;
  if (gateKey !== undefined) {
    const refused = gate.checkCaller(gateKey, maxPendingFor(kind, games[kind]!), Date.now());
    if (refused) return refuse(request, await gateRefusal(refused));
  }
  // A room relayed from its start (`relays=K`, or its kind's `K` in `ROOM_RELAYS`): the gate sent
  // the join to one of its K relay objects, which reach the room's own object (the simulation)
  // themselves. Any other join goes to the room's object, which answers `relayedAnswer(K)` when
  // the room is relayed now (promoted past its threshold, `K@N`): the join is then sent on to a
  // relay (`joinRoom`). Stats and bots go to the room's object.
  const headers = new Headers(request.headers);
  // The address lets the room limit callers without a ticket (DEV_MODE) per address; with a
  // ticket the player id is the key and the address is not used.
  const address = admissionAddress(request.headers.get("CF-Connecting-IP"));
  const meta: RoomRequestMeta = {
    ...(isStats ? { route: "stats" } : isBots ? { route: "bots" } : {}),
    kind,
    roomId,
    options: overrides.options,
    params: overrides.params,
    ...(playerId !== undefined ? { playerId } : {}),
    ...(seat.claims !== undefined && Object.keys(seat.claims).length > 0 ? { claims: seat.claims } : {}),
    ...(address !== undefined ? { address } : {}),
    ...(seat.reservation !== undefined ? { reservation: seat.reservation } : {}),
  };
  const join = (): Promise<Response> => joinRoom(env, request, headers, meta, relay, objectName);
  if (gateKey === undefined) return roomAnswer(request, await join());
  gate.forwarded(gateKey);
  let response: Response;
  try {
    response = await join();
  } catch (e) {
    gate.answered(gateKey, null, 0, 0, Date.now());
    throw e;
  }
  const retryAfter = Number(response.headers.get("retry-after")) || 0;
  // Only a verified credential is remembered (the gate names none otherwise).
  const waitS = gate.answered(gateKey, credential, response.status, retryAfter, Date.now());
  if (waitS > retryAfter) {
    // Refused again right after its last wait: the caller is told the longer wait it now has.
    response = new Response(response.body, response);
    response.headers.set("retry-after", String(waitS));
  }
  return roomAnswer(request, response);
}
