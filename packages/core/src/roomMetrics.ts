/**
 * Operator metrics of one room: every interval (a minute by default) a {@link MetricPoint} — the
 * counters' growth over the interval, the clients at its end, the recent flush p99 — taken from
 * the room's `tk:stats` snapshot, off the tick path. Hosts write each point where they keep
 * metrics (Workers Analytics Engine on Cloudflare) and keep the last ones in memory for the admin
 * API, so the same series is there locally and in production.
 */
import type { MetricPoint } from "@tikron/protocol";
import { counterTotal, type RoomStatsSnapshot } from "./roomStats";

/** Default sampling interval (ms): one point per room per minute. */
export const METRICS_INTERVAL_MS = 60_000;

/** Shortest interval a host may configure (ms): the points are for operators, not for the tick. */
export const MIN_METRICS_INTERVAL_MS = 1_000;

/** Points kept in memory per room (an hour at the default interval). */
export const METRIC_POINTS_KEPT = 60;

/** What a {@link RoomMetrics} samples and where each point goes. */
export interface RoomMetricsOptions {
  /** Most points kept in memory (default {@link METRIC_POINTS_KEPT}). */
  keep?: number;
  /** Called with every point as it is taken (the host's metrics store); must not throw. */
  write?(point: MetricPoint): void;
}

/** The counters a point counts the growth of. */
type Totals = Pick<MetricPoint, "frames" | "bytesOut" | "bytesIn" | "messagesIn" | "errors" | "closes">;

function totalsOf(s: RoomStatsSnapshot): Totals {
  return { frames: s.frames, bytesOut: s.bytesOut, bytesIn: s.bytesIn, messagesIn: s.messagesIn, errors: counterTotal(s.errors), closes: counterTotal(s.closes) };
}

/**
 * The metric series of one room: {@link sample} turns a `tk:stats` snapshot into a point (growth
 * since the previous sample; the first counts from the room's start), hands it to `write` and
 * keeps the last ones.
 */
export class RoomMetrics {
  readonly #keep: number;
  readonly #write: ((point: MetricPoint) => void) | undefined;
  readonly #points: MetricPoint[] = [];
  #last: Totals = { frames: 0, bytesOut: 0, bytesIn: 0, messagesIn: 0, errors: 0, closes: 0 };
  #lastAt: number | null = null;

  constructor(options: RoomMetricsOptions = {}) {
    this.#keep = Math.max(1, options.keep ?? METRIC_POINTS_KEPT);
    this.#write = options.write;
  }

  /** When the last point was taken (epoch ms), or null before the first. */
  get lastAt(): number | null {
    return this.#lastAt;
  }

  /** Whether a point is due at `now` for an interval of `intervalMs`. */
  due(now: number, intervalMs: number): boolean {
    return this.#lastAt === null || now - this.#lastAt >= intervalMs;
  }

  /** Takes a point from snapshot `s` at `now` (epoch ms), keeps it and writes it. */
  sample(s: RoomStatsSnapshot, now: number): MetricPoint {
    const t = totalsOf(s);
    const last = this.#last;
    const since = this.#lastAt ?? now - s.uptimeMs;
    // A counter that went backwards means a new room instance under the same sampler: count afresh.
    const d = (k: keyof Totals) => (t[k] >= last[k] ? t[k] - last[k] : t[k]);
    const point: MetricPoint = {
      at: now,
      intervalMs: Math.max(0, now - since),
      kind: s.kind,
      roomId: s.roomId,
      clients: s.ccu,
      seats: s.seats,
      frames: d("frames"),
      bytesOut: d("bytesOut"),
      bytesIn: d("bytesIn"),
      messagesIn: d("messagesIn"),
      errors: d("errors"),
      closes: d("closes"),
      flushP99Ms: s.flush.p99,
    };
    this.#last = t;
    this.#lastAt = now;
    this.#points.push(point);
    if (this.#points.length > this.#keep) this.#points.shift();
    this.#write?.(point);
    return point;
  }

  /** The kept points, oldest first (copies). */
  points(): MetricPoint[] {
    return this.#points.map((p) => ({ ...p }));
  }
}
