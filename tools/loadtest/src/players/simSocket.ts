import { CloseCode, ErrorCode, ReceiptCounter, closeName } from "@tikron/protocol";
import WebSocket from "ws";
import { AckTracker } from "../metrics/ackTracker";
import { expectedGapMs } from "../metrics/gapJitter";
import { recordMs } from "../metrics/histogram";
import type { RoomMetrics } from "../metrics/roomMetrics";
import { SPIKE_THRESHOLD_MS } from "../metrics/spikes";
import type { FixedScheduler, Scheduled } from "./schedule";

/** What every simulated player of one thread shares, whatever its wire mode. */
export interface SocketContext {
  readonly scheduler: FixedScheduler;
  /** performance.now() at which the measuring window (and the input schedule) ends; moved up when a run is aborted. */
  measureEndAt: number;
  readonly connectTimeoutMs: number;
  /** Routes a stats reply (its JSON text) to whoever asked. */
  readonly onStats: (requestId: number, json: string) => void;
  /**
   * Set when the run restarts the server (`--restart-at`): a joined player whose socket closes
   * unexpectedly reconnects with its seat token as after a drop, for up to `giveUpMs`, and when
   * it is welcomed again is recorded against the run's start (`startAtEpochMs`).
   */
  restartStorm?: { startAtEpochMs: number; giveUpMs: number };
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

/** The welcome fields the shared join bookkeeping needs (identical in both wire modes). */
export interface JoinInfo {
  roomKind: string;
  tickMs: number;
  syncIntervalMs: number;
  cap: number;
  lastSeq: number;
  /** Seat token to present when reconnecting. */
  token?: string;
  /** The welcome restored an existing seat. */
  reconnected?: boolean;
}

/** A dropped player gives up reconnecting after this long (the room holds a seat 15 s by default). */
export const RECONNECT_GIVE_UP_MS = 15_000;
/** First retry delay after a failed reconnect attempt; doubles per attempt (with jitter), capped. */
const RECONNECT_BACKOFF_MS = 250;
const RECONNECT_BACKOFF_MAX_MS = 2_000;

/** Golden-ratio phases spread players' periodic sends evenly over the period instead of in bursts. */
export const PHASE_STEP = 0.6180339887498949;

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
 * One simulated player's socket, independent of the wire mode: connect and hello, the join
 * outcome (joined, refused, throttled, failed), unexpected closes, the final accounting of a
 * joined client, and a bounded leave. Subclasses speak a wire mode and decide when to send.
 */
export abstract class SimSocket implements Scheduled {
  dueAt = 0;
  heapIndex = -1;
  abstract readonly periodMs: number;
  state: ClientState = ClientState.Idle;

  protected ws: WebSocket | null = null;
  /** What this client has read on its socket; the room bounds what it sends unconfirmed. */
  protected readonly receipts = new ReceiptCounter();
  protected tracker: AckTracker | null = null;
  /** State-frame cadence announced in welcome (see expectedGapMs). */
  protected expectedGap = 0;
  protected welcomeAt = 0;
  private outcomeSet = false;
  private settled = false;
  private connectStartedAt = 0;
  private connectTimer: ReturnType<typeof setTimeout> | null = null;
  private closeWaiter: (() => void) | null = null;
  /** The seat token from the last welcome (presented again after a drop). */
  protected token = "";
  /** performance.now() of the drop while reconnecting; 0 otherwise. */
  private droppedAt = 0;
  /** The socket is being torn down on purpose by {@link drop}. */
  private dropping = false;
  private reconnectAttempts = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** URL of the current connection (a ticket may have been added to the room URL). */
  private currentUrl: string;

  constructor(
    /** Global index of the player in the run (all shards). */
    readonly index: number,
    readonly room: RoomMetrics,
    private readonly socketCtx: SocketContext,
    private readonly url: string,
  ) {
    this.currentUrl = url;
  }

  /** Handles every message of the socket; the wire mode's hot path. */
  protected abstract readonly onMessage: (data: Buffer, isBinary: boolean) => void;
  /** Sends the hello of the subclass's wire mode on a freshly opened socket. */
  protected abstract sendHello(ws: WebSocket): void;
  /** Sends LEAVE in the subclass's wire mode. */
  protected abstract sendLeave(ws: WebSocket): void;
  /** Asks the room for its tk:stats; false when this client cannot (not joined / socket gone). */
  abstract requestStats(requestId: number): boolean;
  /** Scheduler callback (see {@link Scheduled.fire}). */
  abstract fire(firstDueAt: number, count: number, now: number): void;

  /**
   * Opens the socket and says hello; the outcome lands in the room's counters. `url` replaces
   * the room URL (e.g. the same URL with a join ticket).
   */
  connect(url?: string): void {
    if (this.state !== ClientState.Idle) return;
    if (url !== undefined) this.currentUrl = url;
    this.state = ClientState.Connecting;
    this.connectStartedAt = performance.now();
    const ws = new WebSocket(this.currentUrl, WS_OPTIONS);
    this.ws = ws;
    ws.on("open", this.onOpen);
    ws.on("message", this.onMessage);
    ws.on("error", this.onError);
    ws.on("close", this.onClose);
    this.connectTimer = setTimeout(this.onConnectTimeout, this.socketCtx.connectTimeoutMs);
  }

  /** The player never got as far as connecting (e.g. no join ticket); counted as a failed join. */
  failBeforeConnect(reason: string): void {
    if (this.state !== ClientState.Idle) return;
    this.setOutcome(reason);
    this.state = ClientState.Done;
  }

  /**
   * performance.now() when this player's match request went out (matchmaking runs; 0 otherwise):
   * its welcome then records the time to seated.
   */
  seatRequestedAt = 0;

  /** State frames received inside the measuring window. */
  stateFramesRx = 0;
  /**
   * Frames of the room's cadence received inside the measuring window: state frames and frames
   * of acks alone (a view with nothing new still gets its acks each flush). The per-client share
   * in steadyWindow.ts counts these.
   */
  cadenceFramesRx = 0;

  /** True once a welcome arrived, whatever happened after. */
  get everJoined(): boolean {
    return this.welcomeAt > 0;
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
   * The welcome arrived: counts the join, records connect time and the room's parameters, and
   * starts ack tracking after the seat's last applied seq. False when not expecting a welcome.
   */
  protected welcomed(info: JoinInfo, now: number): boolean {
    if (this.state !== ClientState.Connecting) return false;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    this.connectTimer = null;
    this.state = ClientState.Joined;
    this.outcomeSet = true;
    const room = this.room;
    room.connected++;
    if (info.token) this.token = info.token;
    if (this.droppedAt > 0) {
      // Back after a drop: not a new join. The seat is ours again only if the room says so.
      if (info.reconnected) room.counters.reconnected++;
      else room.counters.reconnectNewSeat++;
      recordMs(room.reconnectH, now - this.droppedAt);
      const storm = this.socketCtx.restartStorm;
      if (storm) recordMs(room.reconnectAtH, Date.now() - storm.startAtEpochMs);
      this.droppedAt = 0;
      this.reconnectAttempts = 0;
      this.tracker = new AckTracker(info.lastSeq + 1);
      return true;
    }
    this.welcomeAt = now;
    room.counters.joined++;
    recordMs(room.connectH, now - this.connectStartedAt);
    if (this.seatRequestedAt > 0) recordMs(room.seatedH, now - this.seatRequestedAt);
    this.expectedGap = expectedGapMs(info.tickMs, info.syncIntervalMs);
    if (room.info === null) {
      room.info = {
        roomKind: info.roomKind,
        tickMs: info.tickMs,
        syncIntervalMs: info.syncIntervalMs,
        cap: info.cap,
        expectedGapMs: this.expectedGap,
      };
    }
    this.tracker = new AckTracker(info.lastSeq + 1);
    return true;
  }

  /** An ERROR from the room: counted by name; a refusal while joining decides the outcome. */
  protected serverError(code: number, name: string): void {
    this.room.error(name);
    if (this.state === ClientState.Connecting) {
      if (code === ErrorCode.room_full) this.setOutcome("refused");
      else if (code === ErrorCode.join_throttled) this.setOutcome("throttled");
    }
  }

  /** Takes every scheduled send of this client off the scheduler (socket closing or gone). */
  protected unschedule(): void {
    this.socketCtx.scheduler.remove(this);
  }

  private readonly onOpen = (): void => {
    this.sendHello(this.ws!);
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
    if (this.dropping || (this.droppedAt > 0 && this.state === ClientState.Connecting)) {
      // A socket we dropped on purpose, or a reconnect attempt that failed: try again.
      this.dropping = false;
      this.ws = null;
      this.state = ClientState.Idle;
      this.retryReconnect(now);
      return;
    }
    if (this.state === ClientState.Connecting) {
      if (code === CloseCode.room_full) this.setOutcome("refused");
      else if (code === CloseCode.join_throttled) this.setOutcome("throttled");
      // A refused join (closed right after the upgrade) counts under its close's name, e.g. `unauthorized`.
      else this.setOutcome(closeName(code) === "unknown" ? `close_${code}` : closeName(code));
    } else if (this.state === ClientState.Joined) {
      this.room.connected--;
      if (this.socketCtx.restartStorm) {
        // The server went down (the run restarts it): back with the seat token, as after a drop.
        const c = this.room.counters;
        c.dropped++;
        c.inputsLostOnDrop += this.tracker?.outstanding ?? 0;
        this.droppedAt = now;
        this.unschedule();
        this.ws = null;
        this.state = ClientState.Idle;
        this.retryReconnect(now);
        return;
      }
      this.settle(now);
      this.room.unexpectedClose(code);
    }
    this.unschedule();
    this.state = ClientState.Done;
    this.ws = null;
    const waiter = this.closeWaiter;
    this.closeWaiter = null;
    waiter?.();
  };

  /**
   * Final accounting of a joined client: time joined inside the window, inputs never acked,
   * and a stall when the oldest of them has waited past the spike threshold.
   */
  private settle(now: number): void {
    if (this.settled || this.welcomeAt === 0) return;
    this.settled = true;
    const c = this.room.counters;
    const end = now < this.socketCtx.measureEndAt ? now : this.socketCtx.measureEndAt;
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
  leave(timeoutMs: number, planned = false): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const now = performance.now();
    if (this.droppedAt > 0) {
      // Still trying to get back after a drop when the run (or its session) ended.
      this.room.counters.reconnectFailed++;
      this.droppedAt = 0;
      this.settle(now);
    }
    const ws = this.ws;
    if (ws === null || this.state === ClientState.Done || this.state === ClientState.Idle) {
      this.state = ClientState.Done;
      return Promise.resolve();
    }
    if (this.state === ClientState.Connecting) {
      this.setOutcome("timeout");
    } else if (this.state === ClientState.Joined) {
      this.room.connected--;
      if (planned && now < this.socketCtx.measureEndAt) this.room.counters.left++;
      this.settle(now);
      if (ws.readyState === WebSocket.OPEN) this.sendLeave(ws);
    }
    this.unschedule();
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

  /**
   * Drops the socket without a goodbye (as a network loss would) and reconnects at once with
   * the seat token; the welcome then tells whether the seat survived. No-op unless joined.
   */
  drop(): boolean {
    const ws = this.ws;
    if (this.state !== ClientState.Joined || ws === null) return false;
    const now = performance.now();
    const c = this.room.counters;
    c.dropped++;
    c.inputsLostOnDrop += this.tracker?.outstanding ?? 0;
    this.room.connected--;
    this.droppedAt = now;
    this.dropping = true;
    this.unschedule();
    ws.terminate();
    return true;
  }

  private retryReconnect(now: number): void {
    if (this.droppedAt > 0 && now - this.droppedAt > (this.socketCtx.restartStorm?.giveUpMs ?? RECONNECT_GIVE_UP_MS)) {
      this.room.counters.reconnectFailed++;
      this.droppedAt = 0;
      this.settle(now);
      this.state = ClientState.Done;
      const waiter = this.closeWaiter;
      this.closeWaiter = null;
      waiter?.();
      return;
    }
    const attempt = this.reconnectAttempts++;
    // The first attempt goes at once (a real client reconnects as soon as it notices); later
    // ones back off with jitter so a storm does not hammer the room's join throttle.
    const delay = attempt === 0 ? 0 : Math.min(RECONNECT_BACKOFF_MAX_MS, RECONNECT_BACKOFF_MS * 2 ** (attempt - 1)) * (0.5 + Math.random() * 0.5);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.state === ClientState.Idle && this.droppedAt > 0) this.connect();
    }, delay);
  }
}
