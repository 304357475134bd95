/**
 * The join gate: what every host does with a join before any room sees it, as one pure rule
 * over the request's parsed parts. A host reads its request (URL, headers, whether it is an
 * upgrade), hands it to {@link admitJoin} with its deployment's settings, and translates the
 * verdict into I/O: the Cloudflare gateway into a fetch of the Durable Object named
 * `objectName`, the Node host into its room map under the same name; a refusal into the answer
 * its row of `JOIN_REFUSALS` names. The order (the protocol's error table): the join URL, then
 * the origin, then a reservation or a credential, then an upgrade, then the relay.
 */
import { isRouteRefusal, routeRoomUrl, type RoomRoute } from "@tikron/protocol";
import { playerClaimsOf, readCredential, type CallerVerdict, type HeadersLike } from "../auth/identify";
import { identifyReservedJoin } from "../auth/reservedJoin";
import type { GameDefinition } from "../gameDefinition";
import { relayIndexFor } from "../placement/relayIndex";
import { relayedFromStart, relaysFor, type RelaysEnv } from "../placement/relayPlan";
import type { PlayerClaims } from "../player";
import { credentialRefusal, joinRefusal, routeRefusal, type JoinRefusal } from "./joinRefusals";
import { relayObjectName, roomObjectName } from "./objectNames";

/** The parts of a join request the gate reads. */
export interface JoinRequest {
  /** The request URL (path and query). */
  url: URL;
  /** Its headers (`Authorization: Bearer`). */
  headers: HeadersLike;
  /** Whether it asks for a WebSocket upgrade. */
  upgrade: boolean;
}

/** A deployment's settings and the host's hooks, as the gate needs them. */
export interface JoinGateConfig {
  /** DEV_MODE: overrides, stats and the abort drill allowed; credentials optional (the host's `caller` decides). */
  devMode: boolean;
  /** The kinds hosted, by name. */
  games: Readonly<Record<string, GameDefinition>>;
  /** The secret reservations are verified with (`reservationSecret`); null: none accepted. */
  reservationSecret: string | null;
  /**
   * The host's credential rule for a join to `kind`/`roomId` (core `identifyCaller` with the
   * host's ticket secret and JWT verifier). A throw is a configuration that cannot work: refused
   * `unconfigured`.
   */
  caller(kind: string, roomId: string): Promise<CallerVerdict>;
  /**
   * Where relayed rooms are named (`ROOM_RELAYS` and the kinds' definitions); null: this host
   * runs every room in one place and relays nothing.
   */
  relays: RelaysEnv | null;
  /** An upgrade listener: stats, bots and the abort drill (plain HTTP) are refused `not_a_join`. */
  joinsOnly?: boolean;
  /** The origin policy: the request's origin when it may not open room sockets, else null (no hook: any origin). */
  refusedOrigin?(): string | null;
  /**
   * A credential about to be verified: a refusal the host answers from its memory instead (a
   * credential a room refused moments ago), or null to verify it.
   */
  remembered?(credential: string): Promise<JoinRefusal | null>;
}

/** Who a let-in join is, as the room seats it. */
export interface JoinSeat {
  /** The verified player id (a ticket's, a JWT's, a reservation's, a guest key's); absent: anonymous. */
  identity?: string;
  /** The reservation the join names (`?reservation=`), whose seat the room holds. */
  reservation?: string;
  /** The claims verified with the identity (a sign-in JWT's), for the seat's player. */
  claims?: PlayerClaims;
}

/** A join the gate lets through to its room's object. */
export interface JoinAdmitted {
  /** Let through. */
  ok: true;
  /** The route: kind, room id, stats, bots, the abort drill, overrides. */
  route: RoomRoute;
  /** Who joins (empty for stats and the abort drill, which verify nobody). */
  seat: JoinSeat;
  /** The verified credential's text (a host remembers it when the room refuses it); null without one. */
  credential: string | null;
  /** The relay of a room relayed from its start the join goes to; absent: the room's own object. */
  relay?: number;
  /** The object the request goes to: {@link roomObjectName}, or {@link relayObjectName} with `relay`. */
  objectName: string;
}

/** A join the gate refuses. */
export interface JoinRefused {
  /** Refused. */
  ok: false;
  /** Why, and how the host answers it. */
  refusal: JoinRefusal;
}

/** The gate's verdict on a room path: let through, or refused. */
export type JoinVerdict = JoinAdmitted | JoinRefused;

/** Text of every refusal the gate makes itself for a deployment that cannot admit anyone. */
export const UNCONFIGURED_TEXT = "joins are not configured on this server";

/**
 * The gate's verdict on `request` (see the module comment): {@link routeJoin}, then
 * {@link admitRoute}; null when its path is not a room path at all (the host serves it
 * otherwise, or refuses it `no_route`). Never throws.
 */
export async function admitJoin(request: JoinRequest, config: JoinGateConfig): Promise<JoinVerdict | null> {
  const route = routeJoin(request.url, config);
  if (route === null || "refusal" in route) return route;
  return admitRoute(request, route, config);
}

/**
 * The gate's first step: the join URL's route (the protocol's `routeRoomUrl`: kind, room id,
 * stats, bots, abort, DEV_MODE overrides), its refusal, or null when the path is not a room
 * path. A host that serves more than joins on a room path (bots, the abort drill) decides on
 * them between this step and {@link admitRoute}.
 */
export function routeJoin(url: URL, config: Pick<JoinGateConfig, "devMode" | "games" | "joinsOnly">): RoomRoute | JoinRefused | null {
  const { games } = config;
  const route = routeRoomUrl(url, { devMode: config.devMode, hasKind: (kind) => Object.hasOwn(games, kind) });
  if (route === null) return null;
  if (isRouteRefusal(route)) return refused(routeRefusal(route));
  if (config.joinsOnly && (route.stats || route.bots || route.abort)) return refused(joinRefusal("not_a_join", "stats, bots and abort are plain HTTP, without an upgrade"));
  return route;
}

/**
 * The gate's second step for a routed request: the origin, who joins (a seat reservation, or
 * a credential by the host's rule), the upgrade, and the object it goes to (the relay of a room
 * relayed from its start, by the join's identity). Never throws.
 */
export async function admitRoute(request: JoinRequest, route: RoomRoute, config: JoinGateConfig): Promise<JoinVerdict> {
  const { games } = config;
  const { kind, roomId } = route;
  if (route.abort) return { ok: true, route, seat: {}, credential: null, objectName: roomObjectName(kind, roomId) };
  let seat: JoinSeat = {};
  let credential: string | null = null;
  if (!route.stats) {
    const origin = config.refusedOrigin?.() ?? null;
    if (origin !== null) return refused(joinRefusal("foreign_origin", `origin ${origin} may not open room sockets`));
    const token = request.url.searchParams.get("reservation");
    const who = token !== null ? await reservedSeat(request, token, route, config) : await credentialSeat(request, route, config);
    if ("refusal" in who) return who;
    ({ seat, credential } = who);
    // A reservation is only ever a socket's; bots (POST) carry a ticket at most.
    if (!request.upgrade && (token !== null || !route.bots)) return refused(joinRefusal("upgrade_required", "expected a WebSocket upgrade"));
  }
  let relays = 0;
  if (config.relays !== null) {
    try {
      const plan = relaysFor(kind, games[kind], config.relays, route.overrides.options);
      relays = relayedFromStart(plan) ? plan.relays : 0;
    } catch (e) {
      console.error(`[join] ${(e as Error).message}`);
      return refused(joinRefusal("unconfigured", UNCONFIGURED_TEXT));
    }
  }
  // Stats and bots go to the room's own object; a join of a room relayed from its start to one of its relays.
  if (relays >= 1 && !route.stats && !route.bots) {
    const relay = relayIndexFor(seat.identity, relays);
    return { ok: true, route, seat, credential, relay, objectName: relayObjectName(kind, roomId, relay) };
  }
  return { ok: true, route, seat, credential, objectName: roomObjectName(kind, roomId) };
}

function refused(refusal: JoinRefusal): JoinRefused {
  return { ok: false, refusal };
}

type Who = { seat: JoinSeat; credential: string | null } | JoinRefused;

/**
 * A join naming a seat reservation from the matchmaker: signed like a ticket, it names the
 * identity the seat is held for and the reservation; the room decides whether it still holds
 * it. Any other credential sent with it must name the same player (core `identifyReservedJoin`).
 */
async function reservedSeat(request: JoinRequest, token: string, route: RoomRoute, config: JoinGateConfig): Promise<Who> {
  const secret = config.reservationSecret;
  if (secret === null) return refused(joinRefusal("unconfigured", UNCONFIGURED_TEXT));
  try {
    const v = await identifyReservedJoin(request, token, { secret, kind: route.kind, roomId: route.roomId }, () => config.caller(route.kind, route.roomId));
    if (!v.ok) return refused(credentialRefusal(v));
    return { seat: { identity: v.identity, reservation: v.reservation }, credential: null };
  } catch (e) {
    console.error("[join] a seat reservation could not be checked:", e instanceof Error ? e.message : e);
    return refused(joinRefusal("unconfigured", UNCONFIGURED_TEXT));
  }
}

/** A join with a room ticket, the game's sign-in JWT, a guest key or nothing, by the host's rule. */
async function credentialSeat(request: JoinRequest, route: RoomRoute, config: JoinGateConfig): Promise<Who> {
  const sent = readCredential(request);
  const credential = sent !== null && sent !== "ambiguous" ? sent.value : null;
  // A credential the room refused a moment ago is answered before its signature is checked again.
  if (credential !== null && config.remembered) {
    const remembered = await config.remembered(credential);
    if (remembered) return refused(remembered);
  }
  let v: CallerVerdict;
  try {
    v = await config.caller(route.kind, route.roomId);
  } catch (e) {
    console.error("[join] a credential could not be checked:", e instanceof Error ? e.message : e);
    return refused(joinRefusal("unconfigured", UNCONFIGURED_TEXT));
  }
  if (!v.ok) return refused(credentialRefusal(v, sent === "ambiguous"));
  const claims = playerClaimsOf(v);
  const seat: JoinSeat = {
    ...(v.identity !== null ? { identity: v.identity } : {}),
    ...(claims !== undefined ? { claims } : {}),
  };
  // Only a verified credential is one the host may remember (DEV_MODE without a secret verifies none).
  return { seat, credential: v.via !== null ? credential : null };
}
