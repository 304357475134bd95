import { JSON_KEEPALIVE, PROTOCOL_VERSION, decodeJsonServerMessage, isDecodeError } from "@tikron/protocol";
import WebSocket from "ws";
import { AckOutcome } from "../metrics/ackTracker";
import type { RoomMetrics } from "../metrics/roomMetrics";
import type { Rng } from "../scenarios/rng";
import type { TextScenario } from "../scenarios/scenario";
import type { FixedScheduler, Scheduled } from "./schedule";
import { ClientState, PHASE_STEP, SimSocket, type SocketContext } from "./simSocket";

/** State shared by every text-mode player of one thread. */
export class JsonClientContext implements SocketContext {
  constructor(
    readonly scenario: TextScenario,
    /** Moves and keepalives share the thread's one timer heap. */
    readonly scheduler: FixedScheduler,
    /** Delay between seeing that a player may act and its input's scheduled send time (ms). */
    readonly thinkMs: number,
    /** Keepalive ping period (ms); 0 sends none. */
    readonly keepaliveMs: number,
    public measureEndAt: number,
    readonly connectTimeoutMs: number,
    readonly onStats: (requestId: number, json: string) => void,
  ) {}
}

/** The periodic keepalive ping of one client, as its own entry on the fixed schedule. */
class Keepalive implements Scheduled {
  dueAt = 0;
  heapIndex = -1;
  constructor(
    readonly periodMs: number,
    private readonly client: JsonSimClient,
  ) {}

  fire(): void {
    this.client.sendKeepalive();
  }
}

/**
 * One simulated player of a JSON text-mode room. It sends an input only when the last state
 * gives it something to do: the input is scheduled at "state seen + think time" as a one-shot
 * entry on the thread's fixed scheduler (period Infinity), so each input's lateness and its
 * input → ack RTT count from that scheduled time, as for fixed-rate players. While nothing is
 * due it sends only its keepalive ping, whose bytes are counted apart: they are what an idle
 * seated player costs.
 *
 * Text messages are parsed with `JSON.parse`, which allocates; a turn-based player receives a
 * handful per second, so this path is not the generator's hot path.
 */
export class JsonSimClient extends SimSocket {
  /** Each input is scheduled on its own when the game allows it: a one-shot entry. */
  readonly periodMs = Infinity;

  private readonly player: unknown;
  private readonly keepalive: Keepalive | null;

  constructor(
    index: number,
    room: RoomMetrics,
    private readonly ctx: JsonClientContext,
    url: string,
    private readonly rng: Rng,
  ) {
    super(index, room, ctx, url);
    this.player = ctx.scenario.createPlayer(rng);
    this.keepalive = ctx.keepaliveMs > 0 ? new Keepalive(ctx.keepaliveMs, this) : null;
  }

  protected override sendHello(ws: WebSocket): void {
    ws.send(JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name: `lt${this.index}` }));
  }

  protected override sendLeave(ws: WebSocket): void {
    ws.send('{"t":"leave"}');
  }

  protected override unschedule(): void {
    super.unschedule();
    if (this.keepalive) this.ctx.scheduler.remove(this.keepalive);
  }

  protected override readonly onMessage = (data: Buffer, isBinary: boolean): void => {
    const now = performance.now();
    const room = this.room;
    const measuring = now < this.ctx.measureEndAt;
    if (measuring) room.counters.bytesRx += data.length;
    if (isBinary) {
      room.counters.decodeErrors++;
      return;
    }
    const text = data.toString("utf8");
    const msg = decodeJsonServerMessage(text);
    // The keepalive's answer is not counted by the room (the runtime may send it while it sleeps).
    if (text !== JSON_KEEPALIVE && this.receipts.read(this.ws, text)) {
      this.ws?.send(`{"t":"rc","m":${this.receipts.messages % 0x100000000},"b":${this.receipts.units % 0x100000000}}`);
    }
    if (isDecodeError(msg)) {
      room.counters.decodeErrors++;
      return;
    }
    switch (msg.t) {
      case "state": {
        if (measuring) {
          room.counters.framesRx++;
          this.cadenceFramesRx++;
        }
        const joined = this.state === ClientState.Joined;
        if (typeof msg.ack === "number" && this.tracker !== null && joined) {
          if (this.tracker.resolve(msg.ack, now, room) === AckOutcome.Regression) room.counters.ackRegressions++;
        }
        if (msg.state !== undefined) {
          if (measuring) {
            room.counters.stateFrames++;
            this.stateFramesRx++;
          }
          if (!this.ctx.scenario.onState(this.player, msg.state, room.scenario)) room.counters.decodeErrors++;
        }
        if (joined) this.decide(now);
        return;
      }
      case "pong":
      case "ka":
        if (measuring) room.counters.keepaliveBytesRx += data.length;
        return;
      case "welcome": {
        if (!this.welcomed(msg, now)) return;
        this.ctx.scenario.onWelcome?.(this.player, {
          playerId: msg.playerId,
          tickMs: msg.tickMs,
          roomEpoch: msg.roomEpoch,
          clockOffsetMs: msg.serverTime - Date.now(),
        });
        if (this.keepalive) {
          const phase = ((this.index * PHASE_STEP) % 1) * this.keepalive.periodMs;
          this.ctx.scheduler.add(this.keepalive, now + phase);
        }
        return;
      }
      case "error":
        this.serverError(msg.code, msg.name);
        if (this.state === ClientState.Joined) this.ctx.scenario.onError?.(this.player, msg.name, room.scenario);
        return;
      case "stats":
        this.ctx.onStats(msg.id, JSON.stringify(msg.stats));
        return;
      default:
        return;
    }
  };

  /**
   * Schedules an input when the last view gives the player something to do, or cancels one that
   * the view made pointless. Nothing is scheduled while an own input is unacked: the view that
   * answers it (same message as the ack) decides the next step, so no input is sent twice.
   */
  private decide(now: number): void {
    if (this.outstanding > 0) return;
    const wants = this.ctx.scenario.wantsToAct(this.player);
    if (wants && this.heapIndex < 0) this.ctx.scheduler.add(this, now + this.ctx.thinkMs);
    else if (!wants && this.heapIndex >= 0) this.ctx.scheduler.remove(this);
  }

  /** Scheduler callback: the think time is over; sends the input the last view calls for. */
  override fire(firstDueAt: number, _count: number, _now: number): void {
    const ws = this.ws;
    const tracker = this.tracker;
    if (this.state !== ClientState.Joined || ws === null || tracker === null || ws.readyState !== WebSocket.OPEN) return;
    if (tracker.outstanding > 0 || !this.ctx.scenario.wantsToAct(this.player)) return;
    const room = this.room;
    const data = this.ctx.scenario.nextInput(this.player, this.rng, room.scenario);
    if (data === undefined) return;
    const text = JSON.stringify({ t: "input", seq: tracker.track(firstDueAt), data });
    const sentAt = performance.now();
    ws.send(text);
    room.counters.inputFrames++;
    if (sentAt < this.ctx.measureEndAt) room.counters.bytesTx += Buffer.byteLength(text);
    room.inputSent(sentAt - firstDueAt);
  }

  /**
   * Keepalive callback: one keepalive, whatever the number of periods that fell due. The SDK's
   * keepalive text, which a hibernated turn-based room answers without waking up.
   */
  sendKeepalive(): void {
    const ws = this.ws;
    if (this.state !== ClientState.Joined || ws === null || ws.readyState !== WebSocket.OPEN) return;
    const text = JSON_KEEPALIVE;
    ws.send(text);
    if (performance.now() < this.ctx.measureEndAt) {
      const bytes = Buffer.byteLength(text);
      this.room.counters.bytesTx += bytes;
      this.room.counters.keepaliveBytesTx += bytes;
    }
  }

  override requestStats(requestId: number): boolean {
    const ws = this.ws;
    if (this.state !== ClientState.Joined || ws === null || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify({ t: "stats", id: requestId }));
    return true;
  }
}
