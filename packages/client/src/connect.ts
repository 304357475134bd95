import { CloseCode, DecodeError, MAX_INPUTS_PER_FRAME, PROTOCOL_VERSION, type InputEntry } from "@tikron/protocol";
import { ClockSync, type ClockSyncOptions } from "./clockSync";
import { jsonStateDecoder, rawDeltaDecoder, type StateDecoder } from "./decoder";
import { Emitter } from "./emitter";
import { ReconnectPolicy, type ReconnectOptions } from "./reconnect";
import type { SnapshotBuffer } from "./snapshotBuffer";
import { WS_OPEN, type WebSocketConstructor, type WebSocketLike } from "./socket";
import { emptyStats, type ConnectionStats } from "./stats";
import { ClientWire, checkBinaryPayload, decodeIncoming, utf8Length, type Incoming, type IncomingFrame, type WelcomeInfo } from "./wire";

/** The prediction side the connection keeps in step with (a `Predictor` fits). */
export interface PredictionHooks {
  /** Called on every welcome: pending inputs are stale after a (re)join. */
  reset(lastSeq?: number): void;
  readonly lastError: number;
  readonly maxError: number;
  readonly pending: number;
}

/** Options of {@link connect}. */
export interface ConnectOptions<S = unknown> {
  /** Room id (the last path segment). */
  room: string;
  /** Room kind, e.g. `agar` or `ttt-json`. */
  kind: string;
  /**
   * Admission ticket appended as `?ticket=`. A function is called before every attempt, so
   * single-use tickets can be fetched fresh for each reconnect.
   */
  ticket?: string | (() => string | Promise<string>);
  /** Display name sent in hello. */
  name?: string;
  /** Reconnect token of an earlier session (e.g. kept across a page reload) to reclaim its seat. */
  token?: string;
  /** JSON text-mode room (turn-based kinds such as `ttt-json`). Default false (binary). */
  json?: boolean;
  /** State decoder; defaults to the raw delta bytes (binary) or the JSON view (JSON rooms). */
  decoder?: StateDecoder<S>;
  /** WebSocket implementation; default `globalThis.WebSocket`. Pass `ws`'s class on older Node. */
  WebSocketImpl?: WebSocketConstructor;
  /** Reconnection and join pacing; `false` disables reconnecting. */
  reconnect?: ReconnectOptions | false;
  /** An attempt that has not been welcomed this long after it started is abandoned (ms). Default 10 000. */
  connectTimeoutMs?: number;
  /** Clock-sync ping period once synced (ms). Default 2000. */
  pingIntervalMs?: number;
  /**
   * Binary rooms: send inputs in batches at most this often (ms). The first input after a quiet
   * interval goes out at once; later ones wait and leave together in one INPUT frame (up to
   * 16), so a client sending faster than the room ticks costs the room fewer incoming messages
   * (each is billed and counts against the object's request rate). The room drains inputs per
   * tick anyway, so a batch interval up to the room's `tickMs` adds little latency. Queued
   * inputs are dropped, never replayed, if the connection drops. Off (0) by default.
   */
  batchInputsMs?: number;
  /** Pings sent right after each welcome, 100 ms apart, for a quick first estimate. Default 3. */
  pingBurst?: number;
  /** Clock-sync tunables. */
  clock?: ClockSyncOptions;
  /** Snapshot buffer to keep informed (send interval, room restarts) and report in stats. */
  snapshots?: SnapshotBuffer;
  /** Predictor to reset on every (re)join and report in stats. */
  predictor?: PredictionHooks;
  /** Local monotonic clock (ms). Default `performance.now()`. */
  now?: () => number;
}

/** Connection lifecycle. */
export type ConnectionStatus = "connecting" | "joined" | "reconnecting" | "closed";

/** One state frame as delivered to listeners. */
export interface StateEvent<S> {
  tick: number;
  /** Room time (ms since `roomEpoch`) the tick was simulated at. */
  time: number;
  /** Highest input seq the server processed, or -1 when this frame carries no ack. */
  ackSeq: number;
  /** False when the frame carried no state section (only an ack or events): state is unchanged. */
  changed: boolean;
  /** The decoder's state after this frame. */
  state: S;
  /** Local time (ms, the connection's clock) the frame was received. */
  receivedAt: number;
}

/** One game event from a frame. */
export interface GameEvent {
  tick: number;
  time: number;
  /** Decoded by `decoder.decodeEvent` when present; else bytes (binary) or a JSON value. */
  body: unknown;
}

/** An ERROR from the server, or a problem found locally (`local: true`). */
export interface RoomError {
  code: number;
  /** Symbolic name, e.g. `join_throttled`, `illegal_move`, or a local one such as `schema_mismatch`. */
  name: string;
  reason: string;
  /** When > 0, how long the server asked us to wait before trying again (ms). */
  retryAfterMs: number;
  local: boolean;
}

/** A socket closed. */
export interface CloseInfo {
  /** The WebSocket close code (the server's application code where it sent one). */
  code: number;
  reason: string;
  /** True when a reconnect is scheduled (a `reconnecting` event follows). */
  willReconnect: boolean;
  /** True when {@link RoomConnection.close} caused it. */
  deliberate: boolean;
}

/** A reconnect attempt is scheduled. */
export interface ReconnectingInfo {
  /** 1 for the first retry after a stable connection. */
  attempt: number;
  delayMs: number;
  /** The close that caused it. */
  code: number;
  reason: string;
}

/** Events of a {@link RoomConnection}. */
export interface RoomEvents<S> {
  welcome: WelcomeInfo;
  state: StateEvent<S>;
  event: GameEvent;
  error: RoomError;
  close: CloseInfo;
  reconnecting: ReconnectingInfo;
}

/** Builds a room URL: `${base}/rooms/${kind}/${room}` plus `?ticket=` (http(s) becomes ws(s)). */
export function roomUrl(base: string, kind: string, room: string, ticket?: string): string {
  const b = base.replace(/^http(s?):\/\//i, "ws$1://").replace(/\/+$/, "");
  let url = `${b}/rooms/${encodeURIComponent(kind)}/${encodeURIComponent(room)}`;
  if (ticket) url += `?ticket=${encodeURIComponent(ticket)}`;
  return url;
}

const PING_BURST_SPACING_MS = 100;
/** Close code used locally when the server's stream cannot be understood: retrying would repeat it. */
const LOCAL_PROTOCOL_CLOSE = CloseCode.protocol_error;

type Timer = ReturnType<typeof setTimeout>;

/**
 * A live room connection: joins, keeps the seat across drops, syncs the clock, and turns the
 * server's frames into typed events. Created by {@link connect}.
 */
export class RoomConnection<S = unknown> {
  /** Clock sync against the room's server clock. */
  readonly clock: ClockSync;
  /** The state decoder in use. */
  readonly decoder: StateDecoder<S>;
  private readonly emitter = new Emitter<RoomEvents<S>>();
  private readonly opts: ConnectOptions<S>;
  private readonly wire: ClientWire;
  private readonly policy: ReconnectPolicy;
  private readonly Impl: WebSocketConstructor;
  private readonly now: () => number;
  private readonly statsObj: ConnectionStats = emptyStats();

  private ws: WebSocketLike | null = null;
  private state: ConnectionStatus = "connecting";
  private deliberate = false;
  private everJoined = false;
  private tokenValue: string;
  private welcomeInfo: WelcomeInfo | null = null;
  private nextSeq = 1;
  private helloAt = NaN;
  private socketStartedAt = 0;
  private socketRetryAfter = 0;
  private socketTokenRejected = false;

  private connectTimer: Timer | undefined;
  private retryTimer: Timer | undefined;
  private pingTimer: Timer | undefined;
  private stableTimer: Timer | undefined;
  private pingsLeftInBurst = 0;

  private nextStatsId = 1;
  private readonly statsWaiters = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: Timer }>();
  private joinWaiters: { resolve: (w: WelcomeInfo) => void; reject: (e: Error) => void }[] = [];

  /** @internal Use {@link connect}. */
  constructor(
    readonly baseUrl: string,
    options: ConnectOptions<S>,
  ) {
    this.opts = options;
    this.now = options.now ?? (() => performance.now());
    const json = options.json === true;
    this.wire = new ClientWire(json);
    this.decoder = options.decoder ?? ((json ? jsonStateDecoder() : rawDeltaDecoder()) as StateDecoder<S>);
    this.policy = new ReconnectPolicy(options.reconnect ?? {});
    const burst = Math.max(0, options.pingBurst ?? 3);
    // The welcome round trip and the first burst are applied directly; slewing starts after.
    this.clock = new ClockSync({ now: this.now, warmupSamples: 1 + burst, ...options.clock });
    const Impl = options.WebSocketImpl ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Impl) throw new Error("no WebSocket implementation: pass WebSocketImpl");
    this.Impl = Impl;
    this.tokenValue = options.token ?? "";
  }

  /** Lifecycle state. */
  get status(): ConnectionStatus {
    return this.state;
  }

  /** The latest welcome (null before the first). */
  get welcome(): WelcomeInfo | null {
    return this.welcomeInfo;
  }

  /** Our player id in the room (-1 before the first welcome). */
  get playerId(): number {
    return this.welcomeInfo?.playerId ?? -1;
  }

  /** The reconnect token; persist it to reclaim the seat after a page reload (pass as `token`). */
  get token(): string {
    return this.tokenValue;
  }

  /** Live statistics; the same object on every read, refreshed on read. */
  get stats(): ConnectionStats {
    const s = this.statsObj;
    s.rttMs = this.clock.rttMs;
    s.minRttMs = this.clock.minRttMs;
    s.clockOffsetMs = this.clock.synced ? this.clock.offsetMs : 0;
    const snap = this.opts.snapshots;
    s.interpolationDelayMs = snap ? snap.delayMs : 0;
    s.starvations = snap ? snap.starvations : 0;
    const pred = this.opts.predictor;
    s.predictionError = pred ? pred.lastError : 0;
    s.predictionErrorMax = pred ? pred.maxError : 0;
    s.pendingInputs = pred ? pred.pending : 0;
    return s;
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof RoomEvents<S>>(event: K, fn: (payload: RoomEvents<S>[K]) => void): () => void {
    return this.emitter.on(event, fn);
  }

  /** Subscribes for one delivery. */
  once<K extends keyof RoomEvents<S>>(event: K, fn: (payload: RoomEvents<S>[K]) => void): () => void {
    return this.emitter.once(event, fn);
  }

  /** Unsubscribes. */
  off<K extends keyof RoomEvents<S>>(event: K, fn: (payload: RoomEvents<S>[K]) => void): void {
    this.emitter.off(event, fn);
  }

  /**
   * Resolves with the next welcome, or at once when joined; rejects when the connection ends for
   * good first.
   */
  whenJoined(): Promise<WelcomeInfo> {
    if (this.state === "joined" && this.welcomeInfo) return Promise.resolve(this.welcomeInfo);
    if (this.state === "closed") return Promise.reject(new Error("connection closed"));
    return new Promise((resolve, reject) => this.joinWaiters.push({ resolve, reject }));
  }

  /** Estimated server wall clock (epoch ms) now; the local clock until the first welcome. */
  serverNow(): number {
    return this.clock.serverNow();
  }

  /** Estimated room time now (ms since the welcome's `roomEpoch`, the clock of FRAME `time`). */
  roomTime(): number {
    return this.clock.serverNow() - (this.welcomeInfo?.roomEpoch ?? 0);
  }

  /**
   * Sends one input and returns its sequence number (strictly increasing for the life of the
   * connection, across reconnects). Binary rooms take a `Uint8Array`, JSON rooms any JSON value.
   * Returns -1, sending nothing, while not joined: an input held back over a drop would be
   * replayed against a state that has moved on.
   */
  sendInput(payload: Uint8Array | unknown): number {
    if (this.state !== "joined" || !this.ws || this.ws.readyState !== WS_OPEN) return -1;
    const seq = this.nextSeq;
    const batchMs = this.opts.batchInputsMs ?? 0;
    if (batchMs > 0 && !this.wire.json) {
      // Copied: the caller may reuse its buffer before the batch leaves.
      this.batch.push({ seq, payload: checkBinaryPayload(payload).slice() });
      this.nextSeq++;
      this.statsObj.inputsSent++;
      const sinceLast = this.now() - this.lastBatchAt;
      if (this.batch.length >= MAX_INPUTS_PER_FRAME || sinceLast >= batchMs) this.flushInputs();
      else this.batchTimer ??= setTimeout(this.flushInputs, batchMs - sinceLast);
      return seq;
    }
    const data = this.wire.input(seq, payload);
    this.nextSeq++;
    this.send(data);
    this.statsObj.inputsSent++;
    return seq;
  }

  /** Sends any batched inputs now (see `batchInputsMs`). */
  readonly flushInputs = (): void => {
    if (this.batchTimer !== undefined) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.batch.length === 0) return;
    if (this.state === "joined" && this.ws && this.ws.readyState === WS_OPEN) {
      this.send(this.wire.inputs(this.batch));
      this.lastBatchAt = this.now();
    }
    // Whatever was not sent is stale once the connection is gone: never replay it.
    this.batch.length = 0;
  };

  private readonly batch: InputEntry[] = [];
  private batchTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  private lastBatchAt = -Infinity;

  /** Asks the room for its `tk:stats` snapshot. */
  requestStats(timeoutMs = 5000): Promise<unknown> {
    if (this.state !== "joined") return Promise.reject(new Error("not joined"));
    const id = this.nextStatsId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.statsWaiters.delete(id);
        reject(new Error("stats request timed out"));
      }, timeoutMs);
      this.statsWaiters.set(id, { resolve, reject, timer });
      this.send(this.wire.statsRequest(id));
    });
  }

  /**
   * Closes for good; no reconnect follows. By default a `leave` is sent first so the seat is
   * freed at once; `{ leave: false }` keeps it for the room's reconnection window (resume with
   * {@link token}).
   */
  close(options: { leave?: boolean } = {}): void {
    if (this.state === "closed") return;
    this.deliberate = true;
    this.clearTimers();
    clearTimeout(this.retryTimer);
    const ws = this.ws;
    if (ws) {
      if (this.state === "joined" && options.leave !== false && ws.readyState === WS_OPEN) this.send(this.wire.leave());
      this.detach(ws);
      try {
        ws.close(1000, "client closed");
      } catch {
        // Closing a socket that is still connecting may throw in some implementations.
      }
    }
    this.finish({ code: 1000, reason: "client closed", willReconnect: false, deliberate: true });
  }

  /** @internal Starts the first attempt. */
  start(): void {
    void this.open();
  }

  private async open(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.socketRetryAfter = 0;
    this.socketTokenRejected = false;
    this.socketStartedAt = this.now();
    let ticket: string | undefined;
    const t = this.opts.ticket;
    if (typeof t === "function") {
      try {
        ticket = await t();
      } catch (e) {
        if (this.deliberate) return;
        this.localError("ticket_failed", `ticket: ${String(e)}`);
        this.socketGone(1006, "ticket unavailable");
        return;
      }
      if (this.deliberate) return;
    } else {
      ticket = t;
    }
    let ws: WebSocketLike;
    try {
      ws = new this.Impl(roomUrl(this.baseUrl, this.opts.kind, this.opts.room, ticket));
    } catch (e) {
      // A malformed URL never becomes valid: report and stop.
      this.localError("bad_url", String(e));
      this.finish({ code: 1006, reason: "could not create socket", willReconnect: false, deliberate: false });
      return;
    }
    this.ws = ws;
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.helloAt = this.now();
      this.send(this.wire.hello(this.tokenValue, this.opts.name ?? ""));
    };
    ws.onmessage = (ev: { data: unknown }) => {
      if (this.ws === ws) this.onMessage(ev.data);
    };
    ws.onclose = (ev: { code?: number; reason?: string }) => {
      if (this.ws !== ws) return;
      this.detach(ws);
      this.socketGone(typeof ev?.code === "number" ? ev.code : 1006, typeof ev?.reason === "string" ? ev.reason : "");
    };
    // An error is always followed by a close, which carries the code; nothing to do here.
    ws.onerror = () => {};
    const timeout = this.opts.connectTimeoutMs ?? 10_000;
    this.connectTimer = setTimeout(() => {
      if (this.ws !== ws || this.state === "joined") return;
      this.abandon(ws, 1006, "connect timeout");
    }, timeout);
  }

  private send(data: string | Uint8Array): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WS_OPEN) return;
    ws.send(data);
    this.statsObj.messagesOut++;
    this.statsObj.bytesOut += typeof data === "string" ? utf8Length(data) : data.byteLength;
  }

  private onMessage(data: unknown): void {
    const st = this.statsObj;
    st.messagesIn++;
    st.bytesIn += typeof data === "string" ? utf8Length(data) : data instanceof ArrayBuffer ? data.byteLength : ArrayBuffer.isView(data) ? data.byteLength : 0;
    const m = decodeIncoming(data);
    if (m instanceof DecodeError) {
      st.decodeErrors++;
      this.localError("bad_frame", `${m.code}: ${m.message}`);
      return;
    }
    switch (m.kind) {
      case "welcome":
        return this.onWelcome(m);
      case "frame":
        return this.onFrame(m);
      case "error":
        return this.onServerError(m);
      case "pong":
        return this.onPong(m.clientTime, m.serverTime);
      case "keepalive":
        return;
      case "stats": {
        const w = this.statsWaiters.get(m.requestId);
        if (w) {
          clearTimeout(w.timer);
          this.statsWaiters.delete(m.requestId);
          w.resolve(m.stats);
        }
        return;
      }
    }
  }

  private onWelcome(m: Extract<Incoming, { kind: "welcome" }>): void {
    const ws = this.ws!;
    const { kind: _kind, ...welcome } = m;
    if (welcome.version !== PROTOCOL_VERSION) {
      this.localError("version_mismatch", `server speaks protocol ${welcome.version}, client ${PROTOCOL_VERSION}`);
      return this.abandon(ws, LOCAL_PROTOCOL_CLOSE, "version mismatch");
    }
    const wantHash = this.decoder.schemaHash;
    if (!welcome.json && wantHash !== undefined && wantHash >>> 0 !== welcome.schemaHash >>> 0) {
      this.localError("schema_mismatch", `room schema ${welcome.schemaHash}, decoder ${wantHash}`);
      return this.abandon(ws, LOCAL_PROTOCOL_CLOSE, "schema mismatch");
    }
    const now = this.now();
    clearTimeout(this.connectTimer);
    const prev = this.welcomeInfo;
    const rejoin = this.everJoined;
    this.welcomeInfo = welcome;
    this.tokenValue = welcome.token;
    this.everJoined = true;
    if (rejoin) this.statsObj.reconnects++;

    // Sequence numbers stay monotonic across seats and never reuse one the server applied.
    this.nextSeq = Math.max(this.nextSeq, welcome.lastSeq + 1);
    // Inputs not applied before the drop are stale: drop them, never replay them.
    this.opts.predictor?.reset(welcome.lastSeq);
    if (this.batchTimer !== undefined) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    this.batch.length = 0;
    this.decoder.reset({ schemaHash: welcome.schemaHash, json: welcome.json, reconnected: welcome.reconnected });
    const snaps = this.opts.snapshots;
    if (prev && prev.roomEpoch !== welcome.roomEpoch) {
      // A different room instance: old timestamps and clock samples belong to another timeline.
      snaps?.clear();
      this.clock.reset();
    }
    if (welcome.syncIntervalMs > 0) snaps?.setSendInterval(welcome.syncIntervalMs);
    if (!Number.isNaN(this.helloAt)) this.clock.addSample(this.helloAt, welcome.serverTime, now);

    this.state = "joined";
    this.pingsLeftInBurst = Math.max(0, this.opts.pingBurst ?? 3);
    this.schedulePing(this.pingsLeftInBurst > 0 ? PING_BURST_SPACING_MS : (this.opts.pingIntervalMs ?? 2000));
    clearTimeout(this.stableTimer);
    this.stableTimer = setTimeout(() => this.policy.markStable(), this.policy.stableAfterMs);

    this.emitter.emit("welcome", welcome);
    const waiters = this.joinWaiters;
    this.joinWaiters = [];
    for (const w of waiters) w.resolve(welcome);
  }

  private onFrame(f: IncomingFrame): void {
    if (this.state !== "joined") return;
    const receivedAt = this.now();
    const st = this.statsObj;
    st.frames++;
    if (f.ackSeq > st.lastAck) st.lastAck = f.ackSeq;
    if (f.hasState) {
      try {
        this.decoder.apply(f.body);
      } catch (e) {
        // The decoder and the server disagree about the stream; continuing would render garbage.
        this.localError("bad_frame", `state decode failed: ${String(e)}`);
        return this.abandon(this.ws!, LOCAL_PROTOCOL_CLOSE, "state decode failed");
      }
    }
    if (f.events.length > 0 && this.emitter.has("event")) {
      const dec = this.decoder.decodeEvent?.bind(this.decoder);
      for (const body of f.events) this.emitter.emit("event", { tick: f.tick, time: f.time, body: dec ? dec(body) : body });
    }
    this.emitter.emit("state", {
      tick: f.tick,
      time: f.time,
      ackSeq: f.ackSeq,
      changed: f.hasState,
      state: this.decoder.state,
      receivedAt,
    });
  }

  private onServerError(m: Extract<Incoming, { kind: "error" }>): void {
    if (m.retryAfterMs > this.socketRetryAfter) this.socketRetryAfter = m.retryAfterMs;
    if (m.name === "bad_token") {
      // The held seat is gone: the next attempt joins as a new player instead of insisting.
      this.socketTokenRejected = true;
      this.tokenValue = "";
    }
    this.emitter.emit("error", { code: m.code, name: m.name, reason: m.reason, retryAfterMs: m.retryAfterMs, local: false });
  }

  private onPong(clientTime: number, serverTime: number): void {
    // Only pongs to pings of this socket are real round trips.
    if (clientTime < this.socketStartedAt) return;
    this.clock.addSample(clientTime, serverTime, this.now());
  }

  private schedulePing(delayMs: number): void {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => {
      if (this.state !== "joined") return;
      // The burst syncs the clock; after it JSON rooms only need to stay alive, and a fixed
      // keepalive lets a sleeping turn-based room answer without waking up.
      const now = this.now();
      this.send(this.pingsLeftInBurst > 0 ? this.wire.ping(now) : this.wire.keepalive(now));
      if (this.pingsLeftInBurst > 0) this.pingsLeftInBurst--;
      this.schedulePing(this.pingsLeftInBurst > 0 ? PING_BURST_SPACING_MS : (this.opts.pingIntervalMs ?? 2000));
    }, delayMs);
  }

  private localError(name: string, reason: string): void {
    this.emitter.emit("error", { code: 0, name, reason, retryAfterMs: 0, local: true });
  }

  /** Drops a socket from our side and handles it as closed with `code`. */
  private abandon(ws: WebSocketLike, code: number, reason: string): void {
    this.detach(ws);
    try {
      ws.close(code >= 4000 ? code : 1000, reason);
    } catch {
      // Already closing.
    }
    this.socketGone(code, reason);
  }

  private detach(ws: WebSocketLike): void {
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    if (this.ws === ws) this.ws = null;
  }

  private socketGone(code: number, reason: string): void {
    this.ws = null;
    this.clearTimers();
    if (this.deliberate) return;
    const decision = this.policy.onClose(code, {
      retryAfterMs: this.socketRetryAfter,
      tokenRejected: this.socketTokenRejected,
    });
    if (!decision.reconnect) {
      this.finish({ code, reason, willReconnect: false, deliberate: false });
      return;
    }
    this.state = this.everJoined ? "reconnecting" : "connecting";
    this.emitter.emit("close", { code, reason, willReconnect: true, deliberate: false });
    // A close listener may have called close(): then nothing is scheduled.
    if (this.deliberate) return;
    this.emitter.emit("reconnecting", { attempt: decision.attempt, delayMs: decision.delayMs, code, reason });
    this.retryTimer = setTimeout(() => {
      if (!this.deliberate) void this.open();
    }, decision.delayMs);
  }

  private finish(info: CloseInfo): void {
    this.state = "closed";
    this.clearTimers();
    this.emitter.emit("close", info);
    const err = new Error(`connection closed (${info.code} ${info.reason})`);
    const waiters = this.joinWaiters;
    this.joinWaiters = [];
    for (const w of waiters) w.reject(err);
    for (const [id, w] of this.statsWaiters) {
      clearTimeout(w.timer);
      w.reject(err);
      this.statsWaiters.delete(id);
    }
  }

  private clearTimers(): void {
    clearTimeout(this.connectTimer);
    clearTimeout(this.pingTimer);
    clearTimeout(this.stableTimer);
  }
}

/**
 * Joins room `room` of kind `kind` on the server at `url` (e.g. `wss://game.example.com`) and
 * returns the live connection at once; listen for `welcome` (or await `whenJoined()`).
 *
 * After the socket opens, hello is sent (binary, or JSON with `json: true`), carrying the
 * reconnect token on rejoins. Unexpected drops reconnect with jittered, bounded backoff and keep
 * the seat; `room_full` and `join_throttled` are retried no sooner than the server asks; closes
 * that mean "do not come back" (replaced, bad hello, room closed, ...) and {@link RoomConnection.close}
 * end the connection.
 *
 * @throws Error when no WebSocket implementation is available (pass `WebSocketImpl`).
 */
export function connect<S = unknown>(url: string, options: ConnectOptions<S>): RoomConnection<S> {
  const conn = new RoomConnection<S>(url, options);
  conn.start();
  return conn;
}
