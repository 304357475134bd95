/**
 * The admin API on Cloudflare (`/admin/api/…`, the protocol's `routeAdminPath`): the credential
 * first (core `checkAdmin`: the admin token, or a Cloudflare Access sign-in) for every path under
 * it, then the room list from the matchmakers' directories with a summary from each room, one
 * room's detail, metrics and actions (an RPC to the room's object, `RoomObject.admin`), and the
 * audit log (D1). Never reachable without the credential; never answered to another origin (no
 * CORS): the console page is the gateway's own.
 */
import type { GameDefinition } from "@tikron/core";
import { AuthConfigError } from "@tikron/core/auth";
import { adminAuthFromEnv, checkAdmin, type AdminEnv, type AdminRoomAnswer } from "@tikron/core/admin";
import { resolveMatchmaking, type RoomStatus } from "@tikron/core/match";
import {
  ADMIN_ERROR_STATUS,
  adminError,
  isAdminError,
  isAdminPath,
  parseAdminAction,
  routeAdminPath,
  type AdminError,
  type AdminRoomList,
  type AdminRoomSummary,
  type AdminStatsSummary,
} from "@tikron/protocol";
import { auditDatabase, readAdminActions, recordAdminAction } from "./adminAudit";
import { matchmakerStub } from "./matchmakerRpc";
import type { RoomAdminRpcRequest } from "./roomOperations";

/** The bindings the admin routes read. */
export interface AdminGatewayEnv extends AdminEnv {
  /** The room objects. */
  ROOMS: DurableObjectNamespace;
  /** The matchmakers, whose directories list the rooms (without it the list is empty). */
  MATCHMAKER?: DurableObjectNamespace;
  /** D1, for the audit log (`admin_actions`). */
  DB?: unknown;
}

/** A room object's admin RPC as the gateway sees it (see `RoomObject.admin`). */
export interface RoomAdminRpc {
  /** See `RoomObject.admin`. */
  admin(kind: string, roomId: string, req: RoomAdminRpcRequest): Promise<AdminRoomAnswer | AdminStatsSummary | null>;
}

/** Most rooms the list asks for a summary (the newest). */
export const MAX_LISTED_ROOMS = 200;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });
}

function refusal(e: AdminError, headers: Record<string, string> = {}): Response {
  return json(ADMIN_ERROR_STATUS[e.code], e, headers);
}

/** Serves an admin path; null for any other path. */
export async function routeAdminRequest(request: Request, url: URL, env: AdminGatewayEnv, games: Readonly<Record<string, GameDefinition>>): Promise<Response | null> {
  if (!isAdminPath(url.pathname)) return null;
  let auth;
  try {
    auth = adminAuthFromEnv(env);
  } catch (e) {
    console.error("[admin] the admin credential is misconfigured; refusing every admin request:", e instanceof AuthConfigError ? e.message : e);
    return refusal(adminError("unavailable", "the admin API is misconfigured on this server (see its log)"));
  }
  const who = await checkAdmin(request, auth);
  if (!who.ok) return refusal(who.error, who.error.code === "unauthorized" ? { "www-authenticate": 'Bearer realm="admin"' } : {});
  const route = routeAdminPath(url.pathname, request.method);
  if (isAdminError(route)) return refusal(route);
  if ("method" in route) return refusal(adminError("method_not_allowed", `use ${route.method}`), { allow: route.method });
  switch (route.op) {
    case "rooms":
      return json(200, await listRooms(env, games));
    case "audit": {
      const db = auditDatabase(env);
      if (!db) return refusal(adminError("unavailable", "this gateway has no audit log (no DB binding)"));
      return json(200, await readAdminActions(db, Number(url.searchParams.get("limit") ?? 50)));
    }
  }
  if (!Object.hasOwn(games, route.kind)) return refusal(adminError("not_found", `unknown room kind "${route.kind}"`));
  const stub = env.ROOMS.get(env.ROOMS.idFromName(`${route.kind}:${route.roomId}`)) as unknown as RoomAdminRpc;
  if (route.op === "room" || route.op === "metrics") return answer(await stub.admin(route.kind, route.roomId, { op: route.op }));
  // An action: its body checked, run by the room, and recorded whatever came of it.
  const text = await request.text();
  const action = parseAdminAction(route.op, text);
  const out: AdminRoomAnswer = isAdminError(action) ? { ok: false, error: action } : ((await stub.admin(route.kind, route.roomId, action)) as AdminRoomAnswer);
  const audited = await recordAdminAction(auditDatabase(env), {
    at: Date.now(),
    actor: who.actor,
    action: route.op,
    kind: route.kind,
    roomId: route.roomId,
    detail: isAdminError(action) ? { body: text.slice(0, 500) } : action,
    result: out.ok ? "ok" : out.error.code,
  });
  return out.ok ? json(200, { ...out.body, audited }) : refusal(out.error);
}

function answer(out: AdminRoomAnswer | AdminStatsSummary | null): Response {
  if (out === null || !("ok" in out)) return refusal(adminError("not_found", "no such room"));
  return out.ok ? json(200, out.body) : refusal(out.error);
}

/**
 * Every room the matchmakers know, newest first, each with its own summary (the newest
 * {@link MAX_LISTED_ROOMS}); a kind whose matchmaker cannot be asked is named in `unavailable`.
 */
async function listRooms(env: AdminGatewayEnv, games: Readonly<Record<string, GameDefinition>>): Promise<AdminRoomList> {
  const unavailable: string[] = [];
  const found: { kind: string; status: RoomStatus }[] = [];
  const ns = env.MATCHMAKER;
  await Promise.all(
    Object.entries(games).map(async ([kind, def]) => {
      if (!ns) return void unavailable.push(kind);
      const shards = resolveMatchmaking(def.matchmaking).shards;
      try {
        const parts = await Promise.all(Array.from({ length: shards }, (_, s) => matchmakerStub(ns, kind, s).stats(kind, s)));
        for (const part of parts) for (const status of part.directory) found.push({ kind, status });
      } catch {
        unavailable.push(kind);
      }
    }),
  );
  found.sort((a, b) => b.status.createdAt - a.status.createdAt);
  const rooms = await Promise.all(
    found.slice(0, MAX_LISTED_ROOMS).map(async ({ kind, status: s }): Promise<AdminRoomSummary> => {
      let stats: AdminStatsSummary | null = null;
      try {
        const stub = env.ROOMS.get(env.ROOMS.idFromName(`${kind}:${s.roomId}`)) as unknown as RoomAdminRpc;
        const out = await stub.admin(kind, s.roomId, { op: "summary" });
        stats = out !== null && !("ok" in out) ? out : null;
      } catch {
        stats = null;
      }
      return { kind, roomId: s.roomId, clients: s.clients, bots: s.bots, reserved: s.reserved, maxClients: s.maxClients, locked: s.locked, private: s.private, createdAt: s.createdAt, metadata: s.metadata, stats };
    }),
  );
  return { rooms, unavailable: unavailable.sort() };
}
