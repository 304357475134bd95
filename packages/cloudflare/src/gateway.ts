import { ADMISSION_CLOSE_HEADER, admissionAddress, credentialRefusalCause, resolveRoomOptions, type GameDefinition } from "@tikron/core";
import { CloseCode, isRouteRefusal, parseAbortRelay, refusalCloseCode, routeRoomUrl, type RefusalCause } from "@tikron/protocol";
import { identifyReservedJoin, playerClaimsOf, readCredential } from "@tikron/core/auth";
import { SIGN_IN_RETRY_MS } from "@tikron/core/auth";
import type { PlayerClaims } from "@tikron/core";
import { identifyRequest, type IdentityEnv } from "./callerIdentity";
import { CallerGate, type GateRefusal } from "./callerGate";
import { signingSecret } from "./joinSecret";
import { routeMatchRequest } from "./matchGateway";
import { routeAdminRequest } from "./adminGateway";
import type { AdminEnv } from "@tikron/core/admin";
import type { OperationsEnv } from "./roomOperations";
import { checkOrigin } from "./originPolicy";
import { readRelayedAnswer, writeRoomMeta, type RoomRequestMeta } from "./roomRequest";
import { isUpgrade, refusalAnswer, refuseJoin, reportRefusals } from "./gatewayRefusals";
import { gatewayHold } from "./gatewayMeter";
import { relayedFromStart, relayIndexFor, relaysFor, type RelaysEnv } from "@tikron/core";
import { relayObjectName, roomObjectName } from "./relayLink";
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
  /** Comma-separated origins whose pages may open room sockets (see originPolicy.ts). */
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
 * `Retry-After` ends, and bursts of one caller's upgrades held back (see callerGate.ts).
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

async function gateRefusal(request: Request, r: GateRefusal): Promise<Response> {
  await gatewayHold(GATE_REFUSAL_DELAY_MS);
  const body = r.why === "burst" ? "too many of your sockets are on their way into this room; retry later" : "refused by the room; retry later";
  return refuse(request, "throttled", 429, body, CloseCode.join_throttled, Math.max(1000, r.retryAfterMs - GATE_REFUSAL_DELAY_MS));
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

/**
 * A join the gateway refuses, counted under `cause` (gatewayRefusals.ts). A WebSocket upgrade is
 * accepted and closed at once with `close` and the reason (the wait in it, see the protocol's
 * `refusalCloseReason`): a browser cannot read the HTTP status of a failed upgrade, every client
 * reads a close. Any other request (curl, a health check), and an upgrade from an address past
 * its budget of refusals, gets `status`, with `Retry-After` when there is a wait.
 */
function refuse(request: Request, cause: RefusalCause, status: number, reason: string, close = refusalCloseCode(status), retryAfterMs = 0): Response {
  return refuseJoin(request, cause, status, reason, close, retryAfterMs);
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
async function joinRoom(env: GatewayEnv, request: Request, headers: Headers, meta: RoomRequestMeta, relay: number | undefined): Promise<Response> {
  const { kind, roomId } = meta;
  const send = (to: number | undefined): Promise<Response> => {
    writeRoomMeta(headers, to === undefined ? meta : { ...meta, relay: to });
    const stub = env.ROOMS.get(env.ROOMS.idFromName(to === undefined ? roomObjectName(kind, roomId) : relayObjectName(kind, roomId, to)));
    return stub.fetch(new Request(request.url, { method: request.method, headers }));
  };
  const answer = await send(relay);
  const relays = relay === undefined && meta.route === undefined ? readRelayedAnswer(answer) : 0;
  if (relays === 0) return answer;
  await answer.body?.cancel();
  return send(relayIndexFor(meta.playerId, relays));
}

/**
 * Routes one Worker request: `GET /rooms/:kind/:roomId` (WebSocket upgrade) to the room's
 * Durable Object (`idFromName(kind + ':' + roomId)`), the admin API `/admin/api/…`
 * (adminGateway.ts), the matchmaking paths `/match/…` (matchGateway.ts), `/health`, DEV_MODE stats at `/rooms/:kind/:roomId/stats`, and static
 * assets for everything else. A join may name a seat reservation (`?reservation=`, from the
 * matchmaker) instead of a ticket: it is verified the same way and binds the same identity.
 *
 * Refusals happen here, before the Durable Object is touched: the join URL's own (the protocol's
 * `routeRoomUrl`: unknown kind 404 `not_found`, bad room id 400 `bad_request`, overrides or stats
 * outside DEV_MODE 403 `forbidden`), then foreign Origin 403 `forbidden`, a ticket the room
 * refused moments ago (429 `join_throttled` until its Retry-After, before the signature is
 * checked again), a missing, malformed, forged, expired or wrong-room credential 401
 * `unauthorized` (also a seat reservation sent with another player's ticket or token: one
 * identity per join), no secret 503 `unavailable`, not an upgrade 426, and the caller's own 429s
 * (`join_throttled`): refused by the room moments ago, or a burst of more upgrades in flight than
 * the room lets one caller have waiting (callerGate.ts). An upgrade gets each refusal as its
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
  const route = routeRoomUrl(url, { devMode, hasKind: (kind) => Object.hasOwn(games, kind) });
  if (!route) {
    if (env.ASSETS) return env.ASSETS.fetch(request);
    return text(404, "not found");
  }
  if (isRouteRefusal(route)) return refuse(request, route.status === 404 ? "not_found" : route.status === 403 ? "forbidden" : "bad_request", route.status, route.reason);
  const { kind, roomId, stats: isStats, bots: isBots, overrides } = route;
  if (route.abort) return abortObject(request, env, kind, roomId, url.searchParams);
  if (isBots) {
    if (request.method !== "POST") return text(405, "POST /rooms/:kind/:roomId/bots?count=N");
    if (!devMode && games[kind]!.bots?.allowInProduction !== true) return text(403, `bots are available in DEV_MODE only for ${kind}`);
  }
  let playerId: string | undefined;
  /** The claims verified with `playerId` (a sign-in JWT's): the seat's player gets them. */
  let claims: PlayerClaims | undefined;
  let reservation: string | undefined;
  /** The credential the join carries (a ticket or a JWT), remembered when the room refuses it. */
  let credential: string | null = null;
  const reservationToken = url.searchParams.get("reservation");
  if (!isStats && reservationToken !== null) {
    // A seat reservation from the matchmaker: signed like a ticket, it names the identity the
    // seat is held for and the reservation; the room decides whether it still holds it. Any other
    // credential sent with it must name the same player (core `identifyReservedJoin`).
    const origin = checkOrigin(request, env.ALLOWED_ORIGINS, devMode);
    if (!origin.ok) return refuse(request, "forbidden", 403, `origin ${origin.origin} may not open room sockets`);
    const secret = signingSecret(env);
    if (!secret) return refuse(request, "unavailable", 503, "joins are not configured on this gateway", CloseCode.unavailable);
    const verdict = await identifyReservedJoin(request, reservationToken, { secret, kind, roomId }, () => identifyRequest(request, env, kind, roomId));
    if (!verdict.ok) {
      if (verdict.reason === "jwks_unavailable") return refuse(request, "unavailable", 503, verdict.message, CloseCode.join_throttled, SIGN_IN_RETRY_MS);
      if (verdict.status === 503) return refuse(request, "unavailable", 503, verdict.message, CloseCode.unavailable);
      return refuse(request, credentialRefusalCause(verdict.reason), 401, verdict.message, CloseCode.unauthorized);
    }
    playerId = verdict.identity;
    reservation = verdict.reservation;
    if (!isUpgrade(request)) return text(426, "expected a WebSocket upgrade");
  } else if (!isStats) {
    const origin = checkOrigin(request, env.ALLOWED_ORIGINS, devMode);
    if (!origin.ok) return refuse(request, "forbidden", 403, `origin ${origin.origin} may not open room sockets`);
    const sent = readCredential(request);
    credential = sent !== null && sent !== "ambiguous" ? sent.value : null;
    // A credential the room refused a moment ago is answered before its signature is checked again.
    if (credential !== null) {
      const remembered = gate.checkTicket(credential, Date.now());
      if (remembered) return gateRefusal(request, remembered);
    }
    // A room ticket or the game's sign-in JWT; DEV_MODE needs neither, but checks one that is sent.
    const verdict = await identifyRequest(request, env, kind, roomId);
    if (!verdict.ok) {
      if (verdict.reason === "jwks_unavailable") return refuse(request, "unavailable", 503, verdict.message, CloseCode.join_throttled, SIGN_IN_RETRY_MS);
      if (verdict.reason === "unconfigured") return refuse(request, "unavailable", 503, verdict.message, CloseCode.unavailable);
      return refuse(request, sent === "ambiguous" ? "two_identities" : credentialRefusalCause(verdict.reason), 401, verdict.message, CloseCode.unauthorized);
    }
    playerId = verdict.identity ?? undefined;
    claims = playerClaimsOf(verdict);
    if (!isBots && request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return text(426, "expected a WebSocket upgrade");
    }
  }
  const caller = playerId ?? admissionAddress(request.headers.get("CF-Connecting-IP"));
  const gateKey = caller !== undefined && !isStats && !isBots ? `${kind}:${roomId}:${caller}` : undefined;
  if (gateKey !== undefined) {
    const refused = gate.checkCaller(gateKey, maxPendingFor(kind, games[kind]!), Date.now());
    if (refused) return gateRefusal(request, refused);
  }
  // A room relayed from its start (`relays=K`, or its kind's `K` in `ROOM_RELAYS`): a join goes
  // to one of its K relay objects, which reach the room's own object (the simulation)
  // themselves. Any other join goes to the room's object, which answers `relayedAnswer(K)` when
  // the room is relayed now (promoted past its threshold, `K@N`): the join is then sent on to a
  // relay (`joinRoom`). Stats and bots go to the room's object.
  let relays: number;
  try {
    const plan = relaysFor(kind, games[kind], env, overrides.options);
    relays = relayedFromStart(plan) ? plan.relays : 0;
  } catch (e) {
    console.error(`[gateway] ${(e as Error).message}`);
    return refuse(request, "unavailable", 503, "joins are not configured on this gateway", CloseCode.unavailable);
  }
  const relay = relays >= 1 && !isStats && !isBots ? relayIndexFor(playerId, relays) : undefined;
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
    ...(claims !== undefined && Object.keys(claims).length > 0 ? { claims } : {}),
    ...(address !== undefined ? { address } : {}),
    ...(reservation !== undefined ? { reservation } : {}),
  };
  const join = (): Promise<Response> => joinRoom(env, request, headers, meta, relay);
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
  // Only a verified credential is remembered (DEV_MODE without one verifies none).
  const waitS = gate.answered(gateKey, playerId !== undefined ? credential : null, response.status, retryAfter, Date.now());
  if (waitS > retryAfter) {
    // Refused again right after its last wait: the caller is told the longer wait it now has.
    response = new Response(response.body, response);
    response.headers.set("retry-after", String(waitS));
  }
  return roomAnswer(request, response);
}
