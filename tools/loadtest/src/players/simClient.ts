import {
  encodeReceipt,
  FrameHeaderReader,
  FrameWriter,
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
import { AckOutcome } from "../metrics/ackTracker";
import { jitterMs } from "../metrics/gapJitter";
import type { RoomMetrics } from "../metrics/roomMetrics";
import type { Rng } from "../scenarios/rng";
import type { Scenario } from "../scenarios/scenario";
import type { FixedScheduler } from "./schedule";
import { ClientState, PHASE_STEP, SimSocket, type SocketContext } from "./simSocket";

/** State shared by every simulated player of one thread (buffers are reused, never per client). */
export class ClientContext implements SocketContext {
  /** INPUT frames are assembled here; ws copies the bytes while masking, so reuse is safe. */
  readonly frame = new FrameWriter(MAX_CLIENT_FRAME_BYTES);
  /** Scenario payloads are written here first, then copied behind their length prefix. */
  readonly payload = new FrameWriter(1024);
  /** For the rare messages (hello, statsRequest, leave). */
  readonly writer = new FrameWriter(256);
  /** Every FRAME's header is read here, in place: one reader per thread, none per message. */
  readonly frames = new FrameHeaderReader();
  /** Inputs per INPUT frame when catching up: protocol limit and frame-size limit. */
  readonly maxBatch: number;

  constructor(
    readonly scenario: Scenario,
    readonly scheduler: FixedScheduler,
    readonly periodMs: number,
    /** performance.now() at which the measuring window (and the input schedule) ends. */
    public measureEndAt: number,
    readonly connectTimeoutMs: number,
    /** Routes a stats reply to whoever asked. */
    readonly onStats: (requestId: number, json: string) => void,
  ) {
    // Worst case per input: 5-byte seq + 2-byte length + payload.
    this.maxBatch = Math.max(1, Math.min(16, Math.floor((MAX_CLIENT_FRAME_BYTES - 2) / (7 + scenario.maxPayloadBytes))));
  }
}

/**
 * One simulated player of a binary room: sends inputs on the fixed schedule and measures what
 * comes back into its room's metrics. Per message it parses the FRAME header in place and
 * allocates nothing of its own.
 */
export class SimClient extends SimSocket {
  readonly periodMs: number;

  private lastStateAt = -1;
  private readonly player: unknown;

  constructor(
    index: number,
    room: RoomMetrics,
    private readonly ctx: ClientContext,
    url: string,
    private readonly rng: Rng,
  ) {
    super(index, room, ctx, url);
    this.periodMs = ctx.periodMs;
    this.player = ctx.scenario.createPlayer(rng, ctx.periodMs);
  }

  protected override sendHello(ws: WebSocket): void {
    const w = this.ctx.writer.reset();
    encodeHello(w, { version: PROTOCOL_VERSION, token: this.token, name: `lt${this.index}` });
    ws.send(w.peek());
  }

  protected override sendLeave(ws: WebSocket): void {
    ws.send(encodeLeave(this.ctx.writer.reset()).peek());
  }

  protected override readonly onMessage = (data: Buffer, isBinary: boolean): void => {
    const now = performance.now();
    const room = this.room;
    const measuring = now < this.ctx.measureEndAt;
    if (measuring) room.counters.bytesRx += data.length;
    if (this.receipts.read(this.ws, data)) this.ws?.send(encodeReceipt(this.ctx.writer.reset(), this.receipts.messages, this.receipts.units).peek());
    if (!isBinary) {
      room.counters.decodeErrors++;
      return;
    }
    if (data[0] === Kind.Frame) {
      const h = this.ctx.frames;
      if (h.read(data) !== null) {
        room.counters.decodeErrors++;
        return;
      }
      if (measuring) {
        room.counters.framesRx++;
        this.cadenceFramesRx++;
      }
      if (h.ackSeq >= 0 && this.tracker !== null && this.state === ClientState.Joined) {
        if (this.tracker.resolve(h.ackSeq, now, room) === AckOutcome.Regression) room.counters.ackRegressions++;
      }
      if (!h.ackOnly) {
        if (measuring) {
          room.counters.stateFrames++;
          this.stateFramesRx++;
          if (this.lastStateAt >= 0) {
            const gap = now - this.lastStateAt;
            room.stateFrame(gap, jitterMs(gap, this.expectedGap));
          }
        }
        this.lastStateAt = now;
      }
      if (h.eventCount > 0 && this.ctx.scenario.onEvent && measuring) {
        h.forEachEvent(data, this.visitEvent);
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
        if (!this.welcomed(msg, now)) return;
        // A new connection (first join or back after a drop): gaps count within one connection.
        this.lastStateAt = -1;
        this.ctx.scenario.onWelcome?.(this.player, {
          playerId: msg.playerId,
          tickMs: msg.tickMs,
          roomEpoch: msg.roomEpoch,
          clockOffsetMs: msg.serverTime - Date.now(),
        });
        // An idle player (rate 0) sends nothing: it joins and reads.
        if (Number.isFinite(this.periodMs)) this.ctx.scheduler.add(this, now + ((this.index * PHASE_STEP) % 1) * this.periodMs);
        return;
      }
      case "error":
        this.serverError(msg.code, errorName(msg.code));
        return;
      case "stats":
        this.ctx.onStats(msg.requestId, JSON.stringify(msg.stats));
        return;
      default:
        return;
    }
  }

  /** Scheduler callback: sends `count` due inputs, batched ≤ maxBatch per INPUT frame. */
  override fire(firstDueAt: number, count: number, _now: number): void {
    const ws = this.ws;
    const tracker = this.tracker;
    if (this.state !== ClientState.Joined || ws === null || tracker === null || ws.readyState !== WebSocket.OPEN) return;
    const ctx = this.ctx;
    const fw = ctx.frame;
    const payload = ctx.payload;
    const maxPayload = ctx.scenario.maxPayloadBytes;
    const period = this.periodMs;
    const room = this.room;
    let due = firstDueAt;
    let remaining = count;
    while (remaining > 0) {
      const n = remaining < ctx.maxBatch ? remaining : ctx.maxBatch;
      fw.reset().u8(Kind.Input).u8(n);
      for (let j = 0; j < n; j++) {
        fw.varuint(tracker.track(due + j * period));
        ctx.scenario.writeInput(this.player, this.rng, payload.reset(), room.scenario);
        const len = payload.offset;
        if (len > maxPayload) throw new Error(`scenario ${ctx.scenario.name} wrote ${len} bytes, above its maxPayloadBytes ${maxPayload}`);
        fw.varuint(len).copyFrom(payload, 0, len);
      }
      const off = fw.offset;
      const sentAt = performance.now();
      ws.send(fw.peek());
      room.counters.inputFrames++;
      if (sentAt < ctx.measureEndAt) room.counters.bytesTx += off;
      for (let j = 0; j < n; j++) room.inputSent(sentAt - (due + j * period));
      due += n * period;
      remaining -= n;
    }
  }

  override requestStats(requestId: number): boolean {
    const ws = this.ws;
    if (this.state !== ClientState.Joined || ws === null || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(encodeStatsRequest(this.ctx.writer.reset(), requestId).peek());
    return true;
  }
}
