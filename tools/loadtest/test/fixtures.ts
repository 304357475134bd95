import { resolveConfig, type LoadConfig } from "../src/load/config";
import type { Environment } from "../src/report/environment";
import type { ProcessHealth, ThreadHealth } from "../src/metrics/genHealth";
import { RoomMetrics } from "../src/metrics/roomMetrics";
import { assembleReport, type Report } from "../src/report/report";
import { generatorProcess } from "../src/metrics/generatorProcess";

export const env: Environment = {
  node: "v22.0.0",
  platform: "linux",
  arch: "x64",
  cpus: 2,
  cpuModel: "test cpu",
  totalMemMiB: 1024,
  loadAvg1: 0,
  commit: "abc1234",
  dirty: false,
};

export function thread(p99 = 1, label = "main"): ThreadHealth {
  return {
    thread: label,
    clients: 10,
    eventLoop: { p50: 0.1, p99, max: p99 + 1, mean: 0.2, samples: 100, resolutionMs: 10 },
    heapUsedStartMiB: 10,
    heapUsedPeakMiB: 11,
  };
}

export const proc: ProcessHealth = {
  cpuPercent: 12.5,
  wallSec: 10,
  rssStartMiB: 50,
  rssPeakMiB: 51,
  rssPerClientKiB: 40,
  heapPerClientKiB: 20,
  machineBusyPercent: 30,
  loadAvg1End: 0.5,
};

/** A room with known samples: `acks` RTTs, `gaps` frame gaps, inputs all on time unless `late`. */
export function room(id: string, o: { acks?: number[]; gaps?: number[]; late?: number; joined?: number; planned?: number; tkFlushP99?: number; closes?: number[]; spikes?: number } = {}): RoomMetrics {
  const r = new RoomMetrics(id);
  r.counters.planned = o.planned ?? o.joined ?? 10;
  r.counters.joined = o.joined ?? 10;
  r.info = { roomKind: "agar", tickMs: 50, syncIntervalMs: 50, cap: 100, expectedGapMs: 50 };
  for (const a of o.acks ?? []) {
    r.inputSent(1);
    r.ackRtt(a);
  }
  for (let i = 0; i < (o.late ?? 0); i++) r.inputSent(50);
  for (const g of o.gaps ?? []) {
    r.counters.framesRx++;
    r.counters.stateFrames++;
    r.stateFrame(g, Math.abs(g - 50));
  }
  r.counters.activeClientMs = 10_000 * r.counters.joined;
  r.counters.bytesRx = 1000;
  r.counters.bytesTx = 500;
  for (const c of o.closes ?? []) r.unexpectedClose(c);
  for (let i = 0; i < (o.spikes ?? 0); i++) r.ackSpike();
  if (o.tkFlushP99 !== undefined) r.tkStats = { stats: { flush: { p99: o.tkFlushP99 } }, fetchedAt: 1 };
  else r.tkStatsError = "no reply";
  return r;
}

/** A report from rooms, as one generator process. */
export function report(rooms: RoomMetrics[], o: { eldP99?: number; config?: Partial<LoadConfig>; shard?: { index: number; count: number } } = {}): Report {
  const cfg = resolveConfig({
    url: "ws://127.0.0.1:1",
    players: 10,
    rooms: rooms.length,
    durationSec: 10,
    roomPrefix: "t",
    shard: o.shard,
    startAtEpochMs: o.shard ? Date.now() + 1000 : undefined,
    ...o.config,
  });
  const data = rooms.map((r) => r.toData());
  const g = generatorProcess(`shard ${cfg.shard.index}/${cfg.shard.count}`, cfg.runId, data, [thread(o.eldP99 ?? 1)], proc);
  return assembleReport({ name: "t", config: cfg, environment: env, generators: [g], rooms: data });
}
