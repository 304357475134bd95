/**
 * How a room's metric point is laid out in Workers Analytics Engine: the one definition the
 * writer and the documented SQL read. `index1` is the room kind (the sampling key: queries
 * usually ask about one kind), `blob1` the kind, `blob2` the room id, and the doubles in the
 * order of {@link METRIC_DOUBLES} (`double1` = clients, …). The gateway's own point, its
 * refusals, shares the dataset under {@link GATEWAY_METRICS_KIND}.
 */
import type { RefusalReport } from "@tikron/core";
import { REFUSAL_CAUSES, type MetricPoint } from "@tikron/protocol";

/** The bindings and vars a room's operations and the gateway's refusal points read. */
export interface OperationsEnv {
  /** The Analytics Engine dataset metric points go to (binding of type `analytics_engine`). */
  METRICS?: MetricsDataset;
  /** Seconds between two metric points of a room (default 60, at least 1; core `metricsIntervalMs`). */
  METRICS_INTERVAL_SECONDS?: string;
}

/** The env's `METRICS` dataset, when it is one. */
export function metricsDataset(env: OperationsEnv | undefined): MetricsDataset | null {
  const dataset = env?.METRICS;
  return dataset && typeof dataset.writeDataPoint === "function" ? dataset : null;
}

/** One Analytics Engine data point. */
export interface AnalyticsDataPoint {
  /** The sampling key (one). */
  indexes: string[];
  /** Text columns, `blob1`… */
  blobs: string[];
  /** Number columns, `double1`… */
  doubles: number[];
}

/** The part of an Analytics Engine binding the rooms use. */
export interface MetricsDataset {
  /** Writes one data point (not awaited: the runtime sends it after the event). */
  writeDataPoint(point: AnalyticsDataPoint): void;
}

/** The doubles of a data point, in column order: `double1` is `clients`, `double2` `seats`, … */
export const METRIC_DOUBLES = ["clients", "seats", "frames", "bytesOut", "bytesIn", "messagesIn", "errors", "closes", "flushP99Ms", "intervalMs"] as const satisfies readonly (keyof MetricPoint)[];

/** The Analytics Engine data point of one metric point. */
export function metricsDataPoint(p: MetricPoint): AnalyticsDataPoint {
  return { indexes: [p.kind], blobs: [p.kind, p.roomId], doubles: METRIC_DOUBLES.map((k) => p[k]) };
}

/**
 * The blob that marks a gateway's refusal point (`blob1`, and `index1`): never a room kind, whose
 * names have no `:`. `blob2` is `refusals`.
 */
export const GATEWAY_METRICS_KIND = "tk:gateway";

/** The doubles of a refusal point: one per `REFUSAL_CAUSES` entry in its order, then `plain`, then `intervalMs`. */
export const REFUSAL_DOUBLES = [...REFUSAL_CAUSES, "plain", "intervalMs"] as const;

/** The Analytics Engine data point of one isolate's refusals over an interval (core `HostRefusals.takeReport`). */
export function refusalsDataPoint(r: RefusalReport): AnalyticsDataPoint {
  return { indexes: [GATEWAY_METRICS_KIND], blobs: [GATEWAY_METRICS_KIND, "refusals"], doubles: [...REFUSAL_CAUSES.map((c) => r.byCause[c]), r.plain, r.intervalMs] };
}
