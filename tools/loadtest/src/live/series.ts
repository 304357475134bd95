/**
 * The run's time series: one {@link LiveSample} per second (what the progress line shows and
 * live thresholds judge) and the rooms' tk:stats sampled every few seconds. Stored in the report
 * as `series` and charted by the HTML report.
 */

/** One second of a run, all generator threads of this process together. */
export interface LiveSample {
  /** Seconds since the run's start (end of the window this sample covers). */
  tSec: number;
  /** Players holding a welcomed socket now. */
  players: number;
  /** Players the load model wants joined now (all shards). */
  target: number;
  /** Cumulative join outcomes. */
  joined: number;
  failed: number;
  refused: number;
  /** Inputs sent and acked per second (all clients). */
  inputsPerSec: number;
  acksPerSec: number;
  /** Input → ack RTT over the last second (ms); null when no ack arrived. */
  ackP50Ms: number | null;
  ackP95Ms: number | null;
  ackP99Ms: number | null;
  /** State-frame gap p99 over the last second (ms); null without state frames. */
  frameGapP99Ms: number | null;
  /** FRAMEs per connected client per second, over the last second. */
  framesPerSecPerClient: number | null;
  /** Payload bytes received per second, all clients, and per connected client. */
  downlinkBytesPerSec: number;
  downlinkBytesPerSecPerClient: number | null;
  /** Cumulative ERROR messages and unexpected closes. */
  errors: number;
  unexpectedCloses: number;
  /** Cumulative drops and seats recovered (reconnect storms). */
  dropped: number;
  reconnected: number;
  /** Generator health over the last second: share of inputs on schedule, worst thread loop delay, process CPU. */
  onSchedulePct: number | null;
  eventLoopP99Ms: number;
  generatorCpuPct: number;
  /**
   * Server CPU % (100 = one core) over the last second, when a sampler of the server process is
   * attached (local `wrangler dev` only). Filled by whoever samples the server; absent otherwise.
   */
  serverCpuPct?: number;
}

/** One room's tk:stats figures at one moment of the run. */
export interface RoomStatsSample {
  tSec: number;
  roomId: string;
  tickP99Ms: number | null;
  flushP99Ms: number | null;
  /** Connected players as the room counted them (`ccu`), when present. */
  ccu: number | null;
}

/** The report's `series`. */
export interface RunSeries {
  /** Seconds between samples (1). */
  intervalSec: number;
  samples: LiveSample[];
  /** tk:stats sampled every `statsEverySec` by one client per room (plus the final fetch). */
  roomStats: RoomStatsSample[];
}

/**
 * Copies the server CPU series (sampled over the steady window, `report.server`) into the
 * per-second samples' `serverCpuPct`, matching seconds since the run's start, so the HTML report
 * charts it next to the generator's.
 */
export function attachServerCpu(r: {
  config: { rampSec: number };
  server?: { series: readonly { tSec: number; cpuPct: number }[] };
  series?: RunSeries;
}): void {
  if (!r.server || !r.series) return;
  const byT = new Map(r.series.samples.map((s) => [Math.round(s.tSec), s]));
  for (const p of r.server.series) {
    const s = byT.get(Math.round(r.config.rampSec + p.tSec));
    if (s) s.serverCpuPct = p.cpuPct;
  }
}
