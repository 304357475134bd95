import {
  BinaryWriter,
  CloseCode,
  ErrorCode,
  Kind,
  MAX_CLIENT_FRAME_BYTES,
  PROTOCOL_VERSION,
  decodeServerMessage,
  encodeHello,
  encodeLeave,
  encodeStatsRequest,
  errorName,
  isDecodeError,
} from "@tikron/protocol";
import WebSocket from "ws";
import { AckOutcome, AckTracker } from "./metrics/ackTracker";
import { expectedGapMs, jitterMs } from "./metrics/gapJitter";
import type { RoomMetrics } from "./metrics/roomMetrics";
import { recordMs } from "./metrics/histogram";
import { SPIKE_THRESHOLD_MS } from "./metrics/spikes";
import type { Rng } from "./rng";
import type { FixedScheduler, Scheduled } from "./schedule";
import type { Scenario } from "./scenarios/scenario";
import { forEachEvent, frameHeader, isAckOnly, readFrameHeader, writeVaruint } from "./wire";

/** State shared by every simulated player of one thread (buffers are reused, never per client). */
export class ClientContext {
  /** INPUT frames are assembled here; ws copies the bytes while masking, so reuse is safe. */
  readonly frame: Buffer = Buffer.allocUnsafe(MAX_CLIENT_FRAME_BYTES);
  /** Scenario payloads are written here first, then copied behind their length prefix. */
  readonly payload: Uint8Array;
  readonly payloadView: DataView;
  /** For the rare messages (hello, statsRequest, leave). */
  readonly writer = new BinaryWriter(256);
  /** Inputs per INPUT frame when catching up: protocol limit and frame-size limit. */
  readonly maxBatch: number;

  constructor(
    readonly scenario: Scenario,
    readonly scheduler: FixedScheduler,
    readonly periodMs: number,
    /** performance.now() at which the measuring window (and the input schedule) ends. */
    readonly measureEndAt: number,
    readonly connectTimeoutMs: number,
    /** Routes a stats reply to whoever asked. */
    readonly onStats: (requestId: number, json: string) => void,
  ) {
    this.payload = new Uint8Array(Math.max(1, scenario.maxPayloadBytes));
    this.payloadView = new DataView(this.payload.buffer);
    // Worst case per input: 5-byte seq + 2-byte length + payload.
    this.maxBatch = Math.max(1, Math.min(16, Math.floor((MAX_CLIENT_FRAME_BYTES - 2) / (7 + scenario.maxPayloadBytes))));
  }
}

/** Lifecycle of one simulated player. */
export const ClientState = {
  Idle: 0,
  Connecting: 1,
  Joined: 2,
  Leaving: 3,
  Done: 4,
} as const;
export type ClientState = (typeof ClientState)[keyof typeof ClientState];

/** Golden-ratio phases spread players' inputs evenly over the period instead of in bursts. */
const PHASE_STEP = 0.6180339887498949;

const WS_OPTIONS: WebSocket.ClientOptions = {
  perMessageDeflate: false,
  skipUTF8Validation: true,
  maxPayload: 1 << 24,
};

function failureReason(err: Error & { code?: string }): string {
  const m = /Unexpected server response: (\d+)/.exec(err.message);
  if (m) return `http_${m[1]}`;
  if (err.code) return err.code;
  return err.message.slice(0, 60) || "error";
}

/**
 * One simulated player: joins, sends inputs on the fixed schedule, and measures what comes back
 * into its room's metrics. Per message it parses the FRAME header in place and allocates nothing
 * of its own.
 */
export class SimClient implements Scheduled {
  dueAt = 0;
  readonly periodMs: number;
  heapIndex = -1;
  state: ClientState = ClientState.Idle;

  private ws: WebSocket | null = null;
  private tracker: AckTracker | null = null;
  private outcomeSet = false;
  private settled = false;
  private connectStartedAt = 0;
  private welcomeAt = 0;
  private lastStateAt = -1;
  private expectedGap = 0;
  private connectTimer: ReturnType<typeof setTimeout> | null = null;
  private closeWaiter: (() => void) | null = null;
  private readonly player: unknown;

  constructor(
    /** Global index of the player in the run (all shards). */
    readonly index: number,
    readonly room: RoomMetrics,
    private readonly ctx: ClientContext,
    private readonly url: string,
    private readonly rng: Rng,
  ) {
    this.periodMs = ctx.periodMs;
    this.player = ctx.scenario.createPlayer(rng, ctx.periodMs);
  }

  /** Opens the socket and says hello; the outcome lands in the room's counters. */
  connect(): void {
    if (this.state !== ClientState.Idle) return;
    this.state = ClientState.Connecting;
    this.connectStartedAt = performance.now();
    const ws = new WebSocket(this.url, WS_OPTIONS);
    this.ws = ws;
    ws.on("open", this.onOpen);
    ws.on("message", this.onMessage);
    ws.on("error", this.onError);
    ws.on("close", this.onClose);
    this.connectTimer = setTimeout(this.onConnectTimeout, this.ctx.connectTimeoutMs);
  }

  private readonly onOpen = (): void => {
    const w = this.ctx.writer.reset();
    encodeHello(w, { version: PROTOCOL_VERSION, token: "", name: `lt${this.index}` });
    this.ws!.send(w.peek());
  };

  private readonly onConnectTimeout = (): void => {
    this.connectTimer = null;
    if (this.state !== ClientState.Connecting) return;
    this.setOutcome("timeout");
    this.ws?.terminate();
  };

  private setOutcome(kind: "refused" | "throttled" | string): void {
    if (this.outcomeSet) return;
    this.outcomeSet = true;
    if (kind === "refused") this.room.counters.refused++;
    else if (kind === "throttled") this.room.counters.throttled++;
    else this.room.failure(kind);
  }

  private readonly onError = (err: Error): void => {
    if (this.state === ClientState.Connecting) this.setOutcome(failureReason(err));
    // After the join the close event that follows does the accounting; the cause is kept so an
    // unexpected close can be explained.
    else if (this.state === ClientState.Joined) this.room.error(`socket:${failureReason(err)}`);
  };

  private readonly onClose = (code: number): void => {
    const now = performance.now();
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    if (this.state === ClientState.Connecting) {
      if (code === CloseCode.room_full) this.setOutcome("refused");
      else if (code === CloseCode.join_throttled) this.setOutcome("throttled");
      else this.setOutcome(`close_${code}`);
    } else if (this.state === ClientState.Joined) {
      this.settle(now);
      this.room.unexpectedClose(code);
    }
    this.ctx.scheduler.remove(this);
    this.state = ClientState.Done;
    this.ws = null;
    const waiter = this.closeWaiter;
    this.closeWaiter = null;
    waiter?.();
  };

  private readonly onMessage = (data: Buffer, isBinary: boolean): void => {
    const now = performance.now();
    const room = this.room;
    const measuring = now < this.ctx.measureEndAt;
    if (measuring) room.counters.bytesRx += data.length;
    if (!isBinary) {
      room.counters.decodeErrors++;
      return;
    }
    if (data[0] === Kind.Frame) {
      if (!readFrameHeader(data)) {
        room.counters.decodeErrors++;
        return;
      }
      const h = frameHeader;
      if (measuring) room.counters.framesRx++;
      if (h.ackSeq >= 0 && this.tracker !== null && this.state === ClientState.Joined) {
        if (this.tracker.resolve(h.ackSeq, now, room) === AckOutcome.Regression) room.counters.ackRegressions++;
      }
      if (!isAckOnly(h)) {
        if (measuring) {
          room.counters.stateFrames++;
          if (this.lastStateAt >= 0) {
            const gap = now - this.lastStateAt;
            room.stateFrame(gap, jitterMs(gap, this.expectedGap));
          }
        }
        this.lastStateAt = now;
      }
      if (h.eventCount > 0 && this.ctx.scenario.onEvent && measuring) {
        forEachEvent(data, this.visitEvent);
      }
      return;
    }
    this.onRareMessage(data, now);
  };

  private readonly visitEvent = (buf: Uint8Array, offset: number, length: number): void => {
    this.ctx.scenario.onEvent!(this.player, buf, offset, length, this.room.scenario);
  };

  private onRareMessage(data: Buffer, now: number): void {
    const msg = decodeServerMessage(data);
    if (isDecodeError(msg)) {
      this.room.counters.decodeErrors++;
      return;
    }
    switch (msg.kind) {
      case "welcome": {
        if (this.state !== ClientState.Connecting) return;
        if (this.connectTimer) clearTimeout(this.connectTimer);
        this.connectTimer = null;
        this.state = ClientState.Joined;
        this.outcomeSet = true;
        this.welcomeAt = now;
        const room = this.room;
        room.counters.joined++;
        recordMs(room.connectH, now - this.connectStartedAt);
        this.expectedGap = expectedGapMs(msg.tickMs, msg.syncIntervalMs);
        if (room.info === null) {
          room.info = {
            roomKind: msg.roomKind,
            tickMs: msg.tickMs,
            syncIntervalMs: msg.syncIntervalMs,
            cap: msg.cap,
            expectedGapMs: this.expectedGap,
          };
        }
        this.tracker = new AckTracker(msg.lastSeq + 1);
        this.ctx.scenario.onWelcome?.(this.player, {
          playerId: msg.playerId,
          tickMs: msg.tickMs,
          roomEpoch: msg.roomEpoch,
          clockOffsetMs: msg.serverTime - Date.now(),
        });
        const phase = ((this.index * PHASE_STEP) % 1) * this.periodMs;
        this.ctx.scheduler.add(this, now + phase);
        return;
      }
      case "error": {
        const name = errorName(msg.code);
        this.room.error(name);
        if (this.state === ClientState.Connecting) {
          if (msg.code === ErrorCode.room_full) this.setOutcome("refused");
          else if (msg.code === ErrorCode.join_throttled) this.setOutcome("throttled");
        }
        return;
      }
      case "stats":
        this.ctx.onStats(msg.requestId, msg.json);
        return;
      default:
        return;
    }
  }

  /** Scheduler callback: sends `count` due inputs, batched ≤ maxBatch per INPUT frame. */
  fire(firstDueAt: number, count: number, _now: number): void {
    const ws = this.ws;
    const tracker = this.tracker;
    if (this.state !== ClientState.Joined || ws === null || tracker === null || ws.readyState !== WebSocket.OPEN) return;
    const ctx = this.ctx;
    const buf = ctx.frame;
    const payload = ctx.payload;
    const period = this.periodMs;
    const room = this.room;
    let due = firstDueAt;
    let remaining = count;
    while (remaining > 0) {
      const n = remaining < ctx.maxBatch ? remaining : ctx.maxBatch;
      buf[0] = Kind.Input;
      buf[1] = n;
      let off = 2;
      for (let j = 0; j < n; j++) {
        off = writeVaruint(buf, off, tracker.track(due + j * period));
        const len = ctx.scenario.writeInput(this.player, this.rng, ctx.payloadView, 0, room.scenario);
        off = writeVaruint(buf, off, len);
        for (let b = 0; b < len; b++) buf[off + b] = payload[b];
        off += len;
      }
      const sentAt = performance.now();
      ws.send(buf.subarray(0, off));
      room.counters.inputFrames++;
      if (sentAt < ctx.measureEndAt) room.counters.bytesTx += off;
      for (let j = 0; j < n; j++) room.inputSent(sentAt - (due + j * period));
      due += n * period;
      remaining -= n;
    }
  }

  /** Asks the room for its tk:stats; false when this client cannot (not joined / socket gone). */
  requestStats(requestId: number): boolean {
    const ws = this.ws;
    if (this.state !== ClientState.Joined || ws === null || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(encodeStatsRequest(this.ctx.writer.reset(), requestId).peek());
    return true;
  }

  /** True while the client holds a seat. */
  get joined(): boolean {
    return this.state === ClientState.Joined;
  }

  /** Inputs sent and not yet acked (0 when not joined). */
  get outstanding(): number {
    return this.tracker?.outstanding ?? 0;
  }

  /**
   * Final accounting of a joined client: time joined inside the window, inputs never acked,
   * and a stall when the oldest of them has waited past the spike threshold.
   */
  private settle(now: number): void {
    if (this.settled || this.welcomeAt === 0) return;
    this.settled = true;
    const c = this.room.counters;
    const end = now < this.ctx.measureEndAt ? now : this.ctx.measureEndAt;
    if (end > this.welcomeAt) c.activeClientMs += end - this.welcomeAt;
    const t = this.tracker;
    if (t) {
      c.inputsUnackedAtEnd += t.outstanding;
      c.ackBeyondSent += t.ackBeyondSent;
      c.inputsUntracked += t.untracked;
      const oldest = t.oldestScheduledAt();
      if (t.outstanding > 0 && now - oldest > SPIKE_THRESHOLD_MS) c.stalledAtEnd++;
    }
  }

  /**
   * Leaves for good (LEAVE, then close 1000) and resolves once the socket is closed or after
   * `timeoutMs`, when it is terminated. A client still connecting counts as a timed-out join.
   */
  leave(timeoutMs: number): Promise<void> {
    const ws = this.ws;
    if (ws === null || this.state === ClientState.Done || this.state === ClientState.Idle) return Promise.resolve();
    const now = performance.now();
    if (this.state === ClientState.Connecting) {
      this.setOutcome("timeout");
    } else if (this.state === ClientState.Joined) {
      this.settle(now);
      if (ws.readyState === WebSocket.OPEN) ws.send(encodeLeave(this.ctx.writer.reset()).peek());
    }
    this.ctx.scheduler.remove(this);
    this.state = ClientState.Leaving;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.closeWaiter = null;
        ws.terminate();
        resolve();
      }, timeoutMs);
      this.closeWaiter = () => {
        clearTimeout(timer);
        resolve();
      };
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(CloseCode.normal);
    });
  }
}
