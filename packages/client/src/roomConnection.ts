/**
 * {@link RoomConnection}, the SDK's one public object: the whole life of a connection as one state
 * machine over one set of fields, the socket side (one attempt at a time, its timeout, the retry
 * delay the reconnect rules choose: reconnect.ts, backoff.ts; every way a socket ends in one
 * place) and the protocol side (hello → welcome → frames, the seat's token, clock pings, the
 * events listeners see). What a game sees of it, documented: roomConnectionApi.ts. The parts that
 * need none of those fields live beside it: listeners (listeners.ts), inputs (inputs.ts), the
 * traffic counters (stats.ts); what a page opts into follows it from outside (room messages:
 * messaging.ts; snapshot buffers: snapshotLink.ts; a `clock`).
 */
import { BAD_TOKEN_ERROR, CloseCode, DecodeError, PROTOCOL_VERSION, ReceiptCounter, binaryDialect, closeName, readCloseReason } from "@tikron/protocol";
import type { AnswerMessage, AnswerReader, AnyGameTypes, ClientDialect, EventOf, InputOf, MessagesOf, Notice, StateOf } from "@tikron/protocol";
import { PING_BURST, type ClockSync } from "./clockSync";
import type { ConnectOptions, GameConnectOptions } from "./connectOptions";
import { jsonStateDecoder, rawDeltaDecoder, type StateDecoder } from "./decoder";
import { inputSender, type InputSender } from "./inputs";
import { JoinError } from "./joinError";
import { RoomEmitter } from "./listeners";
import type { RoomConnectionApi } from "./roomConnectionApi";
import { backoffDelay, backoffTunables, type BackoffTunables } from "./backoff";
import { RESTART, STABLE_AFTER_MS, mayRetry } from "./reconnect";
import type { ConnectionStatus, RoomEvents } from "./roomEvents";
import { roomUrl } from "./roomUrl";
import { schemaDecoder } from "./schemaDecoder";
import { WS_OPEN, type WebSocketConstructor, type WebSocketLike } from "./socket";
import { createStats, type ConnectionStats } from "./stats";
import { byteSize, type Incoming, type IncomingFrame, type WelcomeInfo } from "./wire";

/** Spacing of the quick clock pings right after a welcome (ms). */
const PING_BURST_SPACING_MS = 100;

/**
 * A live room connection: joins, keeps the seat across drops, syncs a `clock` given one, and turns
 * the server's frames into typed events. Created by {@link connect}. `S` is the state `state`
 * events carry, `I` what {@link sendInput} takes, `E` the body of `event` events, `M` the room
 * messages `send` and `request` take (once `withMessages` gave the connection them) and `N` the
 * notices `notice` events carry; connecting with a `game` declaration fills all five from it.
 * Written by hand, `RoomConnection<S>` (or `RoomConnection`) takes the connection of any game
 * whose state is `S`: `M` and `N` default to `any`, since a connection limited to its game's
 * message names could not pass where any name may be sent.
 */
export class RoomConnection<S = unknown, I = unknown, E = unknown, M = any, N = any> extends RoomEmitter<RoomEvents<S, E, N>> implements RoomConnectionApi<S, I> {
  // Declared, not defined: as ES2022 class fields each name would be emitted twice (see Field).
  declare readonly baseUrl: string;
  declare readonly decoder: StateDecoder<S>;
  readonly #opts: ConnectOptions<S> | GameConnectOptions<AnyGameTypes>;
  /** The game declaration connected with, or null (raw payloads and bodies). */
  readonly #game: AnyGameTypes | null;
  /** The dialect spoken: the game's, the `json` option's, or binary. */
  readonly #dialect: ClientDialect;
  readonly #now: () => number;
  /** The `clock` option's clock sync, fed every round trip; none without it. */
  readonly #clock: ClockSync | undefined;
  readonly #Impl: WebSocketConstructor;
  /** The `reconnect` option's backoff, or null with reconnecting off. */
  readonly #backoff: BackoffTunables | null;
  /** Retries since the connection was last stable (the next delay's attempt number). */
  #failures = 0;
  /** @internal Reads and takes the room's answers (REPLY, STATS) once `withMessages` gave the connection requests; else they are dropped unread. */
  declare _answers?: { read: AnswerReader; take(m: AnswerMessage): void };
  /** @internal The game's room messages: a type for `withMessages` (never set). */
  declare readonly _messages?: M;
  /** Callers of {@link whenJoined} waiting for the next welcome. */
  #joinWaiters: { resolve(welcome: WelcomeInfo): void; reject(error: Error): void }[] = [];
  /** Why the connection last ended (set whenever it becomes `closed`): what {@link whenJoined} rejects with then. */
  #ended: JoinError | null = null;
  readonly #receipts = new ReceiptCounter();
  readonly #inputs: InputSender;
  /** The traffic counters behind {@link stats}, kept current as traffic happens. */
  readonly #counters = createStats();
  #roomId: string;
  #kindName: string;
  #ticket: ConnectOptions["ticket"];
  #status: ConnectionStatus = "idle";
  #token: string;
  #welcome: WelcomeInfo | null = null;

  /** The current socket, or null between attempts. Its handlers check it is still this one. */
  #ws: WebSocketLike | null = null;
  /** Bumped by every attempt and every stop: an attempt still fetching its ticket from before is dropped. */
  #attempt = 0;
  /** Local time the hello went out on the current socket: pongs to pings sent before it are not round trips on it. */
  #helloAt = NaN;
  #joinedAt = 0;
  /** The longest pause an ERROR on the current socket asked for before the next attempt. */
  #retryAfterMs = 0;
  /** The server refused our reconnect token on the current socket: the next attempt joins anew. */
  #tokenRejected = false;
  /**
   * The one wait of the current phase: the connect timeout while an attempt waits for its
   * welcome, the next ping while joined, the backoff delay between attempts.
   */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pingsLeft = 0;

  /** @internal Use {@link connect}. Connects at once unless `startClosed`. */
  constructor(baseUrl: string, options: ConnectOptions<S> | GameConnectOptions<AnyGameTypes>) {
    super();
    this.baseUrl = baseUrl;
    this.#opts = options;
    const now = (this.#now = options.now ?? (() => performance.now()));
    const game = "game" in options ? options.game : null;
    this.#game = game;
    this.#roomId = options.room;
    this.#kindName = options.kind ?? game?.kind ?? "";
    this.#ticket = options.ticket;
    this.#token = options.token ?? "";
    const dialect = (this.#dialect = game ? game.dialect : ((options as ConnectOptions<S>).json || binaryDialect));
    // A JavaScript caller may still pass the old `json: true`: say what replaced it.
    if (!dialect.decode) throw new TypeError("json: pass jsonDialect");
    const json = dialect.json;
    const given = game ? (game.schema ? schemaDecoder(game.schema) : undefined) : (options as ConnectOptions<S>).decoder;
    this.decoder = (given ?? (json ? jsonStateDecoder() : rawDeltaDecoder())) as StateDecoder<S>;
    this.#clock = options.clock;
    const post = (data: string | Uint8Array): boolean => this.#canSend() && this.#post(data);
    this.#inputs = inputSender(game, dialect, json ? undefined : options.batchInputs?.(post, now), this.#counters, post);
    this.#backoff = options.reconnect === false ? null : backoffTunables(options.reconnect);
    const Impl = options.WebSocketImpl ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Impl) throw new Error("no WebSocket: pass WebSocketImpl");
    this.#Impl = Impl;
    if (options.startClosed !== true) this.open();
  }

  get status(): ConnectionStatus {
    return this.#status;
  }

  get state(): S {
    return this.decoder.state;
  }

  get room(): string {
    return this.#roomId;
  }

  get kind(): string {
    return this.#kindName;
  }

  get welcome(): WelcomeInfo | null {
    return this.#welcome;
  }

  get playerId(): number {
    return this.#welcome?.playerId ?? -1;
  }

  get token(): string {
    return this.#token;
  }

  get stats(): ConnectionStats {
    return this.#counters;
  }

  whenJoined(): Promise<WelcomeInfo> {
    if (this.#status === "joined") return Promise.resolve(this.#welcome!);
    if (this.#status === "closed") return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => this.#joinWaiters.push({ resolve, reject }));
  }

  sendInput(input: I): number {
    return this.#inputs.send(input, this.#canSend());
  }

  /** Sends any batched inputs now (see `batchInputs`); what cannot be sent is dropped, never kept for later. */
  readonly flushInputs = (): void => this.#inputs.flush();

  close(options: { leave?: boolean } = {}): void {
    if (this.#status === "closed") return;
    // Also before the welcome: the room may have seated us on the hello already sent (#post sends only on an open socket).
    if (options.leave !== false) this.#post(this.#dialect.leave());
    this.#end(1000, "client closed", true, null);
  }

  leave(): void {
    this.close();
  }

  open(): void {
    // From idle, the restart reports no close: there was no socket.
    if (this.#status === "idle" || this.#status === "closed") this.reconnect();
  }

  reconnect(): void {
    this.#end(1000, "reconnect", true, RESTART);
  }

  switchTo(room: string, options: { kind?: string; ticket?: ConnectOptions["ticket"]; token?: string } = {}): void {
    this.#post(this.#dialect.leave());
    this.#roomId = room;
    this.#kindName = options.kind ?? this.#kindName;
    this.#ticket = options.ticket ?? this.#ticket;
    this.#token = options.token ?? "";
    // A new room: its first welcome is a first join, on another clock and timeline.
    this.#welcome = null;
    this.#end(1000, "switching rooms", true, RESTART);
  }

  /** One attempt: ticket → socket → hello on open; one not welcomed within `connectTimeoutMs` of its start (the ticket fetch included) is abandoned. */
  async #open(): Promise<void> {
    const attempt = ++this.#attempt;
    this.#retryAfterMs = 0;
    this.#tokenRejected = false;
    // Started before the ticket fetch: a ticket function that never answers must not hang the attempt.
    this.#timer = setTimeout(() => this.#dropped(1006, "connect timeout"), this.#opts.connectTimeoutMs ?? 10_000);
    let ticket = this.#ticket;
    let auth = this.#opts.authToken;
    if (typeof ticket === "function" || typeof auth === "function") {
      try {
        if (typeof ticket === "function") ticket = await ticket();
        if (typeof auth === "function") auth = await auth();
      } catch (e) {
        // An error listener may have closed, reconnected or switched the connection meanwhile.
        if (attempt === this.#attempt && this.#error("ticket_failed", `ticket: ${String(e)}`)) this.#dropped(1006, "ticket unavailable");
        return;
      }
      if (attempt !== this.#attempt) return;
    }
    let ws: WebSocketLike;
    try {
      ws = new this.#Impl(roomUrl(this.baseUrl, this.#kindName, this.#roomId, ticket, this.#opts.reservation, auth));
    } catch (e) {
      // A malformed URL never becomes valid: report and stop.
      if (this.#error("bad_url", String(e))) this.#end(1006, "could not create socket", false, null);
      return;
    }
    this.#ws = ws;
    ws.binaryType = "arraybuffer";
    // A dropped socket keeps its handlers; they check identity, so its late events reach nothing.
    ws.onopen = () => {
      if (this.#ws !== ws) return;
      this.#helloAt = this.#now();
      this.#post(this.#dialect.hello(this.#token, this.#opts.name ?? "", this.#opts.joinOptions));
    };
    ws.onmessage = (ev: { data: unknown }) => {
      if (this.#ws === ws) this.#onMessage(ev.data);
    };
    ws.onclose = (ev: { code?: number; reason?: string }) => {
      // 1006 (abnormal) when the implementation gave no code.
      if (this.#ws === ws) this.#dropped(ev.code ?? 1006, ev.reason ?? "");
    };
    // Browsers follow an error with a close (1006), but Node's WebSocket does not after a refused
    // upgrade or an unreachable server: an error is the drop, and the close after it, if any,
    // finds another socket current and is ignored.
    ws.onerror = (ev: { message?: string } | undefined) => {
      if (this.#ws === ws) this.#dropped(1006, ev?.message || "connection failed");
    };
  }

  /**
   * The socket ended without {@link close} (the server closed it, the attempt timed out or could
   * not get a ticket, or the stream could not be understood): another attempt after a backoff
   * delay, or the end, as `ReconnectPolicy` would decide (the same rules: `mayRetry`, `backoffDelay`).
   */
  #dropped(code: number, reason: string): void {
    // A refusal's close reason may ask for a wait too (refusalCloseReason); the longest ask wins.
    const wait = readCloseReason(reason).retryAfterMs;
    if (wait > this.#retryAfterMs) this.#retryAfterMs = wait;
    // A seat held this long proved the link: earlier failures no longer count.
    if (this.#status === "joined" && this.#now() - this.#joinedAt >= STABLE_AFTER_MS) this.#failures = 0;
    const backoff = this.#backoff;
    // The server's pause goes under the jitter.
    const delayMs = backoff && mayRetry(code, this.#tokenRejected) ? backoffDelay(backoff, this.#failures, this.#retryAfterMs) : null;
    this.#end(code, reason, false, delayMs === null ? null : { attempt: ++this.#failures, delayMs });
  }

  /**
   * Every way a socket ends: cancels the attempt and its wait, closes the socket if still open,
   * drops queued inputs, then reports the close (open requests fail on it) and starts what follows:
   * with `retry` null the connection ends (waiters of {@link whenJoined} fail too); with
   * {@link RESTART} (a deliberate restart) the next attempt starts at once with a fresh backoff;
   * otherwise it is announced (`reconnecting`) and starts after `retry.delayMs`.
   */
  #end(code: number, reason: string, deliberate: boolean, retry: { attempt: number; delayMs: number } | null): void {
    this.#attempt++;
    clearTimeout(this.#timer);
    const ws = this.#ws;
    this.#ws = null;
    try {
      // A close from our side may only carry an application code or 1000.
      ws?.close(code >= 4000 ? code : 1000, reason);
    } catch {
      // Already closing, or never opened: nothing left to close.
    }
    this.#inputs.drop();
    this.#status = retry ? (this.#welcome ? "reconnecting" : "connecting") : "closed";
    if (!retry) {
      const name = closeName(code);
      const ended = (this.#ended = new JoinError(deliberate || name === "unknown" ? "closed" : name, code, readCloseReason(reason).reason, this.#retryAfterMs));
      for (const w of this.#joinWaiters.splice(0)) w.reject(ended);
    }
    // Reported: a dropped socket, a failed attempt, the end. A restart with no socket to drop
    // (idle, closed, between attempts, fetching a ticket) has no close to report.
    // A listener may close, reconnect or switch the connection: then nothing more happens here.
    if ((ws || !deliberate || !retry) && !this.#emitStill("close", { code, reason, willReconnect: !!retry, deliberate })) return;
    if (!retry) return;
    if (retry === RESTART) {
      this.#failures = 0;
      void this.#open();
    } else if (this.#emitStill("reconnecting", { attempt: retry.attempt, delayMs: retry.delayMs, code, reason })) {
      this.#timer = setTimeout(() => void this.#open(), retry.delayMs);
    }
  }

  #canSend(): boolean {
    return this.#status === "joined" && this.#ws?.readyState === WS_OPEN;
  }

  /** Sends on the current socket when it is open; false when it is not (nothing sent). */
  #post(data: string | Uint8Array): boolean {
    const ws = this.#ws;
    if (ws?.readyState !== WS_OPEN) return false;
    ws.send(data);
    this.#counters.messagesOut++;
    this.#counters.bytesOut += byteSize(data);
    return true;
  }

  /**
   * @internal Sends what `encode` makes in this connection's dialect while joined; false, sending
   * nothing, otherwise. The seam `withMessages` sends through.
   */
  _send(encode: (dialect: ClientDialect) => string | Uint8Array): boolean {
    return this.#canSend() && this.#post(encode(this.#dialect));
  }

  /** Schedules the next ping: quick clock pings during the burst after a welcome (with a clock), then a keepalive every `pingIntervalMs`. */
  #schedulePing(): void {
    this.#timer = setTimeout(this.#ping, this.#pingsLeft > 0 ? PING_BURST_SPACING_MS : (this.#opts.pingIntervalMs ?? 2000));
  }

  // Scheduled only while joined: every way out of `joined` clears the timer.
  readonly #ping = (): void => {
    const t = this.#now();
    // The burst syncs the clock; after it JSON rooms only need to stay alive, and a fixed
    // keepalive lets a sleeping turn-based room answer without waking up (a binary room's
    // keepalive is a ping, which keeps a clock synced).
    this.#post(this.#pingsLeft > 0 ? this.#dialect.ping(t) : this.#dialect.keepalive(t));
    if (this.#pingsLeft > 0) this.#pingsLeft--;
    this.#schedulePing();
  };

  /** Emits `event`; false when a listener closed, reconnected or switched the connection meanwhile. */
  // Events typed loosely inside (`any` body) so a connection of any event type passes where any is taken.
  #emitStill<K extends keyof RoomEvents<S, any, any>>(event: K, payload: RoomEvents<S, any, any>[K]): boolean {
    const attempt = this.#attempt;
    this.emit(event, payload);
    return attempt === this.#attempt;
  }

  #onMessage(data: unknown): void {
    const st = this.#counters;
    st.messagesIn++;
    st.bytesIn += byteSize(data);
    const answers = this._answers;
    const m = this.#dialect.decode(data, answers ? answers.read : null);
    if (m instanceof DecodeError) return this.#badFrame(`${m.code}: ${m.message}`);
    // Every message counts toward receipts, an answer left unread (null) too; a keepalive does not.
    if (m?.kind !== "keepalive" && this.#receipts.read(this.#ws, data)) {
      this.#post(this.#dialect.receipt(this.#receipts.messages, this.#receipts.units));
    }
    switch (m?.kind) {
      case "welcome":
        return this.#onWelcome(m);
      case "frame":
        return this.#onFrame(m);
      case "error":
        return this.#onServerError(m);
      case "pong":
        if (m.clientTime >= this.#helloAt) this.#clock?.addSample(m.clientTime, m.serverTime, this.#now());
        return;
      case "stats":
      case "reply":
        return answers!.take(m);
      case "cadence": {
        // The room's new rates: the welcome's copy follows them, and so does interpolation.
        if (this.#status !== "joined") return;
        const { kind: _kind, ...rates } = m;
        this.#welcome = { ...this.#welcome!, ...rates };
        return this.emit("cadence", rates);
      }
      case "notice":
        if (this.#status === "joined") this.emit("notice", { type: m.type, data: m.data } as Notice<N>);
    }
  }

  #onWelcome(m: Extract<Incoming, { kind: "welcome" }>): void {
    const { kind: _kind, ...welcome } = m;
    if (welcome.version !== PROTOCOL_VERSION) {
      return this.#fail("version_mismatch", `server speaks protocol ${welcome.version}, client ${PROTOCOL_VERSION}`);
    }
    const wantHash = this.decoder.schemaHash;
    // Not skipped for a welcome flagged JSON: that flag on a binary stream must not pass a
    // mismatched decoder (JSON rooms report hash 0, and their decoders declare none).
    if (wantHash !== undefined && wantHash >>> 0 !== welcome.schemaHash >>> 0) {
      return this.#fail("schema_mismatch", `room schema ${welcome.schemaHash}, decoder ${wantHash}`);
    }
    const now = this.#now();
    const prev = this.#welcome;
    if (prev) this.#counters.reconnects++;
    this.#welcome = welcome;
    this.#token = welcome.token;
    // Inputs not applied before the drop are stale: dropped, never replayed; sequence numbers
    // go on above the last one the server applied.
    this.#inputs.rejoined(welcome.lastSeq);
    this.#opts.predictor?.reset(welcome.lastSeq);
    this.decoder.reset(welcome); // carries the reset info: schemaHash, json, reconnected
    // A different room instance (a restart: a deploy, an eviction; or another room) counts time
    // from its own epoch: the clock's samples belong to the old one.
    const clock = this.#clock;
    if (prev?.roomEpoch !== welcome.roomEpoch) clock?.reset(welcome.roomEpoch);
    // The clock refuses a sample that is no round trip (no hello went out on this socket); a
    // second welcome on a joined socket (a relayed room's simulation restarted) answers none.
    if (this.#status !== "joined") clock?.addSample(this.#helloAt, welcome.serverTime, now);
    this.#status = "joined";
    this.#joinedAt = now;
    // The connect timeout is over; the pings start, with a fresh burst for the clock.
    clearTimeout(this.#timer);
    this.#pingsLeft = clock ? PING_BURST : 0;
    this.#schedulePing();
    this.emit("welcome", welcome);
    for (const w of this.#joinWaiters.splice(0)) w.resolve(welcome);
  }

  #onFrame(f: IncomingFrame): void {
    if (this.#status !== "joined") return;
    const receivedAt = this.#now();
    const st = this.#counters;
    st.frames++;
    if (f.ackSeq > st.lastAck) st.lastAck = f.ackSeq;
    if (f.hasState) {
      try {
        this.decoder.apply(f.body);
      } catch (e) {
        return this.#badFrame(`state decode failed: ${String(e)}`);
      }
    }
    if (f.events.length > 0 && this.listened("event")) {
      const game = this.#game;
      const dec = game ? game.decodeEvent : this.decoder.decodeEvent?.bind(this.decoder);
      for (const body of f.events) {
        let ev;
        try {
          ev = dec ? dec(body) : body;
        } catch (e) {
          return this.#badFrame(`event decode failed: ${String(e)}`);
        }
        // A game's decoder answers null for kinds this client does not know: skipped, not guessed.
        // A listener that closed or switched the connection hears no more of this frame.
        if ((ev !== null || !game) && !this.#emitStill("event", { tick: f.tick, time: f.time, body: ev as E })) return;
      }
    }
    this.emit("state", {
      tick: f.tick,
      time: f.time,
      ackSeq: f.ackSeq,
      changed: f.hasState,
      state: this.decoder.state,
      receivedAt,
    });
  }

  #onServerError(m: Extract<Incoming, { kind: "error" }>): void {
    if (m.retryAfterMs > this.#retryAfterMs) this.#retryAfterMs = m.retryAfterMs;
    if (m.code === BAD_TOKEN_ERROR) {
      // The held seat is gone: the next attempt joins as a new player instead of insisting.
      this.#tokenRejected = true;
      this.#token = "";
    }
    this.#emitStill("error", { code: m.code, reason: m.reason, retryAfterMs: m.retryAfterMs, local: false });
  }

  /**
   * A server message, state body or event body that cannot be decoded: the client and the server
   * disagree about the stream (a lost delta leaves the view out of step, a lost reply its request
   * waiting), so continuing would render garbage. Counted, reported, and the socket dropped.
   */
  #badFrame(reason: string): void {
    this.#counters.decodeErrors++;
    this.#fail("bad_frame", reason);
  }

  /**
   * The server's stream cannot be understood (a protocol or schema it does not share, a body the
   * decoder refuses): reports it and drops the socket with a code that is not retried.
   */
  #fail(name: string, reason: string): void {
    if (this.#error(name, reason)) this.#dropped(CloseCode.protocol_error, name); // retrying would repeat it
  }

  /**
   * Reports a local problem as an `error` event (code 0, named). False when a listener closed,
   * reconnected or switched the connection meanwhile.
   */
  #error(name: string, reason: string): boolean {
    return this.#emitStill("error", { code: 0, name, reason, retryAfterMs: 0, local: true });
  }
}
