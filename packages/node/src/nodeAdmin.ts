/**
 * The admin API on the Node host (`serveRooms({ adminToken })`): the same paths, credential rule
 * and answers as the Cloudflare gateway's (`/admin/api/…`), over the rooms of this process; the
 * room side is the core's (`runRoomAdmin`). Metric points are sampled here for every room with
 * players and kept in memory; the audit log is in memory too (it lives with the process).
 */
import type { IncomingMessage } from "node:http";
import { RoomMetrics, type Room } from "@tikron/core";
import { checkAdmin, runRoomAdmin, statsSummary, type AdminAuth } from "@tikron/core/admin";
import {
  ADMIN_ERROR_STATUS,
  adminError,
  isAdminError,
  isAdminPath,
  parseAdminAction,
  routeAdminPath,
  type AdminError,
  type AdminRoomList,
  type AuditEntry,
  type MetricPoint,
} from "@tikron/protocol";
import type { HttpAnswer } from "./nodeMatchmaking";

/** Audit entries kept in memory. */
export const NODE_AUDIT_ENTRIES = 500;

/** What the Node host's admin API needs from the server around it. */
export interface NodeAdminDeps {
  /** Who may call it. */
  auth: AdminAuth;
  /** Every room of the process. */
  rooms(): Room[];
  /** The room of a kind and id, if it exists. */
  room(kind: string, roomId: string): Room | undefined;
  /** Whether the server hosts a kind. */
  hasKind(kind: string): boolean;
}

function refuse(e: AdminError): HttpAnswer {
  return { status: ADMIN_ERROR_STATUS[e.code], body: e, ...(e.code === "unauthorized" ? { headers: { "www-authenticate": 'Bearer realm="admin"' } } : {}) };
}

/** The Node host's admin API and its rooms' metrics (see the module comment). */
export class NodeAdmin {
  readonly #d: NodeAdminDeps;
  readonly #metrics = new Map<Room, RoomMetrics>();
  readonly #audit: AuditEntry[] = [];
  #nextId = 1;

  constructor(deps: NodeAdminDeps) {
    this.#d = deps;
  }

  /** A room's recent metric points. */
  points(room: Room): MetricPoint[] {
    return this.#metrics.get(room)?.points() ?? [];
  }

  /** Takes a point of every room that has players, or had them at its last point (so a room's quiet end is seen). */
  sample(now = Date.now()): void {
    for (const room of this.#d.rooms()) {
      let m = this.#metrics.get(room);
      const last = m?.points().at(-1);
      if (room.connectedCount === 0 && (last === undefined || last.clients === 0)) continue;
      if (!m) this.#metrics.set(room, (m = new RoomMetrics()));
      m.sample(room.snapshot(), now);
    }
  }

  /** Serves one request under `/admin/api`; null for any other path. */
  async serve(req: IncomingMessage, url: URL, readBody: () => Promise<string>): Promise<HttpAnswer | null> {
    if (!isAdminPath(url.pathname)) return null;
    const headers = { get: (name: string) => (typeof req.headers[name.toLowerCase()] === "string" ? (req.headers[name.toLowerCase()] as string) : null) };
    const who = await checkAdmin({ url: url.href, headers }, this.#d.auth);
    if (!who.ok) return refuse(who.error);
    const route = routeAdminPath(url.pathname, req.method ?? "GET");
    if (isAdminError(route)) return refuse(route);
    if ("method" in route) return { status: 405, body: adminError("method_not_allowed", `use ${route.method}`), headers: { allow: route.method } };
    if (route.op === "rooms") return { status: 200, body: this.#list() };
    if (route.op === "audit") {
      const limit = Math.max(1, Math.min(NODE_AUDIT_ENTRIES, Number(url.searchParams.get("limit")) || 50));
      return { status: 200, body: this.#audit.slice(-limit).reverse() };
    }
    if (!this.#d.hasKind(route.kind)) return refuse(adminError("not_found", `unknown room kind "${route.kind}"`));
    const room = this.#d.room(route.kind, route.roomId);
    if (route.op === "room" || route.op === "metrics") {
      if (!room) return refuse(adminError("not_found", `room ${route.kind}/${route.roomId} is not running`));
      const out = runRoomAdmin(room, { op: route.op }, this.points(room));
      return out.ok ? { status: 200, body: out.body } : refuse(out.error);
    }
    const text = await readBody();
    const action = parseAdminAction(route.op, text);
    const out = isAdminError(action)
      ? { ok: false as const, error: action }
      : room
        ? runRoomAdmin(room, action, this.points(room))
        : { ok: false as const, error: adminError("not_found", `room ${route.kind}/${route.roomId} is not running`) };
    this.#record({ at: Date.now(), actor: who.actor, action: route.op, kind: route.kind, roomId: route.roomId, detail: JSON.stringify(isAdminError(action) ? { body: text.slice(0, 500) } : action), result: out.ok ? "ok" : out.error.code });
    return out.ok ? { status: 200, body: { ...out.body, audited: true } } : refuse(out.error);
  }

  #record(e: Omit<AuditEntry, "id">): void {
    this.#audit.push({ id: this.#nextId++, ...e });
    if (this.#audit.length > NODE_AUDIT_ENTRIES) this.#audit.shift();
  }

  #list(): AdminRoomList {
    const rooms = this.#d.rooms().map((room) => {
      const s = room.status();
      return { kind: room.kind, roomId: room.roomId, clients: s.clients, bots: s.bots, reserved: s.reserved, maxClients: s.maxClients, locked: s.locked, private: s.private, createdAt: s.createdAt, metadata: s.metadata, stats: statsSummary(room.snapshot()) };
    });
    return { rooms: rooms.sort((a, b) => b.createdAt - a.createdAt), unavailable: [] };
  }
}
