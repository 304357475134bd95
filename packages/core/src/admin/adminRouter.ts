/**
 * The admin API's one request flow, for every host: the credential first (before the path is
 * even read, so nothing answers without it), then the route, then the host's rooms, and every
 * action recorded whatever came of it. A host supplies only what differs: how it lists rooms,
 * reaches one, and keeps the log ({@link AdminHost}).
 */
import {
  ADMIN_ERROR_STATUS,
  MAX_ADMIN_BODY_CHARS,
  adminError,
  isAdminError,
  isAdminPath,
  parseAdminAction,
  routeAdminPath,
  type AdminError,
  type AdminRefusals,
  type AdminRoomList,
  type AuditEntry,
} from "@tikron/protocol";
import type { HeadersLike } from "../auth/identify";
import type { HostReply } from "../hostReplies";
import { declaredTooLarge, readBoundedBody, type BodySource } from "../match/boundedBody";
import { checkAdmin, type AdminAuth } from "./adminCredential";
import type { AdminRoomAnswer, AdminRoomRequest } from "./roomAdmin";
import type { ReplayArchive } from "../replay/recording";

/** What the admin API needs from the host that serves it. */
export interface AdminHost {
  /** Whether the host hosts this kind. */
  hasKind(kind: string): boolean;
  /** Every room the host knows, with each room's summary. */
  list(): Promise<AdminRoomList>;
  /** Runs a request in one room; null when that room is not running. */
  room(kind: string, roomId: string, req: AdminRoomRequest): Promise<AdminRoomAnswer | null>;
  /** Records an action; false when it could not be (or there is no log). */
  record(entry: Omit<AuditEntry, "id">): Promise<boolean>;
  /** The newest `limit` recorded actions, newest first; null when the host keeps no log. */
  audit(limit: number): Promise<AuditEntry[] | null>;
  /** The host's recorded matches; absent: it keeps none (the replay paths answer 503). */
  replays?: ReplayArchive;
  /** The joins the host refused before any room, by cause (core `HostRefusals.snapshot`). */
  refusals(): AdminRefusals;
}

/** An admin request as the router reads it. */
export interface AdminRequest {
  /** The full URL (path and query). */
  url: URL;
  /** The HTTP method. */
  method: string;
  /** The request's headers (the credential). */
  headers: HeadersLike;
  /** The request's body, unread: only actions read it, bounded, once the credential passed. */
  body: BodySource;
}

/** An admin answer: a host reply, whose body is bytes for a recorded match's log. */
export interface AdminReply extends Omit<HostReply, "body"> {
  /** JSON text, or a recorded match's log (`application/octet-stream`). */
  body: string | Uint8Array<ArrayBuffer>;
}

function reply(status: number, body: unknown, headers: Record<string, string> = {}): HostReply {
  return { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers }, body: JSON.stringify(body) };
}

function refuse(e: AdminError, headers: Record<string, string> = {}): HostReply {
  return reply(ADMIN_ERROR_STATUS[e.code], e, e.code === "unauthorized" ? { "www-authenticate": 'Bearer realm="admin"', ...headers } : headers);
}

/**
 * Serves one admin request; null for a path outside the admin API. The credential comes first on
 * every path; then a declared body over {@link MAX_ADMIN_BODY_CHARS} is refused `too_large`
 * (413) before anything is read, and an action's body is read through the bounded reader.
 */
export async function serveAdmin(req: AdminRequest, auth: AdminAuth, host: AdminHost): Promise<AdminReply | null> {
  if (!isAdminPath(req.url.pathname)) return null;
  const who = await checkAdmin({ url: req.url, headers: req.headers }, auth);
  if (!who.ok) return refuse(who.error);
  const declared = declaredTooLarge(req.body.contentLength, MAX_ADMIN_BODY_CHARS);
  if (declared && !declared.ok) return refuse(adminError(declared.status === 413 ? "too_large" : "bad_request", declared.reason));
  const route = routeAdminPath(req.url.pathname, req.method);
  if (isAdminError(route)) return refuse(route);
  if ("method" in route) return refuse(adminError("method_not_allowed", `use ${route.method}`), { allow: route.method });
  if (route.op === "rooms") return reply(200, await host.list());
  if (route.op === "refusals") return reply(200, host.refusals());
  if (route.op === "audit") {
    const log = await host.audit(Number(req.url.searchParams.get("limit")) || 50);
    return log ? reply(200, log) : refuse(adminError("unavailable", "this host keeps no audit log (on Cloudflare: a DB binding)"));
  }
  if (!host.hasKind(route.kind)) return refuse(adminError("not_found", `unknown room kind "${route.kind}"`));
  if (route.op === "replays" || route.op === "replay") return serveReplays(route, host.replays);
  const notRunning = adminError("not_found", `room ${route.kind}/${route.roomId} is not running`);
  if (route.op === "room" || route.op === "metrics") {
    const out = await host.room(route.kind, route.roomId, { op: route.op });
    return out === null ? refuse(notRunning) : out.ok ? reply(200, out.body) : refuse(out.error);
  }
  // An action: its body read (bounded) and checked, run by the room, and recorded whatever came of it.
  const read = await readBoundedBody(req.body, MAX_ADMIN_BODY_CHARS);
  const text = read.ok ? read.text : "";
  const action = read.ok ? parseAdminAction(route.op, text) : adminError(read.status === 413 ? "too_large" : "bad_request", read.reason);
  const out: AdminRoomAnswer = isAdminError(action) ? { ok: false, error: action } : ((await host.room(route.kind, route.roomId, action)) ?? { ok: false, error: notRunning });
  const audited = await host.record({
    at: Date.now(),
    actor: who.actor,
    action: route.op,
    kind: route.kind,
    roomId: route.roomId,
    detail: JSON.stringify(isAdminError(action) ? { body: text.slice(0, 500) } : action),
    result: out.ok ? "ok" : out.error.code,
  });
  return out.ok ? reply(200, { ...out.body, audited }) : refuse(out.error);
}

/** The recorded-match paths: a kind's list, or one match's log as bytes. */
async function serveReplays(route: { op: "replays"; kind: string } | { op: "replay"; kind: string; matchId: string }, archive: ReplayArchive | undefined): Promise<AdminReply> {
  if (!archive) return refuse(adminError("unavailable", "this host keeps no recorded matches (Cloudflare: an R2 binding REPLAYS; Node: serveRooms({ replays }))"));
  if (route.op === "replays") return reply(200, await archive.list(route.kind));
  const bytes = await archive.get(route.kind, route.matchId);
  if (!bytes) return refuse(adminError("not_found", `no recorded match ${route.kind}/${route.matchId}`));
  const headers = { "content-type": "application/octet-stream", "cache-control": "no-store", "content-disposition": `attachment; filename="${route.kind}-${route.matchId}.tkml"` };
  return { status: 200, headers, body: bytes };
}
