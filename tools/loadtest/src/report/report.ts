/**
 * The load report (`tikron-loadtest-report/1`): its shape, how it is assembled and summarized,
 * written, and printed. Longer than most files on purpose: this file is the report format's one
 * definition, and readers of a report's JSON should find every field and how it is derived in
 * one place.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ResolvedConfig } from "../load/config";
import type { Environment } from "./environment";
import { serverRows } from "../server/serverSummary";
import { MAX_EVENT_LOOP_P99_MS, type ProcessHealth, type ThreadHealth } from "../metrics/genHealth";
import { mergeEncoded, summarizeEncoded, type DurationSummary } from "../metrics/histogram";
import { mergeRoomData } from "../metrics/mergeRoomData";
import type { RoomData } from "../metrics/roomMetrics";
import { MIN_ON_SCHEDULE_PCT, ON_SCHEDULE_TOLERANCE_MS, onSchedulePct } from "../metrics/scheduleAccounting";
import { SPIKE_THRESHOLD_MS } from "../metrics/spikes";
import type { NoiseProbe } from "../metrics/noiseProbe";
import type { ServerCpuReport } from "../server/serverCpu";
import { flushP99Ms, tickP99Ms, timerLateP99Ms } from "../metrics/tkStats";
import type { RunSeries } from "../live/series";

/** Report format tag; bump when a field changes meaning. */
export const REPORT_FORMAT = "tikron-loadtest-report/1";

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

/** Figures derived from the mergeable data; recomputed after every merge. */
export interface Summary {
  clients: { planned: number; joined: number; refused: number; throttled: number; failed: number };
  failureReasons: Record<string, number>;
  unexpectedCloses: number;
  closeCodes: Record<string, number>;
  errors: Record<string, number>;
  /** Input → ack, from each input's scheduled send time (ms). */
  ackRttMs: DurationSummary;
  frameGapMs: DurationSummary;
  frameJitterMs: DurationSummary;
  connectMs: DurationSummary;
  scheduleLagMs: DurationSummary;
  /** Drop → welcome again, when the run dropped sockets (`--drop`). */
  reconnectMs?: DurationSummary;
  /** Distinct values announced in welcome across rooms (usually one). */
  tickMs: number[];
  syncIntervalMs: number[];
  expectedGapMs: number[];
  /** Acks slower than the spike threshold plus clients stalled at the end. */
  spikes: number;
  spikeThresholdMs: number;
  inputs: {
    sent: number;
    onSchedulePct: number;
    onScheduleToleranceMs: number;
    acked: number;
    unackedAtEnd: number;
    untracked: number;
    ackRegressions: number;
    ackBeyondSent: number;
  };
  /** Averages per joined client over the time it was joined within the window. */
  perClient: {
    framesPerSec: number;
    stateFramesPerSec: number;
    downlinkBytesPerSec: number;
    uplinkBytesPerSec: number;
    inputsPerSec: number;
    /**
     * Keepalive traffic alone (pings up, pongs down) per joined client-second: what a seated
     * client costs while nobody acts, in a room that sends nothing unprompted (turn-based). 0
     * for scenarios that send no keepalive.
     */
    idle: { downlinkBytesPerSec: number; uplinkBytesPerSec: number };
  };
  decodeErrors: number;
  scenario: Record<string, number>;
  generator: {
    cpuPercent: number;
    /** Highest machine-wide busy share seen by any generator process (all cores = 100). */
    machineBusyPercent: number;
    /**
     * Generator CPU time over the whole run / (INPUT frames sent + FRAMEs received), in µs:
     * what one message costs the generator, connection setup and teardown included.
     */
    cpuMicrosPerMessage: number | null;
    eventLoopP99Ms: number;
    eventLoopMaxMs: number;
    rssPerClientKiB: number | null;
    heapPerClientKiB: number | null;
  };
  roomStats: {
    fetched: number;
    missing: number;
    /** Worst room's flush p99 from tk:stats (ms); null when no snapshot exposes it. */
    flushP99Ms: number | null;
    tickP99Ms: number | null;
    /** Worst room's tick-timer lateness p99 (ms): how long the timer waited behind other work. */
    timerLateP99Ms?: number | null;
  };
  rooms: RoomSummary[];
}

/** The per-room line of the summary. */
export interface RoomSummary {
  roomId: string;
  planned: number;
  joined: number;
  refused: number;
  throttled: number;
  failed: number;
  unexpectedCloses: number;
  ackP50Ms: number;
  ackP99Ms: number;
  ackMaxMs: number;
  jitterP99Ms: number;
  spikes: number;
  framesPerSecPerClient: number;
  flushP99Ms: number | null;
  tkStatsError: string | null;
}

/** A run (or a merge of shard runs): config, environment, mergeable data and derived summary. */
export interface Report {
  format: typeof REPORT_FORMAT;
  name: string;
  createdAt: string;
  /** "generator_saturated" means the figures describe the generator, not the server. */
  status: "ok" | "generator_saturated";
  saturationReasons: string[];
  config: ResolvedConfig;
  environment: Environment;
  generators: GeneratorProcess[];
  /** Mergeable per-room data (histograms encoded). */
  rooms: RoomData[];
  /** All rooms merged. */
  total: RoomData;
  summary: Summary;
  /** Present on generator benchmarks: the capacity checks and the machine's idle-timer noise floor. */
  bench?: { checks: { target: string; actual: string; ok: boolean }[]; noise: { before: NoiseProbe; after: NoiseProbe } };
  /** Per-second samples and tk:stats sampled during the run (live/series.ts). */
  series?: RunSeries;
  /** Set when a live threshold stopped the run early (`--abort-on-fail`). */
  aborted?: { atSec: number; threshold: string; actual: string };
  /** Threshold verdict, when the run was checked (run --threshold, gate). */
  verdict?: { name: string; valid: boolean; passed: boolean; checks: { threshold: string; ok: boolean; actual: string }[] };
  /** Present when the run sampled a local server's CPU (`--server`, `--server-pid`, `ab`, `capacity`). */
  server?: ServerCpuReport;
  /** Present on merged reports: what went in, and anything that did not line up. */
  merge?: { inputs: { name: string; runId: string; shard: string; createdAt: string; commit: string }[]; warnings: string[] };
}

const round2 = (v: number): number => Math.round(v * 100) / 100;

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

function distinct(values: readonly number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

function perSec(count: number, activeMs: number): number {
  return activeMs > 0 ? round2(count / (activeMs / 1000)) : 0;
}

function roomSummary(r: RoomData): RoomSummary {
  const c = r.counters;
  const ack = summarizeEncoded(r.histograms.ackRtt);
  const jitter = summarizeEncoded(r.histograms.frameJitter);
  return {
    roomId: r.roomId,
    planned: c.planned,
    joined: c.joined,
    refused: c.refused,
    throttled: c.throttled,
    failed: c.failed,
    unexpectedCloses: c.unexpectedCloses,
    ackP50Ms: ack.p50,
    ackP99Ms: ack.p99,
    ackMaxMs: ack.max,
    jitterP99Ms: jitter.p99,
    spikes: c.ackSpikes + c.stalledAtEnd,
    framesPerSecPerClient: perSec(c.framesRx, c.activeClientMs),
    flushP99Ms: r.tkStats ? flushP99Ms(r.tkStats.stats) : null,
    tkStatsError: r.tkStatsError,
  };
}

function cpuMicrosPerMessage(generators: readonly GeneratorProcess[], messages: number): number | null {
  if (messages === 0) return null;
  const cpuSec = generators.reduce((sum, g) => sum + (g.process.cpuPercent / 100) * g.process.wallSec, 0);
  return round2((cpuSec * 1e6) / messages);
}

function maxOrNull(values: readonly (number | null)[]): number | null {
  const nums = values.filter((v): v is number => v !== null);
  return nums.length ? Math.max(...nums) : null;
}

/** Derives every human-facing figure from the mergeable data. */
export function summarize(rooms: readonly RoomData[], total: RoomData, generators: readonly GeneratorProcess[]): Summary {
  const c = total.counters;
  const infos = rooms.map((r) => r.info).filter((i) => i !== null);
  const threads = generators.flatMap((g) => g.threads);
  const roomsSummary = rooms.map(roomSummary);
  const fetched = rooms.filter((r) => r.tkStats !== null);
  return {
    clients: { planned: c.planned, joined: c.joined, refused: c.refused, throttled: c.throttled, failed: c.failed },
    failureReasons: total.failureReasons,
    unexpectedCloses: c.unexpectedCloses,
    closeCodes: total.closeCodes,
    errors: total.errors,
    ackRttMs: summarizeEncoded(total.histograms.ackRtt),
    frameGapMs: summarizeEncoded(total.histograms.frameGap),
    frameJitterMs: summarizeEncoded(total.histograms.frameJitter),
    connectMs: summarizeEncoded(total.histograms.connect),
    scheduleLagMs: summarizeEncoded(total.histograms.scheduleLag),
    ...(total.histograms.reconnect ? { reconnectMs: summarizeEncoded(total.histograms.reconnect) } : {}),
    tickMs: distinct(infos.map((i) => i.tickMs)),
    syncIntervalMs: distinct(infos.map((i) => i.syncIntervalMs)),
    expectedGapMs: distinct(infos.map((i) => i.expectedGapMs)),
    spikes: c.ackSpikes + c.stalledAtEnd,
    spikeThresholdMs: SPIKE_THRESHOLD_MS,
    inputs: {
      sent: c.inputsSent,
      onSchedulePct: round2(onSchedulePct(c.inputsSent, c.inputsOnSchedule)),
      onScheduleToleranceMs: ON_SCHEDULE_TOLERANCE_MS,
      acked: c.inputsAcked,
      unackedAtEnd: c.inputsUnackedAtEnd,
      untracked: c.inputsUntracked,
      ackRegressions: c.ackRegressions,
      ackBeyondSent: c.ackBeyondSent,
    },
    perClient: {
      framesPerSec: perSec(c.framesRx, c.activeClientMs),
      stateFramesPerSec: perSec(c.stateFrames, c.activeClientMs),
      downlinkBytesPerSec: perSec(c.bytesRx, c.activeClientMs),
      uplinkBytesPerSec: perSec(c.bytesTx, c.activeClientMs),
      inputsPerSec: perSec(c.inputsSent, c.activeClientMs),
      idle: {
        downlinkBytesPerSec: perSec(c.keepaliveBytesRx, c.activeClientMs),
        uplinkBytesPerSec: perSec(c.keepaliveBytesTx, c.activeClientMs),
      },
    },
    decodeErrors: c.decodeErrors,
    scenario: total.scenario,
    generator: {
      cpuPercent: round2(generators.reduce((s, g) => s + g.process.cpuPercent, 0)),
      machineBusyPercent: generators.length ? Math.max(...generators.map((g) => g.process.machineBusyPercent ?? 0)) : 0,
      cpuMicrosPerMessage: cpuMicrosPerMessage(generators, c.inputFrames + c.framesRx),
      eventLoopP99Ms: threads.length ? Math.max(...threads.map((t) => t.eventLoop.p99)) : 0,
      eventLoopMaxMs: threads.length ? Math.max(...threads.map((t) => t.eventLoop.max)) : 0,
      rssPerClientKiB: maxOrNull(generators.map((g) => g.process.rssPerClientKiB)),
      heapPerClientKiB: maxOrNull(generators.map((g) => g.process.heapPerClientKiB)),
    },
    roomStats: {
      fetched: fetched.length,
      missing: rooms.length - fetched.length,
      flushP99Ms: maxOrNull(fetched.map((r) => flushP99Ms(r.tkStats!.stats))),
      tickP99Ms: maxOrNull(fetched.map((r) => tickP99Ms(r.tkStats!.stats))),
      timerLateP99Ms: maxOrNull(fetched.map((r) => timerLateP99Ms(r.tkStats!.stats))),
    },
    rooms: roomsSummary,
  };
}

/** Assembles a report from merged room data and generator entries. */
export function assembleReport(args: {
  name: string;
  config: ResolvedConfig;
  environment: Environment;
  generators: GeneratorProcess[];
  rooms: RoomData[];
  createdAt?: string;
  merge?: Report["merge"];
}): Report {
  const total = mergeRoomData(args.rooms, "*");
  const saturationReasons = args.generators.flatMap((g) => g.saturationReasons);
  const report: Report = {
    format: REPORT_FORMAT,
    name: args.name,
    createdAt: args.createdAt ?? new Date().toISOString(),
    status: saturationReasons.length > 0 ? "generator_saturated" : "ok",
    saturationReasons,
    config: args.config,
    environment: args.environment,
    generators: args.generators,
    rooms: args.rooms,
    total,
    summary: summarize(args.rooms, total, args.generators),
  };
  if (args.merge) report.merge = args.merge;
  return report;
}

/** Default directory for reports: tools/loadtest/results (gitignored). */
export const RESULTS_DIR = fileURLToPath(new URL("../../results", import.meta.url));

/** A file-name-safe UTC timestamp: 2025-01-31T12-00-00Z. */
export function fileTimestamp(d = new Date()): string {
  return d.toISOString().replace(/\.\d+Z$/, "Z").replace(/:/g, "-");
}

/** Writes `<dir>/<timestamp>-<name>.json` and returns its path. */
export function writeReport(report: Report, dir: string = RESULTS_DIR): string {
  mkdirSync(dir, { recursive: true });
  const safe = report.name.replace(/[^A-Za-z0-9._-]+/g, "_");
  const path = join(dir, `${fileTimestamp(new Date(report.createdAt))}-${safe}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}

const fmt = (v: number | null, unit = ""): string => (v === null ? "n/a" : `${v}${unit}`);

function dist(d: DurationSummary): string {
  if (d.count === 0) return "no samples";
  return `p50 ${d.p50}  p95 ${d.p95}  p99 ${d.p99}  max ${d.max} ms  (n=${d.count})`;
}

function mapLine(m: Record<string, number>): string {
  const e = Object.entries(m);
  return e.length ? e.map(([k, v]) => `${k}:${v}`).join(" ") : "none";
}

/** Human summary table of a report. */
export function formatSummary(r: Report): string {
  const s = r.summary;
  const cfg = r.config;
  const lines: string[] = [];
  const kib = (b: number): string => `${round2(b / 1024)} KiB/s`;
  lines.push(`== ${r.name}  [${r.status}]  ${r.createdAt}  commit ${r.environment.commit}${r.environment.dirty ? "+dirty" : ""}`);
  const pace = cfg.turnBased
    ? `think ${cfg.turnBased.thinkMs} ms, keepalive ${cfg.turnBased.keepaliveMs || "off"}${cfg.turnBased.keepaliveMs ? " ms" : ""}`
    : `${cfg.rate} inputs/s`;
  lines.push(
    `   ${cfg.scenario}: ${cfg.players} players x ${cfg.rooms} rooms, ${cfg.durationSec}s after ${cfg.storm ? "storm" : `${cfg.rampSec}s ramp`}, ${pace}, ${cfg.url}${cfg.query ? `?${cfg.query}` : ""}`,
  );
  if (r.status !== "ok") for (const reason of r.saturationReasons) lines.push(`   !! GENERATOR SATURATED: ${reason}`);
  for (const w of r.merge?.warnings ?? []) lines.push(`   !! merge: ${w}`);
  const rows: [string, string][] = [
    ["clients", `${s.clients.joined}/${s.clients.planned} joined, ${s.clients.refused} refused (room_full), ${s.clients.throttled} throttled, ${s.clients.failed} failed`],
    ["join failures", mapLine(s.failureReasons)],
    ["unexpected closes", `${s.unexpectedCloses}  codes ${mapLine(s.closeCodes)}`],
    ["errors received", mapLine(s.errors)],
    ["room (welcome)", `tick ${s.tickMs.join("/") || "?"} ms, sync ${s.syncIntervalMs.join("/") || "?"} ms, expected gap ${s.expectedGapMs.join("/") || "?"} ms`],
    ["input->ack RTT", dist(s.ackRttMs)],
    [`spikes >${s.spikeThresholdMs}ms`, `${s.spikes}`],
    ["state frame gap", dist(s.frameGapMs)],
    ["gap jitter", dist(s.frameJitterMs)],
    ["connect->welcome", dist(s.connectMs)],
    ["inputs", `${s.inputs.sent} sent, ${s.inputs.acked} acked, ${s.inputs.unackedAtEnd} unacked at end, ${s.inputs.onSchedulePct}% on schedule (<=${s.inputs.onScheduleToleranceMs} ms late)`],
    ["schedule lag", dist(s.scheduleLagMs)],
    [
      "per client",
      `${s.perClient.framesPerSec} frames/s (${s.perClient.stateFramesPerSec} state), down ${kib(s.perClient.downlinkBytesPerSec)}, up ${kib(s.perClient.uplinkBytesPerSec)}, ${s.perClient.inputsPerSec} inputs/s`,
    ],
    [
      "room tk:stats",
      `${s.roomStats.fetched}/${s.roomStats.fetched + s.roomStats.missing} fetched, flush p99 ${fmt(s.roomStats.flushP99Ms, " ms")}, tick p99 ${fmt(s.roomStats.tickP99Ms, " ms")}, timer late p99 ${fmt(s.roomStats.timerLateP99Ms ?? null, " ms")}`,
    ],
    [
      "generator",
      `CPU ${s.generator.cpuPercent}% (100 = 1 core; machine ${s.generator.machineBusyPercent}% busy of ${r.environment.cpus} cores; ${fmt(s.generator.cpuMicrosPerMessage, " µs")}/message), event-loop p99 ${s.generator.eventLoopP99Ms} ms max ${s.generator.eventLoopMaxMs} ms, RSS ${fmt(s.generator.rssPerClientKiB, " KiB")}/client, heap ${fmt(s.generator.heapPerClientKiB, " KiB")}/client`,
    ],
  ];
  if (r.server) rows.push(...serverRows(r.server));
  if (cfg.turnBased) {
    rows.push(["idle per client", `down ${s.perClient.idle.downlinkBytesPerSec} B/s, up ${s.perClient.idle.uplinkBytesPerSec} B/s (keepalive only)`]);
  }
  if (s.decodeErrors) rows.push(["decode errors", String(s.decodeErrors)]);
  if (Object.keys(s.scenario).length) rows.push(["scenario", mapLine(s.scenario)]);
  const w = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) lines.push(`   ${k.padEnd(w)}  ${v}`);
  if (s.rooms.length > 1 || s.rooms.some((x) => x.tkStatsError)) {
    lines.push("");
    lines.push("   room                      joined  refused  failed  closes  ack p50  ack p99  ack max  jitter p99  spikes  frames/s  flush p99");
    lines.push("   (failed includes throttled; closes are unexpected closes; times in ms)");
    for (const x of s.rooms) {
      lines.push(
        `   ${x.roomId.padEnd(24).slice(0, 24)}  ${String(x.joined).padStart(6)}  ${String(x.refused).padStart(7)}  ${String(x.failed + x.throttled).padStart(6)}  ${String(x.unexpectedCloses).padStart(6)}  ${String(x.ackP50Ms).padStart(7)}  ${String(x.ackP99Ms).padStart(7)}  ${String(x.ackMaxMs).padStart(7)}  ${String(x.jitterP99Ms).padStart(10)}  ${String(x.spikes).padStart(6)}  ${String(x.framesPerSecPerClient).padStart(8)}  ${fmt(x.flushP99Ms).padStart(9)}${x.tkStatsError ? `  (${x.tkStatsError})` : ""}`,
      );
    }
  }
  return lines.join("\n");
}
