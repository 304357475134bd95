/**
 * The admin API on Cloudflare (`/admin/api/…`): the one request flow of every host (core
 * `serveAdmin`: the credential first on every path, then the route) over this Worker's rooms —
 * the list from the matchmakers' directories with a summary asked of each room, one room's
 * detail, metrics and actions by RPC to its object (`RoomObject.admin`), the audit log in D1
 * (core admin/auditLog.ts), the list by the core's rule (admin/roomList.ts).
 * Never answered to another origin (no CORS): the console page is the gateway's own.
 */
import type { GameDefinition } from "@tikron/core";
import { AuthConfigError } from "@tikron/core/auth";
import { roomObjectName } from "@tikron/core/join";
import { adminAuthFromEnv, auditDatabase, listAdminRooms, serveAdmin, sqlAuditLog, type AdminEnv, type AdminHost, type AdminRoomAnswer, type RoomAdminRpcRequest } from "@tikron/core/admin";
import { resolveMatchmaking } from "@tikron/core/match";
import { isAdminPath, type AdminStatsSummary } from "@tikron/protocol";
import { matchmakerStub } from "./matchGateway";
import { gatewayRefusals } from "./gatewayRefusals";
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
  const ns = env.MATCHMAKER;
  const host: AdminHost = {
    hasKind: (kind) => Object.hasOwn(games, kind),
    // The matchmakers' directories (every shard's), each room's summary by RPC (core admin/roomList.ts).
    list: () =>
      listAdminRooms({
        kinds: Object.keys(games),
        directory: async (kind) => {
          if (!ns) return null;
          const shards = resolveMatchmaking(games[kind]!.matchmaking).shards;
          const parts = await Promise.all(Array.from({ length: shards }, (_, s) => matchmakerStub(ns, kind, s).stats(kind, s)));
          return parts.flatMap((part) => part.directory ?? []);
        },
        summary: async (kind, roomId) => {
          const out = await stub(kind, roomId).admin(kind, roomId, { op: "summary" });
          return out !== null && !("ok" in out) ? out : null;
        },
      }),
    room: async (kind, roomId, req) => {
      const out = await stub(kind, roomId).admin(kind, roomId, req);
      return out !== null && "ok" in out ? out : null;
    },
    ...sqlAuditLog(auditDatabase(env)),
    replays: env.REPLAYS ? r2Archive(env.REPLAYS, env) : undefined,
    // This isolate's count: each isolate keeps its own (the Analytics Engine points add them up).
    refusals: () => gatewayRefusals.snapshot(),
  };
  const out = await serveAdmin({ url, method: request.method, headers: request.headers, body: { contentLength: request.headers.get("content-length"), body: request.body } }, auth, host);
  return out && new Response(out.body, { status: out.status, headers: out.headers });
}
