/**
 * What a room's host does for its operator, beside hosting the room (a room's Durable Object on
 * Cloudflare): it answers the admin API's requests (`runRoomAdmin`), keeps the room's bans across
 * restarts (in the host's storage, a {@link BanStorage}), and samples the room's metrics — one
 * point per interval, handed to the host's writer (Workers Analytics Engine on Cloudflare) and
 * kept in memory for the admin API. All of it off the
 * tick path: a ticking room is sampled by a timer that runs only while someone is connected (the
 * loop keeps the object awake then anyway); a turn-based one, which sleeps between moves, is
 * sampled on its own events, so no timer ever keeps it awake.
 */
import { METRICS_INTERVAL_MS, MIN_METRICS_INTERVAL_MS, RoomMetrics } from "../roomMetrics";
import type { HostedRoom, OperatedRoom } from "../hostedRoom";
import { runRoomAdmin, statsSummary, type AdminRoomAnswer, type AdminRoomRequest } from "./roomAdmin";
import type { AdminBan, AdminStatsSummary, MetricPoint } from "@tikron/protocol";

/** Storage key of the room's bans (`HostedRoom.activeBans`). */
export const BANS_KEY = "room:bans";

/** The storage a room's bans are kept in (a Durable Object's storage has this shape). */
export interface BanStorage {
  /** The value kept under `key`. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Keeps `value` under `key`. */
  put(key: string, value: unknown): Promise<void>;
}

/** How a room's operations sample its metrics. */
export interface OperationsOptions {
  /** Ms between two metric points ({@link metricsIntervalMs}). */
  intervalMs: number;
  /** Where each point goes besides memory (Analytics Engine on Cloudflare); a failure is logged. */
  write?: (point: MetricPoint) => void;
}

/** What an admin RPC asks a room object: the admin API's room requests, or the list's summary. */
export type RoomAdminRpcRequest =
  | AdminRoomRequest
  | {
      /** The few numbers the room list shows (`AdminStatsSummary`). */
      op: "summary";
    };

/** The sampling interval (ms) a host's `METRICS_INTERVAL_SECONDS` var asks for (default 60 s, at least 1 s). */
export function metricsIntervalMs(env: { METRICS_INTERVAL_SECONDS?: string } | undefined): number {
  const s = Number(env?.METRICS_INTERVAL_SECONDS);
  return Number.isFinite(s) && s > 0 ? Math.max(MIN_METRICS_INTERVAL_MS, Math.round(s * 1000)) : METRICS_INTERVAL_MS;
}

/** The room as its operator's side sees it: its operated view, its name, its clients and bans. */
export type OperatedView = OperatedRoom & Pick<HostedRoom, "kind" | "roomId" | "ticking" | "connectedCount" | "activeBans">;

/** The operator's side of one room's host (see the module comment). */
export class RoomOperations {
  readonly #room: OperatedView;
  readonly #storage: BanStorage;
  readonly #intervalMs: number;
  readonly #metrics: RoomMetrics;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(room: OperatedView, storage: BanStorage, options: OperationsOptions) {
    this.#room = room;
    this.#storage = storage;
    this.#intervalMs = options.intervalMs;
    const write = options.write;
    this.#metrics = new RoomMetrics({
      write: (p) => {
        if (!write) return;
        try {
          write(p);
        } catch (e) {
          console.warn(`[room ${p.kind}:${p.roomId}] metrics write failed:`, e instanceof Error ? e.message : e);
        }
      },
    });
  }

  /** The bans the host kept, put back into a room just made. */
  static async loadBans(storage: BanStorage): Promise<AdminBan[]> {
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
