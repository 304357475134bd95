/**
 * The admin API on Cloudflare (`/admin/api/…`): the one request flow of every host (core
 * `serveAdmin`: the credential first on every path, then the route) over this Worker's rooms —
 * the list from the matchmakers' directories with a summary asked of each room, one room's
 * detail, metrics and actions by RPC to its object (`RoomObject.admin`), the audit log in D1.
 * Never answered to another origin (no CORS): the console page is the gateway's own.
 */
import type { GameDefinition } from "@tikron/core";
import { AuthConfigError } from "@tikron/core/auth";
import { roomObjectName } from "@tikron/core/join";
import { adminAuthFromEnv, serveAdmin, type AdminEnv, type AdminHost, type AdminRoomAnswer } from "@tikron/core/admin";
import { resolveMatchmaking, type RoomStatus } from "@tikron/core/match";
import { isAdminPath, type AdminRoomList, type AdminRoomSummary, type AdminStatsSummary } from "@tikron/protocol";
import { auditDatabase, readAdminActions, recordAdminAction } from "./adminAudit";
import { matchmakerStub } from "./matchmakerRpc";
import { gatewayRefusals } from "./gatewayRefusals";
import type { RoomAdminRpcRequest } from "./roomOperations";
import { r2Archive, type ReplaysEnv } from "./roomReplays";

/** The bindings the admin routes read. */
export interface AdminGatewayEnv extends AdminEnv, ReplaysEnv {
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

/** Serves an admin path; null for any other path. */
export async function routeAdminRequest(request: Request, url: URL, env: AdminGatewayEnv, games: Readonly<Record<string, GameDefinition>>): Promise<Response | null> {
  if (!isAdminPath(url.pathname)) return null;
  let auth;
  try {
    auth = adminAuthFromEnv(env);
  } catch (e) {
    console.error("[admin] the admin credential is misconfigured; refusing every admin request:", e instanceof AuthConfigError ? e.message : e);
    auth = { token: null, access: null };
  }
  const stub = (kind: string, roomId: string) => env.ROOMS.get(env.ROOMS.idFromName(roomObjectName(kind, roomId))) as unknown as RoomAdminRpc;
  const db = auditDatabase(env);
  const host: AdminHost = {
    hasKind: (kind) => Object.hasOwn(games, kind),
    list: () => listRooms(env, games, stub),
    room: async (kind, roomId, req) => {
      const out = await stub(kind, roomId).admin(kind, roomId, req);
      return out !== null && "ok" in out ? out : null;
    },
    record: (entry) => recordAdminAction(db, entry),
    audit: async (limit) => (db ? readAdminActions(db, limit) : null),
    replays: env.REPLAYS ? r2Archive(env.REPLAYS) : undefined,
    // This isolate's count: each isolate keeps its own (the Analytics Engine points add them up).
    refusals: () => gatewayRefusals.snapshot(),
  };
  const out = await serveAdmin({ url, method: request.method, headers: request.headers, body: { contentLength: request.headers.get("content-length"), body: request.body } }, auth, host);
  return out && new Response(out.body, { status: out.status, headers: out.headers });
}

/**
 * Every room the matchmakers know, newest first, each with its own summary (the newest
 * {@link MAX_LISTED_ROOMS}); a kind whose matchmaker cannot be asked is named in `unavailable`.
 */
async function listRooms(env: AdminGatewayEnv, games: Readonly<Record<string, GameDefinition>>, stub: (kind: string, roomId: string) => RoomAdminRpc): Promise<AdminRoomList> {
  const unavailable: string[] = [];
  const found: { kind: string; status: RoomStatus }[] = [];
  const ns = env.MATCHMAKER;
  await Promise.all(
    Object.entries(games).map(async ([kind, def]) => {
      if (!ns) return void unavailable.push(kind);
      const shards = resolveMatchmaking(def.matchmaking).shards;
      try {
        const parts = await Promise.all(Array.from({ length: shards }, (_, s) => matchmakerStub(ns, kind, s).stats(kind, s)));
        for (const part of parts) for (const status of part.directory ?? []) found.push({ kind, status });
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
        const out = await stub(kind, s.roomId).admin(kind, s.roomId, { op: "summary" });
        stats = out !== null && !("ok" in out) ? out : null;
      } catch {
        stats = null;
      }
      return { kind, roomId: s.roomId, clients: s.clients, bots: s.bots, reserved: s.reserved, maxClients: s.maxClients, locked: s.locked, private: s.private, createdAt: s.createdAt, metadata: s.metadata, stats };
    }),
  );
  return { rooms, unavailable: unavailable.sort() };
}
