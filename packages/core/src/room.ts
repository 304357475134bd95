import {
  BinaryWriter,
  CloseCode,
  ErrorCode,
  FrameFlag,
  InputFrameReader,
  JSON_KEEPALIVE,
  Kind,
  MAX_CLIENT_FRAME_BYTES,
  PROTOCOL_VERSION,
  beginFrame,
  decodeClientMessage,
  decodeJsonClientMessage,
  encodeError,
  encodePong,
  encodeStats,
  encodeWelcome,
  endFrame,
  isDecodeError,
  writeFrameAck,
  writeFrameEvents,
  type DecodeError,
  type ErrorName,
  type InputEntry,
} from "@tikron/protocol";
import { systemClock, type Clock, type TimerHandle } from "./clock";
import type { Connection } from "./connection";
import { isRejection, type Game, type GameContext, type InputRejection } from "./game";
import { InputQueue } from "./inputQueue";
import { defaultRoomOptions, type RoomOptions } from "./roomOptions";
import { RoomStats, TIMING_NOTE, type RoomStatsSnapshot } from "./roomStats";
import type { ClientLink, Seat } from "./seat";
import type { JsonStateSource, StateEncoder } from "./stateEncoder";
import { TickScheduler } from "./tickScheduler";
import { TokenBucket } from "./tokenBucket";

/** A room session (first seat taken → last seat freed), reported for durable records. */
export interface RoomSessionRecord {
  kind: string;
  roomId: string;
  startedAt: number;
  endedAt: number;
  peakCcu: number;
  totalJoins: number;
  refusals: number;
  closes: Record<string, number>;
}

/** Optional observers of a room's life; never called on the tick path. */
export interface RoomHooks {
  /** A session started (first seat taken in an empty room). */
  onSessionStart?(info: { kind: string; roomId: string; startedAt: number }): void;
  /** The last seat was freed. */
  onSessionEnd?(record: RoomSessionRecord): void;
  /** A socket took (or retook) a seat: adapters persist the ticket to survive restarts. */
  onSeated?(connId: number, ticket: SeatTicket): void;
}

/** What a restored socket carries across a runtime restart (e.g. in a WebSocket attachment). */
export interface SeatTicket {
  playerId: number;
  token: string;
  name: string;
  json: boolean;
  /** Verified external player id the seat is bound to (see {@link Room.open}). */
  identity?: string;
}

export interface RoomInit {
  kind: string;
  roomId: string;
  game: Game;
  options?: Partial<RoomOptions>;
  clock?: Clock;
  hooks?: RoomHooks;
}

const perfNow: () => number =
  typeof performance !== "undefined" && typeof performance.now === "function"
    ? () => performance.now()
    : () => Date.now();

function randomToken(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/**
 * The runtime-agnostic room: seats players, validates and queues their inputs, runs the tick
 * loop, flushes per-client state on a throttle and answers the `tk:stats` probe. It speaks the
 * wire protocol over {@link Connection}s handed in by an adapter and knows nothing of Cloudflare.
 */
export class Room {
  readonly kind: string;
  readonly roomId: string;
  readonly options: RoomOptions;
  readonly stats = new RoomStats();
  private readonly game: Game;
  private readonly clock: Clock;
  private readonly hooks: RoomHooks;
  private readonly epoch: number;
  private readonly scheduler: TickScheduler;
  private readonly syncEveryTicks: number;
  private readonly queue = new InputQueue<unknown>();
  private readonly writer = new BinaryWriter(4096);
  private readonly inputReader = new InputFrameReader();
  private readonly links = new Map<number, LinkX>();
  private readonly seatsByToken = new Map<string, Seat>();
  /** Seats bound to a verified external player id, and the reverse, for freeing. */
  private readonly seatsByIdentity = new Map<string, Seat>();
  private readonly identityOfSeat = new Map<Seat, string>();
  private readonly seatsById = new Map<number, Seat>();
  /** Dense list for the flush loop (no iterator allocation on the hot path). */
  private seatList: Seat[] = [];
  private readonly joinBucket: TokenBucket;
  private nextConnId = 1;
  private nextPlayerId = 1;
  private flushIndex = 0;
  private tickIndex = 0;
  private jsonDirty = false;
  private immediateFlushQueued = false;
  private expiryTimer: TimerHandle | null = null;
  private expiryAt = Infinity;
  private connected = 0;
  private session: { startedAt: number; peakCcu: number; joins: number; refusals: number; closes: Record<string, number> } | null = null;
  private readonly ctx: GameContext;

  constructor(init: RoomInit) {
    this.kind = init.kind;
    this.roomId = init.roomId;
    this.game = init.game;
    this.clock = init.clock ?? systemClock;
    this.hooks = init.hooks ?? {};
    this.options = { ...defaultRoomOptions, ...init.options };
    this.epoch = this.clock.now();
    this.syncEveryTicks = Math.max(1, Math.round(this.options.syncIntervalMs / this.options.tickMs));
    this.scheduler = new TickScheduler(this.clock, this.options.tickMs, (k, now) => this.runTick(k, now));
    this.joinBucket = new TokenBucket(this.options.joinRatePerSec, this.options.joinBurst, this.epoch);
    const room = this;
    this.ctx = {
      now: () => room.clock.now(),
      emit: (event, to) => room.emit(event, to),
      markChanged: () => room.markChanged(),
      count: (counter, by = 1) => RoomStats.bump(room.stats.game, counter, by),
    };
    this.game.init?.(this.ctx);
  }

  /** Connected clients (seated, with a live socket). */
  get ccu(): number {
    return this.connected;
  }

  /** Seats taken, connected or held for a reconnect. */
  get seatCount(): number {
    return this.seatsById.size;
  }

  /**
   * Whether the game runs a tick loop. Adapters pick their socket API by it: a ticking room is
   * awake while anyone is connected, a turn-based one can sleep between moves.
   */
  get ticking(): boolean {
    return this.game.ticking;
  }

  /** True while the tick loop is scheduled. */
  get loopRunning(): boolean {
    return this.scheduler.running;
  }

  /**
   * A socket opened. Returns the id the adapter passes to {@link message} and {@link closed}.
   * `identity` is a player id the adapter has verified (e.g. from a signed join ticket): such a
   * socket always gets that player's seat back, whatever token its hello carries, and one
   * identity never holds two seats, so one ticket cannot fill a room.
   */
  open(conn: Connection, identity?: string): number {
    const connId = this.nextConnId++;
    const now = this.clock.now();
    const link: LinkX = {
      connId,
      conn,
      json: false,
      seat: null,
      errors: 0,
      closed: false,
      bucket: new TokenBucket(this.options.msgRatePerSec, this.options.msgBurst, now),
      dropped: 0,
      helloTimer: null,
      identity,
      lastStatsAt: -Infinity,
    };
    link.helloTimer = this.clock.setTimer(() => {
      link.helloTimer = null;
      if (!link.seat && !link.closed) this.closeLink(link, CloseCode.hello_timeout, "no hello in time");
    }, this.options.helloTimeoutMs);
    this.links.set(connId, link);
    return connId;
  }

  /**
   * Re-attaches a socket that survived a runtime restart (e.g. Durable Object hibernation) to a
   * fresh room: the seat is rebuilt with the same id and token, and the client gets no welcome.
   */
  adopt(conn: Connection, ticket: SeatTicket): number {
    const connId = this.open(conn, ticket.identity);
    const link = this.links.get(connId)!;
    link.json = ticket.json;
    this.clearHelloTimer(link);
    this.nextPlayerId = Math.max(this.nextPlayerId, ticket.playerId + 1);
    const seat = this.createSeat(ticket.playerId, ticket.token, ticket.name, ticket.identity);
    // The game is as new as the room: give the restored seat its entity before it is attached.
    this.game.join(seat.playerId, seat.name);
    this.attach(seat, link);
    return connId;
  }

  /** One message arrived on a socket. Never throws; bad input is answered and counted. */
  message(connId: number, data: Uint8Array | ArrayBuffer | string): void {
    const link = this.links.get(connId);
    if (!link || link.closed) return;
    const now = this.clock.now();
    const size = typeof data === "string" ? data.length : data.byteLength;
    this.stats.messagesIn++;
    this.stats.bytesIn += size;
    if (!link.bucket.take(now)) {
      link.dropped++;
      RoomStats.bump(this.stats.errors, "rate_limited");
      if (link.dropped > this.options.msgBurst) {
        this.closeLink(link, CloseCode.rate_limited, "message rate limit exceeded");
      } else if (link.dropped === 1 || link.dropped % 20 === 0) {
        this.sendError(link, "rate_limited", "too many messages; dropped", link.bucket.waitMs(now));
      }
      return;
    }
    try {
      if (typeof data === "string") this.onText(link, data, now);
      else this.onBinary(link, data instanceof Uint8Array ? data : new Uint8Array(data), now);
    } catch (e) {
      // A game bug must not take the room down for everyone else.
      RoomStats.bump(this.stats.errors, "internal");
      this.sendError(link, "bad_input", "input could not be processed");
      console.error(`[room ${this.kind}:${this.roomId}] message handler error`, e);
    }
  }

  /** A socket closed (by the peer or the network). */
  closed(connId: number, code: number, _reason = ""): void {
    const link = this.links.get(connId);
    if (!link) return;
    this.links.delete(connId);
    this.clearHelloTimer(link);
    if (!link.closed) {
      link.closed = true;
      this.countClose(code);
    }
    const seat = link.seat;
    if (seat && seat.conn === link) this.hold(seat);
  }

  /** The `tk:stats` snapshot. */
  snapshot(): RoomStatsSnapshot {
    const s = this.stats;
    return {
      kind: this.kind,
      roomId: this.roomId,
      uptimeMs: this.clock.now() - this.epoch,
      ccu: this.connected,
      seats: this.seatsById.size,
      heldSeats: this.seatsById.size - this.connected,
      peakCcu: s.peakCcu,
      cap: this.options.cap,
      tickMs: this.options.tickMs,
      syncIntervalMs: this.syncEveryTicks * this.options.tickMs,
      queueInputs: this.options.queueInputs,
      loopRunning: this.scheduler.running,
      ticks: s.ticks,
      ticksSkipped: this.scheduler.skipped,
      flushes: s.flushes,
      tick: s.tick.summary(),
      flush: s.flush.summary(),
      inputs: {
        received: s.inputsReceived,
        processed: s.inputsProcessed,
        rejected: s.inputsRejected,
        rejectedByCode: { ...s.rejectedByCode },
      },
      acks: s.acks,
      frames: s.frames,
      bytesOut: s.bytesOut,
      bytesIn: s.bytesIn,
      messagesIn: s.messagesIn,
      joins: s.joins,
      reconnects: s.reconnects,
      refused: { ...s.refused },
      closes: { ...s.closes },
      errors: { ...s.errors },
      game: { ...s.game },
      timing: TIMING_NOTE,
    };
  }

  /** Tickets of every live socket, for adapters that persist them across restarts. */
  seatTicket(connId: number): SeatTicket | null {
    const link = this.links.get(connId);
    const seat = link?.seat;
    if (!link || !seat) return null;
    return this.ticketOf(seat, link);
  }

  private ticketOf(seat: Seat, link: LinkX): SeatTicket {
    const identity = this.identityOfSeat.get(seat);
    return { playerId: seat.playerId, token: seat.token, name: seat.name, json: link.json, ...(identity !== undefined ? { identity } : {}) };
  }

  /** Stops timers and closes every socket (room shutdown). */
  dispose(code: number = CloseCode.room_closed, reason = "room closed"): void {
    this.scheduler.stop();
    if (this.expiryTimer !== null) this.clock.clearTimer(this.expiryTimer);
    this.expiryTimer = null;
    for (const link of [...this.links.values()]) this.closeLink(link, code, reason);
  }

  // ---- message handling ---------------------------------------------------------------

  private onBinary(link: LinkX, bytes: Uint8Array, now: number): void {
    if (link.seat && link.json) return this.protocolError(link, "bad_frame", "binary frame on a JSON connection");
    if (bytes[0] === Kind.Input) {
      // The per-player, per-tick message: read into reused entries, no message object.
      const reader = this.inputReader;
      const err = reader.read(bytes);
      if (err) return this.decodeFailed(link, err, bytes.length);
      this.inputs(link, reader.entries, reader.count, now);
      return reader.release();
    }
    const msg = decodeClientMessage(bytes);
    if (isDecodeError(msg)) return this.decodeFailed(link, msg, bytes.length);
    switch (msg.kind) {
      case "hello":
        return this.hello(link, msg.version, msg.token, msg.name, false, now);
      case "input":
        return this.inputs(link, msg.inputs, msg.inputs.length, now);
      case "ping":
        return link.conn.send(encodePong(this.writer.reset(), msg.clientTime, now).toBytes());
      case "statsRequest":
        if (!this.statsAllowed(link, now)) return;
        return link.conn.send(encodeStats(this.writer.reset(), msg.requestId, JSON.stringify(this.snapshot())).toBytes());
      case "leave":
        return this.leave(link);
    }
  }

  private onText(link: LinkX, text: string, now: number): void {
    if (link.seat && !link.json) return this.protocolError(link, "bad_frame", "text frame on a binary connection");
    const msg = decodeJsonClientMessage(text);
    if (isDecodeError(msg)) return this.decodeFailed(link, msg, text.length, true);
    switch (msg.t) {
      case "hello":
        return this.hello(link, msg.v, msg.token, msg.name, true, now);
      case "input":
        return this.inputs(link, [{ seq: msg.seq, payload: msg.data as Uint8Array }], 1, now);
      case "ping":
        return link.conn.send(JSON.stringify({ t: "pong", ct: msg.ct, st: now }));
      case "stats":
        if (!this.statsAllowed(link, now)) return;
        return link.conn.send(JSON.stringify({ t: "stats", id: msg.id, stats: this.snapshot() }));
      case "ka":
        return link.conn.send(JSON_KEEPALIVE);
      case "leave":
        return this.leave(link);
    }
  }

  private decodeFailed(link: LinkX, err: DecodeError, frameSize: number, json = false): void {
    // Only a frame over the size limit is closed as too large; an over-long field inside a
    // small frame is an ordinary malformed frame.
    if (err.code === "too_large" && frameSize > MAX_CLIENT_FRAME_BYTES) {
      RoomStats.bump(this.stats.errors, "frame_too_large");
      this.sendError(link, "frame_too_large", err.message, 0, json);
      return this.closeLink(link, CloseCode.frame_too_large, "frame too large");
    }
    const name: ErrorName = err.code === "unknown_kind" ? "unknown_kind" : "bad_frame";
    this.protocolError(link, name, err.message, json);
  }

  private protocolError(link: LinkX, name: ErrorName, reason: string, json = link.json): void {
    RoomStats.bump(this.stats.errors, name);
    link.errors++;
    this.sendError(link, name, reason, 0, json);
    if (link.errors > this.options.maxErrorsPerConnection) {
      this.closeLink(link, CloseCode.too_many_errors, "too many protocol errors");
    }
  }

  private hello(link: LinkX, version: number, token: string, name: string, json: boolean, now: number): void {
    if (link.seat) return this.protocolError(link, "already_joined", "hello after join", json);
    link.json = json;
    if (version !== PROTOCOL_VERSION) {
      RoomStats.bump(this.stats.errors, "version_mismatch");
      this.sendError(link, "version_mismatch", `server speaks protocol ${PROTOCOL_VERSION}`, 0, json);
      return this.closeLink(link, CloseCode.bad_hello, "protocol version mismatch");
    }
    if (this.game.sync.mode === "json" ? !json : json) {
      RoomStats.bump(this.stats.errors, "wrong_mode");
      this.sendError(link, "bad_frame", `room ${this.kind} speaks ${this.game.sync.mode}`, 0, json);
      return this.closeLink(link, CloseCode.bad_hello, "wrong wire format for this room");
    }
    this.clearHelloTimer(link);
    const held = this.seatFor(link, token);
    if (held) {
      if (held.conn) this.closeLink(held.conn as LinkX, CloseCode.replaced, "seat taken by a newer connection");
      this.attach(held, link);
      this.stats.reconnects++;
      this.game.reconnected?.(held.playerId);
      this.sendWelcome(link, held, true, now);
      return;
    }
    if (this.seatsById.size >= this.options.cap) {
      this.refuse("room_full");
      this.sendError(link, "room_full", `room is full (${this.options.cap} seats)`, 0, json);
      return this.closeLink(link, CloseCode.room_full, "room_full");
    }
    if (!this.joinBucket.take(now)) {
      const wait = this.joinBucket.waitMs(now);
      this.refuse("join_throttled");
      this.sendError(link, "join_throttled", "too many joins right now; retry later", Math.max(wait, 100), json);
      return this.closeLink(link, CloseCode.join_throttled, "join_throttled");
    }
    const seat = this.createSeat(this.nextPlayerId++, randomToken(), name.slice(0, 32), link.identity);
    this.attach(seat, link);
    this.stats.joins++;
    if (this.session) this.session.joins++;
    this.game.join(seat.playerId, seat.name);
    this.sendWelcome(link, seat, false, now);
  }

  /**
   * The seat a hello resumes. A verified identity resumes only its own seat; a bare token
   * resumes only a seat no identity is bound to, so a leaked token cannot take a ticketed seat.
   */
  private seatFor(link: LinkX, token: string): Seat | undefined {
    if (link.identity !== undefined) return this.seatsByIdentity.get(link.identity);
    const seat = token ? this.seatsByToken.get(token) : undefined;
    return seat && !this.identityOfSeat.has(seat) ? seat : undefined;
  }

  private createSeat(playerId: number, token: string, name: string, identity?: string): Seat {
    if (this.seatsById.size === 0 && !this.session) {
      const startedAt = this.clock.now();
      this.session = { startedAt, peakCcu: 0, joins: 0, refusals: 0, closes: {} };
      this.hooks.onSessionStart?.({ kind: this.kind, roomId: this.roomId, startedAt });
    }
    const seat: Seat = {
      playerId,
      token,
      name,
      conn: null,
      heldUntil: Infinity,
      lastReceivedSeq: 0,
      lastProcessedSeq: 0,
      lastAckedSeq: 0,
      syncState: null,
      events: [],
    };
    this.seatsById.set(playerId, seat);
    this.seatsByToken.set(token, seat);
    if (identity !== undefined) {
      this.seatsByIdentity.set(identity, seat);
      this.identityOfSeat.set(seat, identity);
    }
    this.seatList.push(seat);
    return seat;
  }

  private attach(seat: Seat, link: LinkX): void {
    seat.conn = link;
    seat.heldUntil = Infinity;
    seat.lastAckedSeq = seat.lastProcessedSeq;
    seat.events.length = 0;
    link.seat = seat;
    if (this.game.sync.mode === "binary") {
      const enc = this.game.sync.encoder;
      if (seat.syncState !== null) enc.releaseClient(seat.syncState);
      seat.syncState = enc.createClient(seat.playerId);
    } else {
      this.jsonDirty = true;
    }
    this.connected++;
    if (this.connected > this.stats.peakCcu) this.stats.peakCcu = this.connected;
    if (this.session && this.connected > this.session.peakCcu) this.session.peakCcu = this.connected;
    if (this.game.ticking && !this.scheduler.running) this.scheduler.start();
    this.hooks.onSeated?.(link.connId, this.ticketOf(seat, link));
  }

  private sendWelcome(link: LinkX, seat: Seat, reconnected: boolean, now: number): void {
    const o = this.options;
    const syncIntervalMs = this.syncEveryTicks * o.tickMs;
    if (link.json) {
      link.conn.send(
        JSON.stringify({
          t: "welcome",
          v: PROTOCOL_VERSION,
          playerId: seat.playerId,
          token: seat.token,
          tickMs: o.tickMs,
          syncIntervalMs,
          serverTime: now,
          roomEpoch: this.epoch,
          reconnected,
          roomKind: this.kind,
          cap: o.cap,
          lastSeq: seat.lastProcessedSeq,
        }),
      );
    } else {
      const enc = this.game.sync.mode === "binary" ? this.game.sync.encoder : null;
      const w = encodeWelcome(this.writer.reset(), {
        version: PROTOCOL_VERSION,
        playerId: seat.playerId,
        token: seat.token,
        tickMs: o.tickMs,
        syncIntervalMs,
        serverTime: now,
        roomEpoch: this.epoch,
        reconnected,
        json: false,
        roomKind: this.kind,
        cap: o.cap,
        schemaHash: enc?.schemaHash ?? 0,
        lastSeq: seat.lastProcessedSeq,
      });
      link.conn.send(w.toBytes());
    }
    if (!this.game.ticking) this.queueImmediateFlush();
  }

  /** Handles `inputs[0, count)` (the array may be a reused scratch longer than `count`). */
  private inputs(link: LinkX, inputs: readonly InputEntry[], count: number, now: number): void {
    const seat = link.seat;
    if (!seat) return this.protocolError(link, "not_joined", "input before hello");
    const queued = this.game.ticking && this.options.queueInputs;
    let appliedNow = false;
    for (let i = 0; i < count; i++) {
      const entry = inputs[i]!;
      this.stats.inputsReceived++;
      if (entry.seq <= seat.lastReceivedSeq) {
        this.countRejected("stale_seq");
        this.sendError(link, "bad_input", `seq ${entry.seq} is not above ${seat.lastReceivedSeq}`);
        continue;
      }
      seat.lastReceivedSeq = entry.seq;
      const decoded = this.game.decodeInput(entry.payload);
      if (isRejection(decoded)) {
        this.rejected(seat, entry.seq, decoded);
        appliedNow = true;
        continue;
      }
      if (queued) {
        this.queue.push(seat.playerId, entry.seq, decoded, now);
      } else {
        this.apply(seat, entry.seq, decoded, now);
        appliedNow = true;
      }
    }
    if (appliedNow && !queued) {
      if (this.game.ticking) this.sendAckNow(seat);
      else this.queueImmediateFlush();
    }
  }

  private apply(seat: Seat, seq: number, input: unknown, receivedAt: number): void {
    let result: void | InputRejection;
    try {
      result = this.game.applyInput(seat.playerId, input, receivedAt);
    } catch (e) {
      RoomStats.bump(this.stats.errors, "internal");
      console.error(`[room ${this.kind}:${this.roomId}] applyInput error`, e);
      result = { rejected: true, code: "bad_input", reason: "input could not be applied" };
    }
    if (result && isRejection(result)) return this.rejected(seat, seq, result);
    this.stats.inputsProcessed++;
    if (seq > seat.lastProcessedSeq) seat.lastProcessedSeq = seq;
  }

  private rejected(seat: Seat, seq: number, r: InputRejection): void {
    this.countRejected(r.code);
    // A refused input is still answered by the ack, so the client stops predicting it.
    if (seq > seat.lastProcessedSeq) seat.lastProcessedSeq = seq;
    if (seat.conn) this.sendError(seat.conn as LinkX, r.code, r.reason);
  }

  private countRejected(code: string): void {
    this.stats.inputsRejected++;
    RoomStats.bump(this.stats.rejectedByCode, code);
  }

  private leave(link: LinkX): void {
    // closeLink counts the close and then frees the seat (normal close): in that order the
    // close of the player whose leave ends the session still lands in the session's record.
    this.closeLink(link, CloseCode.normal, "left");
  }

  // ---- seats and reconnection ------------------------------------------------------------

  private hold(seat: Seat): void {
    seat.conn = null;
    this.connected--;
    if (this.game.sync.mode === "binary" && seat.syncState !== null) {
      this.game.sync.encoder.releaseClient(seat.syncState);
      seat.syncState = null;
    }
    seat.events.length = 0;
    seat.heldUntil = this.clock.now() + this.options.reconnectWindowMs;
    this.game.disconnected?.(seat.playerId);
    this.armExpiry(seat.heldUntil);
    if (this.connected === 0) this.scheduler.stop();
  }

  private armExpiry(at: number): void {
    if (at >= this.expiryAt && this.expiryTimer !== null) return;
    if (this.expiryTimer !== null) this.clock.clearTimer(this.expiryTimer);
    this.expiryAt = at;
    this.expiryTimer = this.clock.setTimer(() => this.expireHeld(), at - this.clock.now());
  }

  private expireHeld(): void {
    this.expiryTimer = null;
    this.expiryAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const seat of [...this.seatList]) {
      if (seat.conn) continue;
      if (seat.heldUntil <= now) this.freeSeat(seat);
      else if (seat.heldUntil < next) next = seat.heldUntil;
    }
    if (next !== Infinity) this.armExpiry(next);
  }

  private freeSeat(seat: Seat): void {
    if (!this.seatsById.has(seat.playerId)) return;
    if (seat.conn) {
      seat.conn.seat = null;
      seat.conn = null;
      this.connected--;
      if (this.connected === 0) this.scheduler.stop();
    }
    if (this.game.sync.mode === "binary" && seat.syncState !== null) this.game.sync.encoder.releaseClient(seat.syncState);
    seat.syncState = null;
    this.seatsById.delete(seat.playerId);
    this.seatsByToken.delete(seat.token);
    const identity = this.identityOfSeat.get(seat);
    if (identity !== undefined) {
      this.seatsByIdentity.delete(identity);
      this.identityOfSeat.delete(seat);
    }
    this.seatList = this.seatList.filter((s) => s !== seat);
    // Inputs queued by a player who leaves before the next tick are never applied; counting
    // them keeps tk:stats whole (received = processed + rejected once the queue drains).
    const dropped = this.queue.dropPlayer(seat.playerId);
    if (dropped > 0) {
      this.stats.inputsRejected += dropped;
      RoomStats.bump(this.stats.rejectedByCode, "seat_freed", dropped);
    }
    try {
      this.game.leave(seat.playerId);
    } catch (e) {
      RoomStats.bump(this.stats.errors, "internal");
      console.error(`[room ${this.kind}:${this.roomId}] leave error`, e);
    }
    if (this.game.sync.mode === "json") this.markChanged();
    if (this.seatsById.size === 0 && this.session) {
      const s = this.session;
      this.session = null;
      this.hooks.onSessionEnd?.({
        kind: this.kind,
        roomId: this.roomId,
        startedAt: s.startedAt,
        endedAt: this.clock.now(),
        peakCcu: s.peakCcu,
        totalJoins: s.joins,
        refusals: s.refusals,
        closes: s.closes,
      });
    }
  }

  private refuse(reason: string): void {
    RoomStats.bump(this.stats.refused, reason);
    if (this.session) this.session.refusals++;
  }

  private countClose(code: number): void {
    RoomStats.bump(this.stats.closes, code);
    if (this.session) RoomStats.bump(this.session.closes, code);
  }

  private closeLink(link: LinkX, code: number, reason: string): void {
    if (link.closed) return;
    link.closed = true;
    this.countClose(code);
    this.clearHelloTimer(link);
    link.conn.close(code, reason);
    this.links.delete(link.connId);
    const seat = link.seat;
    if (seat && seat.conn === link) {
      // A player who left, or was kicked for abuse, loses the seat at once (holding it would let
      // one client fill the room by getting kicked over and over); anything else is held.
      if (code === CloseCode.normal || ABUSE_CLOSES.has(code)) this.freeSeat(seat);
      else this.hold(seat);
    }
  }

  /** The probe is the costliest message (a JSON snapshot), so it has its own per-socket spacing. */
  private statsAllowed(link: LinkX, now: number): boolean {
    const wait = link.lastStatsAt + this.options.minStatsIntervalMs - now;
    if (wait > 0) {
      RoomStats.bump(this.stats.errors, "stats_throttled");
      this.sendError(link, "rate_limited", "stats requested too often", wait);
      return false;
    }
    link.lastStatsAt = now;
    return true;
  }

  private clearHelloTimer(link: LinkX): void {
    if (link.helloTimer !== null) {
      this.clock.clearTimer(link.helloTimer);
      link.helloTimer = null;
    }
  }

  private sendError(link: LinkX, name: ErrorName, reason: string, retryAfterMs = 0, json = link.json): void {
    if (link.closed) return;
    const code = ErrorCode[name];
    if (json) {
      const msg: Record<string, unknown> = { t: "error", code, name, reason };
      if (retryAfterMs > 0) msg.retryAfterMs = retryAfterMs;
      link.conn.send(JSON.stringify(msg));
    } else {
      link.conn.send(encodeError(this.writer.reset(), code, reason, retryAfterMs).toBytes());
    }
  }

  // ---- the loop ------------------------------------------------------------------------

  private runTick(k: number, now: number): void {
    this.tickIndex = k;
    const t0 = perfNow();
    this.queue.drain((e) => {
      const seat = this.seatsById.get(e.playerId);
      if (seat) this.apply(seat, e.seq, e.input, e.receivedAt);
    });
    try {
      this.game.tick(now, this.options.tickMs);
    } catch (e) {
      RoomStats.bump(this.stats.errors, "internal");
      console.error(`[room ${this.kind}:${this.roomId}] tick error`, e);
    }
    this.stats.ticks++;
    this.stats.tick.record(perfNow() - t0);
    if (k % this.syncEveryTicks === 0) this.flush(now);
  }

  private flush(now: number): void {
    const t0 = perfNow();
    this.stats.flushes++;
    if (this.game.sync.mode === "binary") this.flushBinary(this.game.sync.encoder, now);
    else this.flushJson(this.game.sync.source, now);
    this.stats.flush.record(perfNow() - t0);
  }

  private flushBinary(encoder: StateEncoder, now: number): void {
    const flushIndex = this.flushIndex++;
    encoder.beginFlush(flushIndex);
    const time = Math.max(0, Math.round(now - this.epoch));
    const w = this.writer;
    const list = this.seatList;
    for (let i = 0; i < list.length; i++) {
      const seat = list[i]!;
      const link = seat.conn as LinkX | null;
      if (!link) continue;
      // Reading the backlog crosses into the runtime; every 4th flush per client (staggered)
      // still finds a stalled reader within 4 flushes, at a quarter of the cost.
      if (((flushIndex + i) & 3) === 0 && link.conn.bufferedAmount() > this.options.maxBufferedBytes) {
        RoomStats.bump(this.stats.errors, "slow_consumer");
        this.closeLink(link, CloseCode.slow_consumer, "client is not reading");
        continue;
      }
      w.reset();
      const flagsPos = beginFrame(w, this.tickIndex, time);
      let flags = 0;
      if (seat.lastProcessedSeq > seat.lastAckedSeq) {
        writeFrameAck(w, seat.lastProcessedSeq);
        seat.lastAckedSeq = seat.lastProcessedSeq;
        this.stats.acks++;
        flags |= FrameFlag.Ack;
      }
      if (seat.events.length > 0) {
        writeFrameEvents(w, seat.events as Uint8Array[]);
        seat.events.length = 0;
        flags |= FrameFlag.Events;
      }
      if (encoder.encodeClient(seat.syncState, w)) flags |= FrameFlag.Delta;
      if (flags === 0) continue;
      endFrame(w, flagsPos, flags);
      this.stats.frames++;
      this.stats.bytesOut += w.offset;
      link.conn.send(w.toBytes());
    }
  }

  private flushJson(source: JsonStateSource, now: number): void {
    const dirty = this.jsonDirty;
    this.jsonDirty = false;
    const time = Math.max(0, Math.round(now - this.epoch));
    for (const seat of this.seatList) {
      const link = seat.conn as LinkX | null;
      if (!link) continue;
      const msg: Record<string, unknown> = { t: "state", tick: this.tickIndex, time };
      let any = false;
      if (seat.lastProcessedSeq > seat.lastAckedSeq) {
        msg.ack = seat.lastProcessedSeq;
        seat.lastAckedSeq = seat.lastProcessedSeq;
        this.stats.acks++;
        any = true;
      }
      if (dirty) {
        msg.state = source.viewFor(seat.playerId);
        any = true;
      }
      if (seat.events.length > 0) {
        msg.events = seat.events.slice();
        seat.events.length = 0;
        any = true;
      }
      if (!any) continue;
      const text = JSON.stringify(msg);
      this.stats.frames++;
      this.stats.bytesOut += text.length;
      link.conn.send(text);
    }
  }

  /** Ack-only frame sent at once (queueInputs off): one extra send per input, by design. */
  private sendAckNow(seat: Seat): void {
    const link = seat.conn;
    if (!link || seat.lastProcessedSeq <= seat.lastAckedSeq) return;
    const w = this.writer.reset();
    const flagsPos = beginFrame(w, this.tickIndex, Math.max(0, Math.round(this.clock.now() - this.epoch)));
    writeFrameAck(w, seat.lastProcessedSeq);
    endFrame(w, flagsPos, FrameFlag.Ack);
    seat.lastAckedSeq = seat.lastProcessedSeq;
    this.stats.acks++;
    this.stats.frames++;
    this.stats.bytesOut += w.offset;
    link.conn.send(w.toBytes());
  }

  private markChanged(): void {
    this.jsonDirty = true;
    if (!this.game.ticking) this.queueImmediateFlush();
  }

  private queueImmediateFlush(): void {
    if (this.immediateFlushQueued) return;
    this.immediateFlushQueued = true;
    queueMicrotask(() => {
      this.immediateFlushQueued = false;
      this.flush(this.clock.now());
    });
  }

  private emit(event: unknown, to?: Iterable<number>): void {
    if (to === undefined) {
      for (const seat of this.seatList) if (seat.conn) seat.events.push(event);
      return;
    }
    for (const id of to) {
      const seat = this.seatsById.get(id);
      if (seat?.conn) seat.events.push(event);
    }
  }
}

type LinkX = ClientLink & {
  bucket: TokenBucket;
  dropped: number;
  helloTimer: TimerHandle | null;
  identity: string | undefined;
  lastStatsAt: number;
};

/** Closes for abuse: the seat is freed, not held for a reconnect. */
const ABUSE_CLOSES: ReadonlySet<number> = new Set([CloseCode.rate_limited, CloseCode.too_many_errors, CloseCode.frame_too_large]);
