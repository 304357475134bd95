/**
 * The summary: every human-facing figure of a run (or of one room), derived from the mergeable
 * data and recomputed after every merge, so a merged report reads exactly like one process that
 * saw every sample.
 */
import type { SpectatorSummary } from "./spectatorSummary";
import type { GeneratorProcess } from "./generatorProcess";
import { summarizeEncoded, type DurationSummary } from "./histogram";
import type { MatchData } from "./matchMetrics";
import { summarizeMatch, type MatchSummary } from "./matchSummary";
import { summarizeRestart, type RestartSummary, type RestartTimes } from "./restartSummary";
import type { RoomData } from "./roomMetrics";
import { round2 } from "./round2";
import { ON_SCHEDULE_TOLERANCE_MS, onSchedulePct } from "./scheduleAccounting";
import { SPIKE_THRESHOLD_MS } from "./spikes";
import { busyPct, flushP99Ms, flushSliceP99Ms, relayCount, relaysBusyPct, tickP99Ms, timerLateP99Ms } from "./tkStats";

/** Figures derived from the mergeable data; recomputed after every merge. */
export interface Summary {
  /** The run's spectators (`--spectators N`; run/spectatorSwarm.ts), when it had any. */
  spectators?: SpectatorSummary;
  /** In a matchmaking run, players never seated by the matchmaker count as planned and failed (`match:<reason>`). */
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
  /** Match request sent → welcome, when players were seated through the matchmaker. */
  seatedMs?: DurationSummary;
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
    /** Worst room's p99 of a flush's longest slice (ms): the longest task a flush ran. */
    flushSliceP99Ms?: number | null;
    tickP99Ms: number | null;
    /** Worst room's tick-timer lateness p99 (ms): how long the timer waited behind other work. */
    timerLateP99Ms?: number | null;
    /**
     * The busiest room object's own time, % of one thread over the room's last 10 s before the
     * final fetch (tk:stats `busy`; a relayed room's simulation alone); null when not metered.
     */
    busyPct?: number | null;
    /** The most relays' own time of one room, summed, % of one thread (tk:stats `relays[].busy`); null without relays. */
    relaysBusyPct?: number | null;
    /** The most relays one room listed (0: single rooms). */
    relays?: number;
  };
  rooms: RoomSummary[];
  /** Matchmaking runs: requests, refusals, rooms created and their fill, over-cap seats, reservations. */
  match?: MatchSummary;
  /** Runs that restarted their server (`--restart-at`): when, how fast players were back, worlds restored. */
  restart?: RestartSummary;
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

/** Failure reasons with the matchmaking run's unmatched players added as `match:<reason>`. */
function withUnmatched(reasons: Record<string, number>, match: MatchData | undefined): Record<string, number> {
  if (!match || match.counters.unmatched === 0) return reasons;
  const out = { ...reasons };
  for (const [k, v] of Object.entries(match.unmatchedReasons)) out[`match:${k}`] = (out[`match:${k}`] ?? 0) + v;
  return out;
}

/** Derives every human-facing figure from the mergeable data (and a matchmaking run's match data). */
export function summarize(rooms: readonly RoomData[], total: RoomData, generators: readonly GeneratorProcess[], match?: MatchData, restart?: RestartTimes): Summary {
  const c = total.counters;
  const infos = rooms.map((r) => r.info).filter((i) => i !== null);
  const threads = generators.flatMap((g) => g.threads);
  const roomsSummary = rooms.map(roomSummary);
  const fetched = rooms.filter((r) => r.tkStats !== null);
  const unmatched = match?.counters.unmatched ?? 0;
  return {
    clients: { planned: c.planned + unmatched, joined: c.joined, refused: c.refused, throttled: c.throttled, failed: c.failed + unmatched },
    failureReasons: withUnmatched(total.failureReasons, match),
    unexpectedCloses: c.unexpectedCloses,
    closeCodes: total.closeCodes,
    errors: total.errors,
    ackRttMs: summarizeEncoded(total.histograms.ackRtt),
    frameGapMs: summarizeEncoded(total.histograms.frameGap),
    frameJitterMs: summarizeEncoded(total.histograms.frameJitter),
    connectMs: summarizeEncoded(total.histograms.connect),
    scheduleLagMs: summarizeEncoded(total.histograms.scheduleLag),
    ...(total.histograms.reconnect ? { reconnectMs: summarizeEncoded(total.histograms.reconnect) } : {}),
    ...(total.histograms.seated ? { seatedMs: summarizeEncoded(total.histograms.seated) } : {}),
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
      flushSliceP99Ms: maxOrNull(fetched.map((r) => flushSliceP99Ms(r.tkStats!.stats))),
      tickP99Ms: maxOrNull(fetched.map((r) => tickP99Ms(r.tkStats!.stats))),
      timerLateP99Ms: maxOrNull(fetched.map((r) => timerLateP99Ms(r.tkStats!.stats))),
      busyPct: maxOrNull(fetched.map((r) => busyPct(r.tkStats!.stats))),
      relaysBusyPct: maxOrNull(fetched.map((r) => relaysBusyPct(r.tkStats!.stats))),
      relays: fetched.reduce((n, r) => Math.max(n, relayCount(r.tkStats!.stats)), 0),
    },
    rooms: roomsSummary,
    ...(match ? { match: summarizeMatch(match, rooms, total, restart !== undefined) } : {}),
    ...(restart ? { restart: summarizeRestart(restart, rooms, total) } : {}),
  };
}
