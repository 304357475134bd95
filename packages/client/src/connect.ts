import {
  BinaryWriter,
  CloseCode,
  DecodeError,
  PROTOCOL_VERSION,
  ReceiptCounter,
  type AnyGameTypes,
  type AnyMessages,
  type EventOf,
  type InputOf,
  type MessageName,
  type MessageRequest,
  type MessageResponse,
  type MessagesOf,
  type StateOf,
} from "@tikron/protocol";
import { ClockPinger } from "./clockPinger";
import { ClockSync } from "./clockSync";
import type { ConnectOptions, GameConnectOptions } from "./connectOptions";
import { jsonStateDecoder, rawDeltaDecoder, type StateDecoder } from "./decoder";
import { Emitter } from "./emitter";
import { InputBatcher } from "./inputBatcher";
import { PendingRequests, RequestError, Waiters } from "./pendingRequests";
import { ReconnectPolicy } from "./reconnect";
import type { CloseInfo, ConnectionStatus, RoomEvents } from "./roomEvents";
import { roomUrl } from "./roomUrl";
import { schemaDecoder } from "./schemaDecoder";
import type { SnapshotBuffer } from "./snapshotBuffer";
import { WS_OPEN, type WebSocketConstructor } from "./socket";
import { SocketAttempts, type AttemptListener } from "./socketAttempts";
import { emptyStats, refreshStats, type ConnectionStats } from "./stats";
import { ClientWire, checkBinaryPayload, decodeIncoming, messageJson, utf8Length, type Incoming, type IncomingFrame, type WelcomeInfo } from "./wire";

/** Close code used locally when the server's stream cannot be understood: retrying would repeat it. */
const LOCAL_PROTOCOL_CLOSE = CloseCode.protocol_error;

/**
 * A live room connection: joins, keeps the seat across drops, syncs the clock, and turns the
 * server's frames into typed events. Created by {@link connect}.
 *
 * The parts live beside it: socket attempts and reconnecting (`socketAttempts.ts`, deciding with
 * `reconnect.ts`), clock pings (`clockPinger.ts`), input batching (`inputBatcher.ts`) and
 * promises awaiting answers (`pendingRequests.ts`). This class speaks the protocol over them:
 * hello → welcome → frames, the seat's token and input sequence, and the events listeners see.
 * Over 500 lines because it is the SDK's one public object: every method a game developer calls
 * (connect, inputs, room messages, reconnects, switching rooms) is here, each a few lines over
 * the parts above.
 *
 * `S` is the state `state` events carry, `I` what {@link sendInput} takes, `E` the body of
 * `event` events and `M` the room messages {@link send} and {@link request} take; connecting
 * with a `game` declaration fills all four from it.
 */
export class RoomConnection<S = unknown, I = unknown, E = unknown, M = AnyMessages> {
  /** Clock sync against the room's server clock. */
  readonly clock: ClockSync;
  /** The state decoder in use. */
  readonly decoder: StateDecoder<S>;
  // Events typed loosely inside (`any` body) so a connection of any event type passes where any is taken.
  readonly #emitter = new Emitter<RoomEvents<S, any>>();
  readonly #opts: ConnectOptions<S> | GameConnectOptions<AnyGameTypes>;
  /** The game declaration connected with, or null (raw payloads and bodies). */
  readonly #game: AnyGameTypes | null;
  /** Reused by the game's input encoder; allocated on the first typed input. */
  #inputWriter: BinaryWriter | null = null;
  #roomId: string;
  #kindName: string;
  readonly #wire: ClientWire;
  readonly #attempts: SocketAttempts;
  readonly #now: () => number;
  /** The numbers behind {@link stats}, counted as traffic happens. */
  readonly #counters: ConnectionStats = emptyStats();
  readonly #pinger: ClockPinger;
  readonly #batcher: InputBatcher | null;
  readonly #statsRequests = new PendingRequests<unknown>();
  readonly #messageRequests = new PendingRequests<unknown>();
  readonly #joinWaiters = new Waiters<WelcomeInfo>();
  #snapshots: SnapshotBuffer | undefined;

  #lifecycle: ConnectionStatus = "idle";
  #everJoined = false;
  #tokenValue: string;
  #welcomeInfo: WelcomeInfo | null = null;
  #nextSeq = 1;
  readonly #receipts = new ReceiptCounter();
  #helloAt = NaN;

  /** @internal Use {@link connect}. */
  constructor(
    /** The server the connection was opened against (`connect`'s `url`). */
    readonly baseUrl: string,
    options: ConnectOptions<S> | GameConnectOptions<AnyGameTypes>,
  ) {
    this.#opts = options;
    this.#now = options.now ?? (() => performance.now());
    const game = "game" in options ? options.game : null;
    this.#game = game;
    this.#roomId = options.room;
    this.#kindName = options.kind ?? game?.kind ?? "";
    const json = game ? game.json : (options as ConnectOptions<S>).json === true;
    this.#wire = new ClientWire(json);
    const given = game ? (game.schema ? schemaDecoder(game.schema) : undefined) : (options as ConnectOptions<S>).decoder;
    this.decoder = (given ?? (json ? jsonStateDecoder() : rawDeltaDecoder())) as StateDecoder<S>;
    const burst = Math.max(0, options.pingBurst ?? 3);
    // The welcome round trip and the first burst are applied directly; slewing starts after.
    this.clock = new ClockSync({ now: this.#now, warmupSamples: 1 + burst, ...options.clock });
    this.#pinger = new ClockPinger(
      this.clock,
      this.#now,
      // The burst syncs the clock; after it JSON rooms only need to stay alive, and a fixed
      // keepalive lets a sleeping turn-based room answer without waking up.
      (t, inBurst) => this.#post(inBurst ? this.#wire.ping(t) : this.#wire.keepalive(t)),
      () => this.#lifecycle === "joined",
      burst,
      options.pingIntervalMs ?? 2000,
    );
    const batchMs = options.batchInputsMs ?? 0;
    this.#batcher = batchMs > 0 && !json ? new InputBatcher(batchMs, this.#now, (inputs) => this.#sendNow(this.#wire.inputs(inputs))) : null;
    this.#snapshots = options.snapshots;
    const Impl = options.WebSocketImpl ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Impl) throw new Error("no WebSocket implementation: pass WebSocketImpl");
    this.#attempts = new SocketAttempts(
      {
        Impl,
        url: (ticket) => roomUrl(baseUrl, this.#kindName, this.#roomId, ticket),
        ticket: options.ticket,
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
        now: this.#now,
      },
      new ReconnectPolicy(options.reconnect ?? {}),
      this.#attemptListener,
    );
    this.#tokenValue = options.token ?? "";
  }

  /** Lifecycle status: `idle`, `connecting`, `joined`, `reconnecting` or `closed`. */
  get status(): ConnectionStatus {
    return this.#lifecycle;
  }

  /**
   * The decoded state now (the decoder's `state`). With a schema it is the live `ClientView`:
   * `room.state.onAdd(...)`, `onRemove(...)` and `onChange("field", (e, value, previous) => ...)`
   * report what each frame changed.
   */
  get state(): S {
    return this.decoder.state;
  }

  /** The room id joined (or being joined): `connect`'s `room`, or the last {@link switchTo}'s. */
  get room(): string {
    return this.#roomId;
  }

  /** The room kind joined (or being joined). */
  get kind(): string {
    return this.#kindName;
  }

  /** The latest welcome (null before the first). */
  get welcome(): WelcomeInfo | null {
    return this.#welcomeInfo;
  }

  /** Our player id in the room (-1 before the first welcome). */
  get playerId(): number {
    return this.#welcomeInfo?.playerId ?? -1;
  }

  /** The reconnect token; persist it to reclaim the seat after a page reload (pass as `token`). */
  get token(): string {
    return this.#tokenValue;
  }

  /** Live statistics; the same object on every read, refreshed on read. */
  get stats(): ConnectionStats {
    return refreshStats(this.#counters, this.clock, this.#snapshots, this.#opts.predictor);
  }

  /**
   * Keeps `buffer` in step with this connection, as the `snapshots` option does: it learns the
   * room's send interval from each welcome, is cleared when the room restarted (new epoch), and
   * its delay and starvations show in {@link stats}. For a buffer made after `connect`.
   */
  attachSnapshots(buffer: SnapshotBuffer): void {
    this.#snapshots = buffer;
    const w = this.#welcomeInfo;
    if (w && w.syncIntervalMs > 0) buffer.setSendInterval(w.syncIntervalMs);
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof RoomEvents<S, E>>(event: K, fn: (payload: RoomEvents<S, E>[K]) => void): () => void {
    return this.#emitter.on(event, fn);
  }

  /** Subscribes for one delivery. */
  once<K extends keyof RoomEvents<S, E>>(event: K, fn: (payload: RoomEvents<S, E>[K]) => void): () => void {
    return this.#emitter.once(event, fn);
  }

  /** Unsubscribes. */
  off<K extends keyof RoomEvents<S, E>>(event: K, fn: (payload: RoomEvents<S, E>[K]) => void): void {
    this.#emitter.off(event, fn);
  }

  /**
   * Resolves with the next welcome, or at once when joined; rejects when the connection ends for
   * good first.
   */
  whenJoined(): Promise<WelcomeInfo> {
    if (this.#lifecycle === "joined" && this.#welcomeInfo) return Promise.resolve(this.#welcomeInfo);
    if (this.#lifecycle === "closed") return Promise.reject(new Error("connection closed"));
    return this.#joinWaiters.wait();
  }

  /** Estimated server wall clock (epoch ms) now; the local clock until the first welcome. */
  serverNow(): number {
    return this.clock.serverNow();
  }

  /** Estimated room time now (ms since the welcome's `roomEpoch`, the clock of FRAME `time`). */
  roomTime(): number {
    return this.clock.serverNow() - (this.#welcomeInfo?.roomEpoch ?? 0);
  }

  /**
   * Sends one input and returns its sequence number (strictly increasing for the life of the
   * connection, across reconnects). Connected with a `game`, it takes the game's input type and
   * the game's codec encodes it; otherwise binary rooms take a `Uint8Array`, JSON rooms any JSON
   * value. Returns -1, sending nothing, while not joined: an input held back over a drop would
   * be replayed against a state that has moved on.
   *
   * @throws TypeError or RangeError when the payload cannot be sent (not bytes in a binary room,
   * too large); no sequence number is used then.
   */
  sendInput(input: I): number {
    if (!this.#canSend()) return -1;
    const game = this.#game;
    const payload = game ? game.encodeInput(input, (this.#inputWriter ??= new BinaryWriter(64))) : input;
    const seq = this.#nextSeq;
    // Encode (or check) before taking the number: a payload that throws costs no seq.
    if (this.#batcher) this.#batcher.add(seq, checkBinaryPayload(payload));
    else this.#post(this.#wire.input(seq, payload));
    this.#nextSeq++;
    this.#counters.inputsSent++;
    return seq;
  }

  /** Sends any batched inputs now (see `batchInputsMs`). */
  readonly flushInputs = (): void => {
    this.#batcher?.flush();
  };

  /** Asks the room for its `tk:stats` snapshot. */
  requestStats(timeoutMs = 5000): Promise<unknown> {
    if (this.#lifecycle !== "joined") return Promise.reject(new Error("not joined"));
    return this.#statsRequests.request(timeoutMs, (id) => this.#post(this.#wire.statsRequest(id)), "stats request");
  }

  /**
   * Sends a custom room message that wants no answer (chat, ready) and says whether it went out:
   * false, sending nothing, while not joined. Typed by the game's declaration (its
   * `messages`): `type` must be one of its message names and `payload` that message's request.
   * The room refuses it with an `error` event (`rate_limited`, `bad_message`, …).
   *
   * @throws RequestError (`message_too_large`, `bad_message`) when the payload's JSON is over
   * MAX_MESSAGE_PAYLOAD_CHARS or the type is not a legal name; TypeError when it is not JSON-able.
   */
  send<K extends MessageName<M>>(type: K, payload: MessageRequest<M, K>): boolean {
    const json = messageJson(type, payload);
    if (!this.#canSend()) return false;
    this.#post(this.#wire.message(0, type, json));
    return true;
  }

  /**
   * Sends a custom room message and resolves with the room's reply, typed by the game's
   * declaration (the message's `response`). Rejects with a {@link RequestError}: the room's
   * refusal (`code` = its error name, e.g. `rate_limited` with `retryAfterMs`), `timeout` after
   * `timeoutMs`, `closed` when the socket closes first (a reply cannot arrive on the next one),
   * `not_joined`, or `message_too_large` / `bad_message` found before sending.
   */
  request<K extends MessageName<M>>(type: K, payload: MessageRequest<M, K>, timeoutMs = 5000): Promise<MessageResponse<M, K>> {
    if (this.#lifecycle !== "joined") return Promise.reject(new RequestError("not_joined", "not joined"));
    let json: string;
    try {
      json = messageJson(type, payload);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#messageRequests.request(timeoutMs, (id) => this.#post(this.#wire.message(id, type, json)), `request ${type}`) as Promise<MessageResponse<M, K>>;
  }

  /**
   * Closes for good; no reconnect follows. By default a `leave` is sent first so the seat is
   * freed at once; `{ leave: false }` keeps it for the room's reconnection window (resume with
   * {@link token}).
   */
  close(options: { leave?: boolean } = {}): void {
    if (this.#lifecycle === "closed") return;
    if (options.leave !== false && this.#canSend()) this.#post(this.#wire.leave());
    this.#attempts.stop();
    this.#attempts.end({ code: 1000, reason: "client closed", willReconnect: false, deliberate: true });
  }

  /**
   * Leaves the room for good: sends `leave` (the seat is freed at once) and closes. The same
   * connection can join another room afterwards with {@link switchTo}.
   */
  leave(): void {
    this.close({ leave: true });
  }

  /**
   * Connects: the first attempt of a connection made with `startClosed`, or, once closed, the
   * same as {@link reconnect}. Does nothing while connecting or joined.
   */
  open(): void {
    if (this.#lifecycle === "idle") {
      this.#lifecycle = "connecting";
      void this.#attempts.open();
    } else if (this.#lifecycle === "closed") {
      this.reconnect();
    }
  }

  /**
   * Drops the current socket, if any, and connects again at once with the held {@link token}, so
   * the room gives back the seat while it still holds it: after the retries gave up, after
   * `close({ leave: false })`, or when the link looks stuck. Starts a fresh backoff. A `close`
   * event (`deliberate`, `willReconnect`) reports the dropped socket.
   */
  reconnect(): void {
    this.#restart("reconnect");
  }

  /**
   * Leaves the current room (the seat is freed at once) and joins room `room` on this same
   * connection: listeners, the decoder, views and stats carry over; the next welcome resets the
   * decoder and starts a fresh state, and interpolation buffers are cleared at once. Works from
   * any status, including after {@link leave} or {@link close}. `kind` switches the room kind
   * too (a game connection keeps its game's types), `ticket` replaces the admission ticket, and
   * `token` reclaims a seat held in the new room.
   */
  switchTo(room: string, options: { kind?: string; ticket?: ConnectOptions["ticket"]; token?: string } = {}): void {
    if (this.#canSend()) this.#post(this.#wire.leave());
    this.#roomId = room;
    if (options.kind !== undefined) this.#kindName = options.kind;
    this.#tokenValue = options.token ?? "";
    // A new room: its first welcome is a first join, on another clock and timeline.
    this.#welcomeInfo = null;
    this.#everJoined = false;
    this.#snapshots?.clear();
    this.clock.reset();
    this.#restart("switching rooms", options.ticket);
  }

  /** @internal Starts the first attempt unless created with `startClosed`. */
  start(): void {
    if (this.#opts.startClosed !== true) this.open();
  }

  /** Stops the socket side and starts it again at once; a live socket's end is reported as a close. */
  #restart(reason: string, ticket?: ConnectOptions["ticket"]): void {
    const live = this.#lifecycle !== "idle" && this.#lifecycle !== "closed";
    this.#attempts.stop();
    this.#pinger.stop();
    this.#batcher?.drop();
    this.#dropRequests(reason);
    this.#lifecycle = this.#everJoined ? "reconnecting" : "connecting";
    if (live) this.#emitter.emit("close", { code: 1000, reason, willReconnect: true, deliberate: true });
    // A close listener may have closed the connection for good: then nothing starts.
    if (this.status === "closed") return;
    this.#attempts.restart(ticket);
  }

  /** How the socket side reaches the protocol side. */
  readonly #attemptListener: AttemptListener = {
    opened: () => {
      this.#helloAt = this.#now();
      this.#post(this.#wire.hello(this.#tokenValue, this.#opts.name ?? ""));
    },
    message: (data) => this.#onMessage(data),
    retrying: (code, reason, attempt, delayMs) => {
      this.#pinger.stop();
      this.#dropRequests(`socket closed (${code})`);
      this.#lifecycle = this.#everJoined ? "reconnecting" : "connecting";
      this.#emitter.emit("close", { code, reason, willReconnect: true, deliberate: false });
      // A close listener may have called close(): then no reconnect is announced.
      if (this.#attempts.isStopped) return;
      this.#emitter.emit("reconnecting", { attempt, delayMs, code, reason });
    },
    ended: (info) => this.#finish(info),
    localError: (name, reason) => this.#localError(name, reason),
  };

  #canSend(): boolean {
    const ws = this.#attempts.socket;
    return this.#lifecycle === "joined" && ws !== null && ws.readyState === WS_OPEN;
  }

  #post(data: string | Uint8Array): void {
    const ws = this.#attempts.socket;
    if (!ws || ws.readyState !== WS_OPEN) return;
    ws.send(data);
    this.#counters.messagesOut++;
    this.#counters.bytesOut += typeof data === "string" ? utf8Length(data) : data.byteLength;
  }

  /** Sends only while joined; says whether it did (batched inputs must not leave before a welcome). */
  #sendNow(data: Uint8Array): boolean {
    if (!this.#canSend()) return false;
    this.#post(data);
    return true;
  }

  #onMessage(data: unknown): void {
    const st = this.#counters;
    st.messagesIn++;
    st.bytesIn += typeof data === "string" ? utf8Length(data) : data instanceof ArrayBuffer ? data.byteLength : ArrayBuffer.isView(data) ? data.byteLength : 0;
    const m = decodeIncoming(data);
    if (!(m instanceof DecodeError) && m.kind !== "keepalive" && this.#receipts.read(this.#attempts.socket, data)) {
      this.#post(this.#wire.receipt(this.#receipts.messages, this.#receipts.units));
    }
    if (m instanceof DecodeError) {
      st.decodeErrors++;
      this.#localError("bad_frame", `${m.code}: ${m.message}`);
      return;
    }
    switch (m.kind) {
      case "welcome":
        return this.#onWelcome(m);
      case "frame":
        return this.#onFrame(m);
      case "error":
        return this.#onServerError(m);
      case "pong":
        return this.#pinger.pong(m.clientTime, m.serverTime, this.#attempts.startedAt);
      case "keepalive":
        return;
      case "stats":
        return this.#statsRequests.resolve(m.requestId, m.stats);
      case "reply":
        if (m.code === 0) return this.#messageRequests.resolve(m.requestId, m.value);
        return this.#messageRequests.reject(m.requestId, new RequestError(m.name, m.reason, m.retryAfterMs));
    }
  }

  #onWelcome(m: Extract<Incoming, { kind: "welcome" }>): void {
    const { kind: _kind, ...welcome } = m;
    if (welcome.version !== PROTOCOL_VERSION) {
      this.#localError("version_mismatch", `server speaks protocol ${welcome.version}, client ${PROTOCOL_VERSION}`);
      return this.#attempts.abandon(LOCAL_PROTOCOL_CLOSE, "version mismatch");
    }
    const wantHash = this.decoder.schemaHash;
    if (!welcome.json && wantHash !== undefined && wantHash >>> 0 !== welcome.schemaHash >>> 0) {
      this.#localError("schema_mismatch", `room schema ${welcome.schemaHash}, decoder ${wantHash}`);
      return this.#attempts.abandon(LOCAL_PROTOCOL_CLOSE, "schema mismatch");
    }
    const now = this.#now();
    const prev = this.#welcomeInfo;
    const rejoin = this.#everJoined;
    this.#welcomeInfo = welcome;
    this.#tokenValue = welcome.token;
    this.#everJoined = true;
    if (rejoin) this.#counters.reconnects++;

    // Sequence numbers stay monotonic across seats and never reuse one the server applied.
    this.#nextSeq = Math.max(this.#nextSeq, welcome.lastSeq + 1);
    // Inputs not applied before the drop are stale: drop them, never replay them.
    this.#opts.predictor?.reset(welcome.lastSeq);
    this.#batcher?.drop();
    this.decoder.reset({ schemaHash: welcome.schemaHash, json: welcome.json, reconnected: welcome.reconnected });
    const snaps = this.#snapshots;
    if (prev && prev.roomEpoch !== welcome.roomEpoch) {
      // A different room instance: old timestamps and clock samples belong to another timeline.
      snaps?.clear();
      this.clock.reset();
    }
    if (welcome.syncIntervalMs > 0) snaps?.setSendInterval(welcome.syncIntervalMs);
    if (!Number.isNaN(this.#helloAt)) this.clock.addSample(this.#helloAt, welcome.serverTime, now);

    this.#lifecycle = "joined";
    this.#pinger.start();
    this.#attempts.welcomed();

    this.#emitter.emit("welcome", welcome);
    this.#joinWaiters.resolveAll(welcome);
  }

  #onFrame(f: IncomingFrame): void {
    if (this.#lifecycle !== "joined") return;
    const receivedAt = this.#now();
    const st = this.#counters;
    st.frames++;
    if (f.ackSeq > st.lastAck) st.lastAck = f.ackSeq;
    if (f.hasState) {
      try {
        this.decoder.apply(f.body);
      } catch (e) {
        // The decoder and the server disagree about the stream; continuing would render garbage.
        this.#localError("bad_frame", `state decode failed: ${String(e)}`);
        return this.#attempts.abandon(LOCAL_PROTOCOL_CLOSE, "state decode failed");
      }
    }
    if (f.events.length > 0 && this.#emitter.has("event")) {
      const game = this.#game;
      const dec = game ? game.decodeEvent : this.decoder.decodeEvent?.bind(this.decoder);
      for (const body of f.events) {
        const ev = dec ? dec(body) : body;
        // A game's decoder answers null for kinds this client does not know: skipped, not guessed.
        if (ev !== null || !game) this.#emitter.emit("event", { tick: f.tick, time: f.time, body: ev as E });
      }
    }
    this.#emitter.emit("state", {
      tick: f.tick,
      time: f.time,
      ackSeq: f.ackSeq,
      changed: f.hasState,
      state: this.decoder.state,
      receivedAt,
    });
  }

  #onServerError(m: Extract<Incoming, { kind: "error" }>): void {
    this.#attempts.noteRetryAfter(m.retryAfterMs);
    if (m.name === "bad_token") {
      // The held seat is gone: the next attempt joins as a new player instead of insisting.
      this.#attempts.noteTokenRejected();
      this.#tokenValue = "";
    }
    this.#emitter.emit("error", { code: m.code, name: m.name, reason: m.reason, retryAfterMs: m.retryAfterMs, local: false });
  }

  #localError(name: string, reason: string): void {
    this.#emitter.emit("error", { code: 0, name, reason, retryAfterMs: 0, local: true });
  }

  #finish(info: CloseInfo): void {
    this.#lifecycle = "closed";
    this.#pinger.stop();
    this.#emitter.emit("close", info);
    const err = new Error(`connection closed (${info.code} ${info.reason})`);
    this.#joinWaiters.rejectAll(err);
    this.#statsRequests.rejectAll(err);
    this.#dropRequests(err.message);
  }

  /** Room message requests die with their socket: a reply can only come back on the one that asked. */
  #dropRequests(reason: string): void {
    this.#messageRequests.rejectAll(new RequestError("closed", reason));
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
 * With `game` (a game's `GameTypes` declaration) the kind, JSON mode and state decoder come from
 * it, and the connection is typed by it: `sendInput` takes the game's input (its codec encodes
 * it), `event` bodies are its decoded events, `state` its view, and `send` / `request` its
 * room messages. With `startClosed: true` the
 * connection waits for {@link RoomConnection.open}.
 *
 * @example
 * ```ts
 * const room = connect("wss://play.example.com", { game: tagGame, room: "r1" });
 * room.sendInput({ dx: 1, dy: 0 });
 * room.on("event", (e) => { if (e.body.kind === "youAre") me = e.body.entity; });
 * ```
 * @throws Error when no WebSocket implementation is available (pass `WebSocketImpl`).
 */
export function connect<G extends AnyGameTypes>(url: string, options: GameConnectOptions<G>): RoomConnection<StateOf<G>, InputOf<G>, EventOf<G>, MessagesOf<G>>;
/** Joins with an explicit `kind` and `decoder` (raw input payloads and event bodies). */
export function connect<S = unknown>(url: string, options: ConnectOptions<S>): RoomConnection<S>;
export function connect(url: string, options: ConnectOptions | GameConnectOptions<AnyGameTypes>): RoomConnection<unknown, unknown, unknown> {
  const conn = new RoomConnection<unknown, unknown, unknown>(url, options);
  conn.start();
  return conn;
}
