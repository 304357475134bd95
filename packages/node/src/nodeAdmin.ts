/**
 * The admin API on the Node host (`serveRooms({ adminToken })`): the same paths, credential rule
 * and answers as the Cloudflare gateway's (`/admin/api/…`), over the rooms of this process; the
 * room side is the core's (`runRoomAdmin`), so are the room list (`listAdminRooms`) and the audit
 * log (`memoryAuditLog`: in memory, it lives with the process). Metric points are sampled here
 * for every room with players and kept in memory.
 */
import type { IncomingMessage } from "node:http";
import { RoomMetrics, type Room } from "@tikron/core";
import { listAdminRooms, memoryAuditLog, runRoomAdmin, serveAdmin, statsSummary, type AdminAuth, type AdminHost } from "@tikron/core/admin";
import type { ReplayArchive } from "@tikron/core/replay";
import type { AdminRefusals, MetricPoint } from "@tikron/protocol";
import type { HttpAnswer } from "./nodeMatchmaking";
import { nodeBody } from "./nodeBody";

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
  /** The recorded matches (`serveRooms({ replays })`), if kept. */
  replays?: ReplayArchive;
  /** The joins the host refused before any room. */
  refusals(): AdminRefusals;
}

/** The Node host's admin API and its rooms' metrics (see the module comment). */
export class NodeAdmin {
  readonly #d: NodeAdminDeps;
  readonly #metrics = new Map<Room, RoomMetrics>();
  readonly #host: AdminHost;

  constructor(deps: NodeAdminDeps) {
    this.#d = deps;
    this.#host = {
      hasKind: (kind) => deps.hasKind(kind),
      list: () => {
        const rooms = deps.rooms();
        return listAdminRooms({
          kinds: [...new Set(rooms.map((r) => r.kind))],
          directory: async (kind) => rooms.filter((r) => r.kind === kind).map((r) => r.status()),
          summary: async (kind, roomId) => {
            const room = deps.room(kind, roomId);
            return room ? statsSummary(room.snapshot()) : null;
          },
        });
      },
      room: async (kind, roomId, req) => {
        const room = deps.room(kind, roomId);
        return room ? runRoomAdmin(room, req, this.points(room)) : null;
      },
      ...memoryAuditLog(),
      replays: deps.replays,
      refusals: () => deps.refusals(),
    };
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
  async serve(req: IncomingMessage, url: URL): Promise<HttpAnswer | null> {
    const headers = {
      get: (name: string) => {
        const v = req.headers[name.toLowerCase()];
        return typeof v === "string" ? v : null;
      },
    };
    const out = await serveAdmin({ url, method: req.method ?? "GET", headers, body: nodeBody(req) }, this.#d.auth, this.#host);
    // The body is JSON text already; its content-type header goes with it.
    return out && { status: out.status, body: out.body, headers: out.headers };
  }
}
