import {
  FrameWriter,
  CloseCode,
  InputFrameReader,
  JSON_KEEPALIVE,
  Kind,
  MAX_CLIENT_FRAME_BYTES,
  decodeClientMessage,
  decodeJsonClientMessage,
  flushEveryTicks,
  isDecodeError,
  type DecodeError,
  type ErrorName,
  type InputEntry,
} from "@tikron/protocol";
import { systemClock, type Clock } from "../clock";
import type { RoomStatus } from "../match/roomStatus";
import type { SeatAnswer, SeatRequest } from "../match/roomPort";
import type { Connection } from "../connection";
import type { Game } from "../game";
import { InputQueue } from "../inputQueue";
import { resolveRoomOptions, type RoomOptions } from "../roomOptions";
import { RoomStats, buildStatsSnapshot, type RoomStatsSnapshot } from "../roomStats";
import type { ClientLink, Dialect } from "../seat";
import { TickScheduler } from "../tickScheduler";
import { TokenBucket } from "../tokenBucket";
import { Admission, type AdmissionRefusal } from "./admission";
import { RoomBots, type BotSpec } from "./bots";
import { Pressure, closeFreesSeat, isAbuseClose, newClientLink, pressure, statsWaitMs, takeReceipt } from "./clientLink";
import { sendError, sendPong, sendStats } from "./dialects";
import { GameMessageRouter } from "./gameMessageRouter";
import { Seating } from "./seating";
import { SeatRegistry, type SeatTicket } from "./seatRegistry";
import { SessionTracker, type RoomHooks } from "./sessionTracker";
import { RoomListing, type ListingInit } from "./roomListing";
import { SeatReservations } from "./seatReservations";

/** How often a ticking room's status is re-reported while it has players (a sleeping room's is not). */
const STATUS_REFRESH_MS = 60_000;

/** What a room is made of; hosts usually go through `createRoom` (roomFactory.ts). */
export interface RoomInit {
  /** Room kind. */
  kind: string;
  /** Room id. */
  roomId: string;
  /** The game this room runs. */
  game: Game;
  /** Layered over the defaults by {@link resolveRoomOptions}. */
  options?: Partial<RoomOptions>;
  /** Clock the room runs on (default: the system clock; tests pass a `FakeClock`). */
  clock?: Clock;
  /** Session start/end observers (records). */
  hooks?: RoomHooks;
  /** The kind's bot players (from its `GameDefinition`). */
  bots?: BotSpec;
  /** How a matchmaker lists the room: initial metadata, visibility, creation overrides. */
  listing?: ListingInit;
}

/**
 * The socket side of a room: sockets opening and closing, every message's arrival (budget,
 * decode, dispatch), protocol errors and closes. `Room` (room.ts) extends it with the game
 * side: who joins (hello, welcome), the input queue, the tick and the flush. The split is by
 * seam, not for reuse: nothing else extends this class. Over 400 lines since admission per
 * identity, receipts, bots and room messages joined the arrival path; their rules live in
 * room/admission.ts, room/clientLink.ts, room/bots.ts and room/gameMessageRouter.ts, and this
 * file only wires them to each message.
 */
export abstract class RoomSockets {
  /** Room kind, e.g. `agar`. */
  readonly kind: string;
  /** Room id within its kind. */
  readonly roomId: string;
  /** The resolved options the room runs with. */
  readonly options: RoomOptions;
  /** Counters and durations behind `tk:stats`; hosts read them through {@link snapshot}. */
  readonly stats = new RoomStats();
  protected readonly game: Game;
  protected readonly clock: Clock;
  protected readonly hooks: RoomHooks;
  protected readonly epoch: number;
  protected readonly scheduler: TickScheduler;
  protected readonly syncEveryTicks: number;
  protected readonly queue = new InputQueue<unknown>();
  protected readonly writer = new FrameWriter(4096);
  protected readonly inputReader = new InputFrameReader();
  protected readonly links = new Map<number, ClientLink>();
  protected readonly seats = new SeatRegistry();
  protected readonly seating: Seating;
  protected readonly sessions: SessionTracker;
  protected readonly joinBucket: TokenBucket;
  /** The room's bot players (see room/bots.ts). */
  protected readonly bots: RoomBots;
  protected readonly admission: Admission;
  /** Custom room messages to the game's `onMessage` (see room/gameMessageRouter.ts). */
  protected readonly gameMessages: GameMessageRouter;
  /** Seats held for players a matchmaker sent (see room/seatReservations.ts). */
  protected readonly reservations: SeatReservations;
  /** Metadata, lock and visibility: what a matchmaker lists the room by (room/roomListing.ts). */
  readonly listing: RoomListing;
  protected nextConnId = 1;
  protected jsonDirty = false;

  constructor(init: RoomInit) {
    this.kind = init.kind;
    this.roomId = init.roomId;
    this.game = init.game;
    this.clock = init.clock ?? systemClock;
    this.hooks = init.hooks ?? {};
    this.options = resolveRoomOptions(init.options);
    this.epoch = this.clock.now();
    this.syncEveryTicks = flushEveryTicks(this.options.syncIntervalMs, this.options.tickMs);
    this.scheduler = new TickScheduler(this.clock, this.options.tickMs, (k, now) => this.runTick(k, now));
    this.joinBucket = new TokenBucket(this.options.joinRatePerSec, this.options.joinBurst, this.epoch);
    this.admission = new Admission(this.options);
    this.sessions = new SessionTracker(this.kind, this.roomId, this.clock, this.stats, this.hooks);
    this.listing = new RoomListing(init.listing, Date.now(), () => this.hooks.onStatusChange?.());
    this.reservations = new SeatReservations(this.clock, () => this.listing.changed());
    this.seating = new Seating({
      kind: this.kind,
      roomId: this.roomId,
      game: this.game,
      clock: this.clock,
      options: this.options,
      stats: this.stats,
      queue: this.queue,
      scheduler: this.scheduler,
      seats: this.seats,
      sessions: this.sessions,
      hooks: this.hooks,
      jsonSeatsChanged: () => (this.jsonDirty = true),
      markChanged: () => this.markChanged(),
      statusChanged: () => this.listing.changed(),
    });
    const room = this;
    this.gameMessages = new GameMessageRouter({
      game: this.game,
      options: this.options,
      stats: this.stats,
      writer: this.writer,
      label: `${this.kind}:${this.roomId}`,
      sendError: (link, name, reason, retryAfterMs) => room.sendError(link, name, reason, retryAfterMs),
      close: (link, code, reason) => room.closeLink(link, code, reason),
      slowConsumer: (link) => room.slowConsumer(link),
    });
    this.bots = new RoomBots(init.bots, {
      clock: this.clock,
      dialect: this.game.sync.mode,
      open: (conn) => room.open(conn),
      message: (connId, data) => room.message(connId, data),
    });
  }

  /** Connected clients (seated, with a live socket); `ccu` in `tk:stats`. */
  get connectedCount(): number {
    return this.seating.connectedCount;
  }

  /** Seats taken, connected or held for a reconnect. */
  get seatCount(): number {
    return this.seats.size;
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

  /** The sync interval the room really flushes at: whole ticks, never below `syncIntervalMs`. */
  get syncIntervalMs(): number {
    return this.syncEveryTicks * this.options.tickMs;
  }

  /**
   * Whether a host may accept one more socket, asked before the upgrade with the caller's
   * admission key (see {@link open}). Null means yes; otherwise the host answers the refusal's
   * HTTP status (503 when `maxPendingSockets` sockets in the room have not said hello; 429 when
   * this caller has `maxPendingPerIdentity` waiting or is cooling down after an abuse kick),
   * with `Retry-After`. Counted under `refused.<counter>`.
   */
  admitSocket(identity?: string, address?: string): AdmissionRefusal | null {
    const pending = this.links.size - this.seating.connectedCount;
    const refusal = this.admission.check(identity ?? address, pending, this.clock.now());
    if (refusal) RoomStats.bump(this.stats.refused, refusal.counter);
    return refusal;
  }

  /**
   * A socket opened. Returns the id the adapter passes to {@link message} and {@link closed}.
   * `identity` is a player id the adapter has verified (e.g. from a signed join ticket): such a
   * socket always gets that player's seat back, whatever token its hello carries, and one
   * identity never holds two seats, so one ticket cannot fill a room. `address` is the peer's
   * address when the host knows one worth limiting by; admission limits per caller use the
   * identity, else the address (see room/admission.ts). `reservation` is the seat reservation
   * the join names (from a matchmaker, via a verified reservation token whose identity is
   * `identity`): the hello takes the seat held for it.
   */
  open(conn: Connection, identity?: string, address?: string, reservation?: string): number {
    const connId = this.nextConnId++;
    const now = this.clock.now();
    const link = newClientLink(connId, conn, identity, identity ?? address, this.options, now);
    link.reservation = reservation;
    this.admission.opened(link.admissionKey, now);
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
    link.dialect = ticket.json ? "json" : "binary";
    this.clearHelloTimer(link);
    this.settlePending(link);
    // A checkpoint may already have brought the seat back (held); then only the socket returns.
    const held = this.seats.get(ticket.playerId);
    if (held && held.token === ticket.token) {
      this.seating.attach(held, link);
      this.game.reconnected?.(held.playerId);
      return connId;
    }
    this.sessions.seatTaken(this.seats.size === 0);
    const seat = this.seats.restore(ticket);
    // The game is as new as the room: give the restored seat its entity before it is attached.
    this.game.join(seat.playerId, seat.name);
    this.seating.attach(seat, link);
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
    // The one size check, for both dialects, before the budget and before any decoding: a
    // 16 MiB frame costs its arrival and nothing more.
    if (size > MAX_CLIENT_FRAME_BYTES) {
      RoomStats.bump(this.stats.errors, "frame_too_large");
      this.sendError(link, "frame_too_large", `frame of ${size} exceeds ${MAX_CLIENT_FRAME_BYTES}`);
      return this.closeLink(link, CloseCode.frame_too_large, "frame too large");
    }
    if (!link.bucket.take(now)) {
      // Drops start over once a socket has gone a second without one: the kick is for floods,
      // not for a few bursts spread over a long session.
      if (now - link.lastDropAt > 1000) link.dropped = 0;
      link.lastDropAt = now;
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
    this.settlePending(link);
    if (!link.closed) {
      link.closed = true;
      this.sessions.closed(code);
    }
    const seat = link.seat;
    if (seat && seat.link === link) this.seating.hold(seat);
  }

  /** The `tk:stats` snapshot. */
  snapshot(): RoomStatsSnapshot {
    return buildStatsSnapshot(this.stats, {
      kind: this.kind,
      roomId: this.roomId,
      uptimeMs: this.clock.now() - this.epoch,
      connectedCount: this.seating.connectedCount,
      seatCount: this.seats.size,
      cap: this.options.cap,
      tickMs: this.options.tickMs,
      syncIntervalMs: this.syncIntervalMs,
      queueInputs: this.options.queueInputs,
      loopRunning: this.scheduler.running,
      ticksSkipped: this.scheduler.skipped,
      bots: { count: this.bots.count, inputs: this.bots.inputs },
      reservations: { ...this.reservations.counts, pending: this.reservations.size },
      listing: { locked: this.listing.locked, private: this.listing.isPrivate, metadata: this.listing.metadata },
    });
  }

  /** The ticket of a live, seated socket, for adapters that persist it across restarts. */
  seatTicket(connId: number): SeatTicket | null {
    const link = this.links.get(connId);
    const seat = link?.seat;
    if (!link || !seat) return null;
    return this.seats.ticketOf(seat, link);
  }

  /** What the room's matchmaker knows it by (see core/match `RoomStatus`). */
  status(): RoomStatus {
    const l = this.listing;
    return {
      roomId: this.roomId,
      clients: this.seats.size,
      bots: this.bots.count,
      reserved: this.reservations.size,
      maxClients: this.options.cap,
      metadata: l.metadata,
      locked: l.locked,
      private: l.isPrivate,
      createdAt: l.createdAt,
      version: [l.createdAt, l.changes],
      overrides: l.overrides,
      refreshMs: this.game.ticking ? STATUS_REFRESH_MS : 0,
    };
  }

  /**
   * A matchmaker asks for seats (all or none): each identity in `req.seats` that holds no seat
   * here gets one held for `req.ttlMs`, counted against the cap. The room is the authority:
   * whatever the matchmaker believed, a locked room, a private one asked for by a public request,
   * or one without room for every seat refuses.
   */
  reserveSeats(req: SeatRequest): SeatAnswer {
    const refuse = (code: "room_full" | "locked" | "not_found", reason: string): SeatAnswer => {
      this.reservations.counts.refused++;
      // The status goes with every refusal (a private room's too): the room exists, and its
      // matchmaker must keep it, whatever the player is told.
      return { ok: false, code, reason, status: this.status() };
    };
    if (this.listing.isPrivate && !req.byId) return refuse("not_found", "no such public room");
    if (this.listing.locked) return refuse("locked", "the room is locked");
    const wanted = req.seats.filter((s) => !this.seats.hasIdentity(s.identity));
    if (this.seats.size + this.reservations.size + wanted.length > this.options.cap) {
      return refuse("room_full", `room is full (${this.options.cap} seats)`);
    }
    // An identity already seated here needs no new seat: its join resumes its own.
    for (const s of wanted) this.reservations.add(s.reservationId, s.identity, req.ttlMs);
    return { ok: true, status: this.status() };
  }

  /** Stops timers and closes every socket (room shutdown). */
  dispose(code: number = CloseCode.room_closed, reason = "room closed"): void {
    this.scheduler.stop();
    this.seating.stop();
    this.reservations.clear();
    for (const link of [...this.links.values()]) this.closeLink(link, code, reason);
  }

  // ---- arrival: decode, then hello / inputs / ping / stats / leave ----------------------

  protected onBinary(link: ClientLink, bytes: Uint8Array, now: number): void {
    if (link.seat && link.dialect === "json") return this.protocolError(link, "bad_frame", "binary frame on a JSON connection");
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
        return this.hello(link, msg.version, msg.token, msg.name, "binary", now);
      case "input":
        return this.inputs(link, msg.inputs, msg.inputs.length, now);
      case "ping":
        if (!this.mayReply(link, now)) return;
        return sendPong(link, "binary", msg.clientTime, now, this.writer);
      case "statsRequest":
        if (!link.seat) return this.protocolError(link, "not_joined", "stats before hello");
        if (!this.statsAllowed(link, now) || !this.mayReply(link, now)) return;
        return sendStats(link, "binary", msg.requestId, this.snapshot(), this.writer);
      case "receipt":
        takeReceipt(link, msg.messages, msg.bytes);
        return;
      case "message":
        if (!link.seat) return this.protocolError(link, "not_joined", "message before hello");
        return this.gameMessages.fromBinary(link, msg.requestId, msg.type, msg.payload, now);
      case "leave":
        return this.leave(link);
    }
  }

  protected onText(link: ClientLink, text: string, now: number): void {
    if (link.seat && link.dialect === "binary") return this.protocolError(link, "bad_frame", "text frame on a binary connection");
    const msg = decodeJsonClientMessage(text);
    if (isDecodeError(msg)) return this.decodeFailed(link, msg, text.length, "json");
    switch (msg.t) {
      case "hello":
        return this.hello(link, msg.v, msg.token, msg.name, "json", now);
      case "input":
        return this.inputs(link, [{ seq: msg.seq, payload: msg.data as Uint8Array }], 1, now);
      case "ping":
        if (!this.mayReply(link, now)) return;
        return sendPong(link, "json", msg.ct, now, this.writer);
      case "stats":
        if (!link.seat) return this.protocolError(link, "not_joined", "stats before hello", "json");
        if (!this.statsAllowed(link, now) || !this.mayReply(link, now)) return;
        return sendStats(link, "json", msg.id, this.snapshot(), this.writer);
      case "rc":
        takeReceipt(link, msg.m, msg.b);
        return;
      case "ka":
        // Not counted in the backlog: the runtime answers it the same way while the room sleeps.
        return link.connection.send(JSON_KEEPALIVE);
      case "msg":
        if (!link.seat) return this.protocolError(link, "not_joined", "message before hello", "json");
        return this.gameMessages.fromJson(link, msg.id ?? 0, msg.type, msg.data, now);
      case "leave":
        return this.leave(link);
    }
  }

  protected decodeFailed(link: ClientLink, err: DecodeError, _frameSize: number, dialect: Dialect = "binary"): void {
    // Frames over the size limit never get here (see `message`); an over-long field inside a
    // small frame is an ordinary malformed frame.
    const name: ErrorName = err.code === "unknown_kind" ? "unknown_kind" : "bad_frame";
    this.protocolError(link, name, err.message, dialect);
  }

  protected protocolError(link: ClientLink, name: ErrorName, reason: string, dialect = link.dialect): void {
    RoomStats.bump(this.stats.errors, name);
    link.errors++;
    this.sendError(link, name, reason, 0, dialect);
    // Before its hello a socket has nothing to lose and no reason to err: the first protocol
    // error closes it (fuzzers and scanners cost one frame, not twenty).
    if (!link.seat || link.errors > this.options.maxErrorsPerConnection) {
      this.closeLink(link, CloseCode.too_many_errors, link.seat ? "too many protocol errors" : "protocol error before hello");
    }
  }

  protected leave(link: ClientLink): void {
    // closeLink counts the close and then frees the seat (normal close): in that order the
    // close of the player whose leave ends the session still lands in the session's record.
    this.closeLink(link, CloseCode.normal, "left");
  }

  protected closeLink(link: ClientLink, code: number, reason: string): void {
    if (link.closed) return;
    link.closed = true;
    this.sessions.closed(code);
    this.clearHelloTimer(link);
    this.settlePending(link);
    if (isAbuseClose(code)) this.admission.kicked(link.admissionKey, this.clock.now());
    link.connection.close(code, reason);
    this.links.delete(link.connId);
    const seat = link.seat;
    if (seat && seat.link === link) {
      if (closeFreesSeat(code)) this.seating.free(seat);
      else this.seating.hold(seat);
    }
  }

  protected statsAllowed(link: ClientLink, now: number): boolean {
    const wait = statsWaitMs(link, now, this.options.minStatsIntervalMs);
    if (wait === 0) return true;
    RoomStats.bump(this.stats.errors, "stats_throttled");
    this.sendError(link, "rate_limited", "stats requested too often", wait);
    return false;
  }

  /**
   * Backpressure for an optional reply (pong, stats, error): false when the client is behind
   * (the reply is dropped, counted in `errors.reply_skipped`) or was just closed 4004.
   */
  protected mayReply(link: ClientLink, now: number): boolean {
    const p = pressure(link, now, this.options);
    if (p === Pressure.Ok) return true;
    if (p === Pressure.Close) this.slowConsumer(link);
    else RoomStats.bump(this.stats.errors, "reply_skipped");
    return false;
  }

  /** Closes a client that does not read (4004); its seat is held like any dropped one. */
  protected slowConsumer(link: ClientLink): void {
    RoomStats.bump(this.stats.errors, "slow_consumer");
    this.closeLink(link, CloseCode.slow_consumer, "client is not reading");
  }

  /** The socket stops counting as waiting for hello (it said one, or it is gone). */
  protected settlePending(link: ClientLink): void {
    if (!link.pending) return;
    link.pending = false;
    this.admission.settled(link.admissionKey);
  }

  protected clearHelloTimer(link: ClientLink): void {
    if (link.helloTimer !== null) {
      this.clock.clearTimer(link.helloTimer);
      link.helloTimer = null;
    }
  }

  protected sendError(link: ClientLink, name: ErrorName, reason: string, retryAfterMs = 0, dialect = link.dialect): void {
    if (link.closed || !this.mayReply(link, this.clock.now())) return;
    sendError(link, name, reason, retryAfterMs, dialect, this.writer);
  }

  // ---- the simulation side, in room.ts ---------------------------------------------------

  /** A hello arrived on an unseated socket: seat the player, resume a held seat, or refuse. */
  protected abstract hello(link: ClientLink, version: number, token: string, name: string, dialect: Dialect, now: number): void;
  /** Runs tick `k` (scheduled by the tick loop at room time `now`). */
  protected abstract runTick(k: number, now: number): void;
  /**
   * Takes a seated socket's inputs `inputs[0, count)` (the array may be a reused scratch longer
   * than `count`): queued for the next tick or applied at once.
   */
  protected abstract inputs(link: ClientLink, inputs: readonly InputEntry[], count: number, now: number): void;
  /** The game's state changed (JSON rooms send views on their next flush). */
  protected abstract markChanged(): void;
  /** Flushes on a microtask (rooms without a tick loop). */
  protected abstract queueImmediateFlush(): void;
}
