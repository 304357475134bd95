import type { ResolvedConfig } from "../load/config";
import { buildPlan, plannedAt } from "../load/loadPlan";
import { liveThresholds } from "../thresholds/evaluate";
import { LiveAggregator, type AbortInfo } from "./aggregator";
import type { LiveSample, RoomStatsSample, RunSeries } from "./series";
import type { ThreadTick } from "./threadTick";

/** Options of a run that concern its progress, not its load. */
export interface LiveOptions {
  /** Called with every 1 s sample (progress line, server CPU attachment, tests). */
  onSample?: (s: LiveSample) => void;
  /** Called once when a live threshold stops the run (`abortOnFail`). */
  onAbort?: (info: AbortInfo) => void;
  /** The server's CPU over its last second (% of one core), when someone samples it; stamped on each sample. */
  serverCpuNow?: () => number | null;
}

/**
 * One run's live side: the aggregator of the threads' ticks, the abort switch pulled by a live
 * threshold, and the series that ends up in the report.
 */
export class LiveRun {
  readonly controller = new AbortController();
  private readonly aggregator: LiveAggregator;
  aborted: AbortInfo | null = null;

  constructor(cfg: ResolvedConfig, threads: number, opts: LiveOptions = {}) {
    const plan = buildPlan(cfg);
    // plannedAt walks the whole plan: fine once a second for the thousands of players one box drives.
    const targetAt = (tSec: number): number => plannedAt(plan, tSec * 1000);
    this.aggregator = new LiveAggregator({
      threads,
      targetAt,
      onSample: opts.onSample,
      serverCpuNow: opts.serverCpuNow,
      live: cfg.abortOnFail ? liveThresholds(cfg.thresholds) : [],
      graceSec: cfg.abortGraceSec,
      onAbort: (info) => {
        this.aborted = info;
        opts.onAbort?.(info);
        this.controller.abort();
      },
    });
  }

  /** The tick sink of generator thread `i`. */
  tickSink(i: number): (tick: ThreadTick) => void {
    return (tick) => this.aggregator.accept(i, tick);
  }

  /** The report's series: the samples taken and the threads' tk:stats samples, in time order. */
  series(roomStats: readonly RoomStatsSample[]): RunSeries {
    return { intervalSec: 1, samples: this.aggregator.samples, roomStats: [...roomStats].sort((a, b) => a.tSec - b.tSec || a.roomId.localeCompare(b.roomId)) };
  }
}
