/**
 * One generator process of a run (a machine shard): its threads' health, its schedule accounting
 * and whether it kept up. A saturated generator makes the whole run's figures describe the
 * generator, not the server.
 */
import { MAX_EVENT_LOOP_P99_MS, type ProcessHealth, type ThreadHealth } from "./genHealth";
import { mergeEncoded } from "./histogram";
import type { RoomData } from "./roomMetrics";
import { round2 } from "./round2";
import { MIN_ON_SCHEDULE_PCT, ON_SCHEDULE_TOLERANCE_MS, onSchedulePct } from "./scheduleAccounting";

/** One generator process (one machine shard) and how well it kept up. */
export interface GeneratorProcess {
  /** "shard i/n" of the run. */
  label: string;
  runId: string;
  clients: number;
  joined: number;
  process: ProcessHealth;
  threads: ThreadHealth[];
  /** Schedule accounting of this process's inputs. */
  schedule: { inputsSent: number; inputsOnSchedule: number; onSchedulePct: number; lag: string };
  saturated: boolean;
  saturationReasons: string[];
}

/** Saturation verdict of one process: late inputs or a stalled event loop. */
export function judgeGenerator(g: Omit<GeneratorProcess, "saturated" | "saturationReasons">): {
  saturated: boolean;
  saturationReasons: string[];
} {
  const reasons: string[] = [];
  if (g.schedule.inputsSent > 0 && g.schedule.onSchedulePct < MIN_ON_SCHEDULE_PCT) {
    reasons.push(
      `${g.label}: ${g.schedule.onSchedulePct.toFixed(2)}% of inputs on schedule (< ${MIN_ON_SCHEDULE_PCT}% within ${ON_SCHEDULE_TOLERANCE_MS} ms)`,
    );
  }
  for (const t of g.threads) {
    if (t.eventLoop.p99 > MAX_EVENT_LOOP_P99_MS) {
      reasons.push(`${g.label} ${t.thread}: event-loop delay p99 ${t.eventLoop.p99} ms (> ${MAX_EVENT_LOOP_P99_MS} ms)`);
    }
  }
  return { saturated: reasons.length > 0, saturationReasons: reasons };
}

/** Builds the generator entry of one process from its threads' room data (before merging). */
export function generatorProcess(
  label: string,
  runId: string,
  roomsOfProcess: readonly RoomData[],
  threads: ThreadHealth[],
  process: ProcessHealth,
): GeneratorProcess {
  let sent = 0;
  let onTime = 0;
  let clients = 0;
  let joined = 0;
  for (const r of roomsOfProcess) {
    sent += r.counters.inputsSent;
    onTime += r.counters.inputsOnSchedule;
    clients += r.counters.planned;
    joined += r.counters.joined;
  }
  const base = {
    label,
    runId,
    clients,
    joined,
    process,
    threads,
    schedule: {
      inputsSent: sent,
      inputsOnSchedule: onTime,
      onSchedulePct: round2(onSchedulePct(sent, onTime)),
      lag: mergeEncoded(roomsOfProcess.map((r) => r.histograms.scheduleLag)),
    },
  };
  return { ...base, ...judgeGenerator(base) };
}
