import type { Histogram } from "hdr-histogram-js";
import type { AckSink } from "./ackTracker";
import { encodeHistogram, newHistogram, recordMs } from "./histogram";
import { ON_SCHEDULE_TOLERANCE_MS } from "./scheduleAccounting";

/** The run-wide 1 s window histograms (reset by the live sampler every second). */
export interface LiveWindow {
  readonly ackRtt: Histogram;
  readonly frameGap: Histogram;
}

/** Plain counters of one room; every field is summed when shards or rooms are merged. */
export interface RoomCounters {
  /** Clients this run assigned to the room. */
  planned: number;
  /** Clients that received a welcome. */
  joined: number;
  /** Refused with room_full (ERROR code or close 4002): capacity working as designed. */
  refused: number;
  /** Refused with join_throttled (ERROR code or close 4009). */
  throttled: number;
  /** Never joined for any other reason (socket error, HTTP status, timeout, other close). */
  failed: number;
  /** Joined clients closed by the server or the network before the run ended. */
  unexpectedCloses: number;
  inputsSent: number;
  /** Inputs that left within ON_SCHEDULE_TOLERANCE_MS of their scheduled time. */
  inputsOnSchedule: number;
  /** INPUT frames sent (one frame carries several inputs when the generator had to catch up). */
  inputFrames: number;
  inputsAcked: number;
  /** Inputs still unacked when the clients left (after the drain wait). */
  inputsUnackedAtEnd: number;
  /** Inputs dropped from ack tracking after waiting for minutes. */
  inputsUntracked: number;
  /** Acks whose oldest resolved input waited longer than the spike threshold. */
  ackSpikes: number;
  /** Clients whose oldest unacked input was older than the spike threshold when they left. */
  stalledAtEnd: number;
  /** Acks lower than an earlier ack on the same connection. */
  ackRegressions: number;
  /** Acks naming a seq the client never sent. */
  ackBeyondSent: number;
  /** FRAME messages received during the measuring window. */
  framesRx: number;
  /** FRAMEs that carried state (anything but a bare ack); these define gap and jitter. */
  stateFrames: number;
  /** WebSocket payload bytes received during the measuring window (framing excluded). */
  bytesRx: number;
  /** WebSocket payload bytes sent during the measuring window (framing excluded). */
  bytesTx: number;
  /** Of bytesRx: keepalive replies (pongs), the traffic an idle seated client still gets. */
  keepaliveBytesRx: number;
  /** Of bytesTx: keepalive pings, the traffic an idle seated client still sends. */
  keepaliveBytesTx: number;
  /** Sum over joined clients of the ms each spent joined inside the measuring window. */
  activeClientMs: number;
  /** Server messages that failed to decode. */
  decodeErrors: number;
  /** Joined players that left on plan before the window ended (stages ramping down, churn). */
  left: number;
  /** Sockets dropped on purpose (`--drop`). */
  dropped: number;
  /** Dropped players whose welcome said `reconnected: true` (back in their seat). */
  reconnected: number;
  /** Dropped players that got a welcome without `reconnected` (their seat was gone). */
  reconnectNewSeat: number;
  /** Dropped players never welcomed again before giving up or the run's end. */
  reconnectFailed: number;
  /** Inputs in flight (sent, unacked) when their socket was dropped. */
  inputsLostOnDrop: number;
  /** INPUT frames sent before the steady window (the part of the run after the ramp) began. */
  inputFramesBeforeSteady: number;
  /** FRAMEs received before the steady window began. */
  framesRxBeforeSteady: number;
  /**
   * Clients that joined but received less than 99% of the state frames the room's cadence
   * promises over the steady window (steadyWindow.ts).
   */
  clientsShortOfFrames: number;
  /** Matchmaking runs: seat answers that said this run's request created the room (0 or 1). */
  matchCreated: number;
}

/** Room parameters as announced by the server in welcome (first welcome seen). */
export interface RoomInfo {
  roomKind: string;
  tickMs: number;
  syncIntervalMs: number;
  cap: number;
  /** Cadence gaps are compared against (see expectedGapMs). */
  expectedGapMs: number;
}

/** The room's own `tk:stats` snapshot, fetched once at the end of the run. */
export interface RoomStatsSnapshot {
  /** Parsed JSON exactly as the room sent it. */
  stats: unknown;
  /** Epoch ms when it arrived. */
  fetchedAt: number;
}

/** Serializable, mergeable metrics of one room (or of several rooms or shards merged). */
export interface RoomData {
  roomId: string;
  info: RoomInfo | null;
  counters: RoomCounters;
  /** Unexpected close codes → count (joined clients only). */
  closeCodes: Record<string, number>;
  /** Why joins failed → count (refusals are counted separately). */
  failureReasons: Record<string, number>;
  /** ERROR messages received, by error name → count. */
  errors: Record<string, number>;
  /** Scenario-specific counters (e.g. shot events delivered). */
  scenario: Record<string, number>;
  /** HdrHistogram V2 compressed base64, microseconds. */
  histograms: {
    /** Input → ack, from the input's scheduled send time. */
    ackRtt: string;
    /** Time between consecutive state frames on one connection. */
    frameGap: string;
    /** |gap − expected gap|. */
    frameJitter: string;
    /** Actual send time − scheduled time, per input. */
    scheduleLag: string;
    /** Connect start → welcome. */
    connect: string;
    /** Drop → welcome again (reconnect storms only; absent in reports without drops). */
    reconnect?: string;
    /**
     * When each dropped player was welcomed again, ms since the run's start (a server restart's
     * storm, `--restart-at`: the report subtracts the moment the server answered again; to the
     * histogram's 3 digits, i.e. ±0.1 % of the time since the start).
     */
    reconnectAt?: string;
    /** Match request sent → welcome (matchmaking runs only; absent when nobody was seated). */
    seated?: string;
  };
  tkStats: RoomStatsSnapshot | null;
  /** Why the tk:stats snapshot is missing, when it is. */
  tkStatsError: string | null;
}

/** All counters at zero. */
export function zeroCounters(): RoomCounters {
  return {
    planned: 0,
    joined: 0,
    refused: 0,
    throttled: 0,
    failed: 0,
    unexpectedCloses: 0,
    inputsSent: 0,
    inputsOnSchedule: 0,
    inputFrames: 0,
    inputsAcked: 0,
    inputsUnackedAtEnd: 0,
    inputsUntracked: 0,
    ackSpikes: 0,
    stalledAtEnd: 0,
    ackRegressions: 0,
    ackBeyondSent: 0,
    framesRx: 0,
    stateFrames: 0,
    bytesRx: 0,
    bytesTx: 0,
    keepaliveBytesRx: 0,
    keepaliveBytesTx: 0,
    activeClientMs: 0,
    decodeErrors: 0,
    left: 0,
    dropped: 0,
    reconnected: 0,
    reconnectNewSeat: 0,
    reconnectFailed: 0,
    inputsLostOnDrop: 0,
    inputFramesBeforeSteady: 0,
    framesRxBeforeSteady: 0,
    clientsShortOfFrames: 0,
    matchCreated: 0,
  };
}

function bump(map: Record<string, number>, key: string, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

/**
 * Live metrics of one room inside one generator thread. Clients of the room write straight into
 * it (no per-client histograms: one HDR histogram is tens of KiB).
 */
export class RoomMetrics implements AckSink {
  readonly counters: RoomCounters = zeroCounters();
  info: RoomInfo | null = null;
  readonly closeCodes: Record<string, number> = {};
  readonly failureReasons: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  readonly scenario: Record<string, number> = {};
  readonly ackRttH: Histogram = newHistogram();
  readonly frameGapH: Histogram = newHistogram();
  readonly frameJitterH: Histogram = newHistogram();
  readonly scheduleLagH: Histogram = newHistogram();
  readonly connectH: Histogram = newHistogram();
  readonly reconnectH: Histogram = newHistogram();
  /** Reconnect welcomes, ms since the run's start (see `RoomData.histograms.reconnectAt`). */
  readonly reconnectAtH: Histogram = newHistogram();
  /** Match request sent → welcome, per player seated through the matchmaker. */
  readonly seatedH: Histogram = newHistogram();
  /** Players holding an open, welcomed socket right now (a gauge for live progress, not merged). */
  connected = 0;
  /**
   * Where the live 1 s window records too (see live/liveSampler.ts); null when nobody samples.
   * Shared by every room of the thread: the window is run-wide.
   */
  window: LiveWindow | null = null;
  tkStats: RoomStatsSnapshot | null = null;
  tkStatsError: string | null = null;

  constructor(readonly roomId: string) {}

  ackRtt(rttMs: number): void {
    this.counters.inputsAcked++;
    recordMs(this.ackRttH, rttMs);
    if (this.window !== null) recordMs(this.window.ackRtt, rttMs);
  }

  ackSpike(): void {
    this.counters.ackSpikes++;
  }

  inputSent(lagMs: number): void {
    this.counters.inputsSent++;
    if (lagMs <= ON_SCHEDULE_TOLERANCE_MS) this.counters.inputsOnSchedule++;
    recordMs(this.scheduleLagH, lagMs);
  }

  stateFrame(gapMs: number, jitterMs: number): void {
    recordMs(this.frameGapH, gapMs);
    if (this.window !== null) recordMs(this.window.frameGap, gapMs);
    recordMs(this.frameJitterH, jitterMs);
  }

  failure(reason: string): void {
    this.counters.failed++;
    bump(this.failureReasons, reason);
  }

  unexpectedClose(code: number): void {
    this.counters.unexpectedCloses++;
    bump(this.closeCodes, String(code));
  }

  error(name: string): void {
    bump(this.errors, name);
  }

  /** Snapshot in the serializable, mergeable form. */
  toData(): RoomData {
    return {
      roomId: this.roomId,
      info: this.info,
      counters: { ...this.counters },
      closeCodes: { ...this.closeCodes },
      failureReasons: { ...this.failureReasons },
      errors: { ...this.errors },
      scenario: { ...this.scenario },
      histograms: {
        ackRtt: encodeHistogram(this.ackRttH),
        frameGap: encodeHistogram(this.frameGapH),
        frameJitter: encodeHistogram(this.frameJitterH),
        scheduleLag: encodeHistogram(this.scheduleLagH),
        connect: encodeHistogram(this.connectH),
        ...(this.counters.dropped > 0 ? { reconnect: encodeHistogram(this.reconnectH) } : {}),
        ...(this.reconnectAtH.totalCount > 0 ? { reconnectAt: encodeHistogram(this.reconnectAtH) } : {}),
        ...(this.seatedH.totalCount > 0 ? { seated: encodeHistogram(this.seatedH) } : {}),
      },
      tkStats: this.tkStats,
      tkStatsError: this.tkStats ? null : this.tkStatsError,
    };
  }
}
