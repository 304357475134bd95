/**
 * What a room's Durable Object does for its operator, beside hosting the room: it answers the
 * admin API's requests (core `runRoomAdmin`), keeps the room's bans across restarts (in the
 * object's storage), and samples the room's metrics — one point per interval, written to Workers
 * Analytics Engine (`METRICS` binding) and kept in memory for the admin API. All of it off the
 * tick path: a ticking room is sampled by a timer that runs only while someone is connected (the
 * loop keeps the object awake then anyway); a turn-based one, which sleeps between moves, is
 * sampled on its own events, so no timer ever keeps it awake.
 */
import { METRICS_INTERVAL_MS, MIN_METRICS_INTERVAL_MS, RoomMetrics, type HostedRoom, type OperatedRoom } from "@tikron/core";
import { runRoomAdmin, statsSummary, type AdminRoomAnswer, type AdminRoomRequest } from "@tikron/core/admin";
import type { AdminBan, AdminStatsSummary, MetricPoint } from "@tikron/protocol";
import { metricsDataPoint, type MetricsDataset } from "./metricsDataPoint";

/** Storage key of the room's bans (`HostedRoom.activeBans`). */
export const BANS_KEY = "room:bans";

/** The bindings and vars operations read. */
export interface OperationsEnv {
  /** The Analytics Engine dataset metric points go to (binding of type `analytics_engine`). */
  METRICS?: MetricsDataset;
  /** Seconds between two metric points of a room (default 60, at least 1). */
  METRICS_INTERVAL_SECONDS?: string;
}

/** What an admin RPC asks a room object: the admin API's room requests, or the list's summary. */
export type RoomAdminRpcRequest =
  | AdminRoomRequest
  | {
      /** The few numbers the room list shows (`AdminStatsSummary`). */
      op: "summary";
    };

/** The sampling interval the vars ask for (ms). */
export function metricsIntervalMs(env: OperationsEnv | undefined): number {
  const s = Number(env?.METRICS_INTERVAL_SECONDS);
  return Number.isFinite(s) && s > 0 ? Math.max(MIN_METRICS_INTERVAL_MS, Math.round(s * 1000)) : METRICS_INTERVAL_MS;
}

/** The room as its operator's side sees it: its operated view, its name, its clients and bans. */
export type OperatedView = OperatedRoom & Pick<HostedRoom, "kind" | "roomId" | "ticking" | "connectedCount" | "activeBans">;

/** The operator's side of one room object (see the module comment). */
export class RoomOperations {
  readonly #room: OperatedView;
  readonly #storage: DurableObjectStorage;
  readonly #intervalMs: number;
  readonly #metrics: RoomMetrics;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(room: OperatedView, storage: DurableObjectStorage, env: OperationsEnv | undefined) {
    this.#room = room;
    this.#storage = storage;
    this.#intervalMs = metricsIntervalMs(env);
    const dataset = env?.METRICS;
    const write = dataset && typeof dataset.writeDataPoint === "function" ? dataset : null;
    this.#metrics = new RoomMetrics({
      write: (p) => {
        if (!write) return;
        try {
          write.writeDataPoint(metricsDataPoint(p));
        } catch (e) {
          console.warn(`[room ${p.kind}:${p.roomId}] metrics write failed:`, e instanceof Error ? e.message : e);
        }
      },
    });
  }

  /** The bans the object kept, put back into a room just made. */
  static async loadBans(storage: DurableObjectStorage): Promise<AdminBan[]> {
    const saved = await storage.get<AdminBan[]>(BANS_KEY);
    return Array.isArray(saved) ? saved : [];
  }

  /**
   * The room had an event (a join, a message on a sleeping room's socket): a ticking room starts
   * its sampling timer if it is not running; a turn-based one takes a point when one is due.
   */
  activity(): void {
    const now = Date.now();
    if (this.#room.ticking) {
      if (this.#timer === null) this.#arm();
    } else if (this.#metrics.due(now, this.#intervalMs)) {
      this.#metrics.sample(this.#room.snapshot(), now);
    }
  }

  /** The room's recent metric points, oldest first. */
  points(): MetricPoint[] {
    return this.#metrics.points();
  }

  /** Answers one admin RPC; bans that changed are stored before the answer. */
  async handle(req: RoomAdminRpcRequest): Promise<AdminRoomAnswer | AdminStatsSummary> {
    if (req.op === "summary") return statsSummary(this.#room.snapshot());
    const answer = runRoomAdmin(this.#room, req, this.points());
    if (answer.ok && (req.op === "ban" || req.op === "unban")) await this.#storage.put(BANS_KEY, this.#room.activeBans());
    return answer;
  }

  /** Stops the sampling timer. */
  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#metrics.sample(this.#room.snapshot(), Date.now());
      // The last point of a busy spell is taken as it ends; then the timer waits for a join.
      if (this.#room.connectedCount > 0) this.#arm();
    }, this.#intervalMs);
  }
}

export type { AdminRoomAnswer };
