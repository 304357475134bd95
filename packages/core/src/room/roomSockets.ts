/**
 * A room's sockets (`RoomSockets`), open to close: each message's arrival and guards before the
 * room's dispatch, protocol errors, closes, and the backpressure verdicts.
 */
import { CloseCode, JSON_KEEPALIVE, MAX_CLIENT_FRAME_BYTES, isDecodeError, type ErrorName, type FrameWriter, type PingMessage, type ReceiptMessage } from "@tikron/protocol";
import type { Clock } from "../clock";
import type { Game } from "../game";
import type { Connection } from "../host";
import type { PlayerClaims } from "../player";
import type { RoomOptions } from "../roomOptions";
import { RoomStats } from "../roomStats";
import type { Admission } from "./admission";
import { Pressure, closeFreesSeat, isAbuseClose, newClientLink, pressure, statsWaitMs, takeReceipt, type ClientLink, type Seat } from "./clientLink";
import { InboundReader, type Inbound, type KeepaliveInbound } from "./inbound";
import type { RecentErrors } from "./recentErrors";
import { sendError, sendPong } from "./replies";
import type { SessionTracker } from "./sessionTracker";
import type { MatchRecorder } from "../replay/matchRecorder";

/** What every part of a room shares: its names, its game, clock, options and counters. */
export interface RoomParts {
  readonly kind: string;
  readonly roomId: string;
  readonly game: Game;
  readonly clock: Clock;
  /** Clock time of room time 0 (the welcome's `roomEpoch`): what the game is told is room time minus this. */
  readonly epoch: number;
  readonly options: RoomOptions;
  readonly stats: RoomStats;
  /** The recorder of the room's match, when it is recorded (replay/matchRecorder.ts). */
  readonly recorder?: MatchRecorder | null;
}

/** What a room's sockets need from it (not its game: a relay's sockets use them too). */
export interface RoomSocketsDeps extends Omit<RoomParts, "game" | "epoch"> {
  readonly writer: FrameWriter;
  readonly sessions: SessionTracker;
  readonly admission: Admission;
  /** The room's last errors, for its operator. */
  readonly recentErrors: RecentErrors;
  /** A seated socket went away: its seat is freed (`free`: a leave or an abuse kick) or held. */
  seatLost(seat: Seat, free: boolean): void;
  /** Every socket was closed ({@link RoomSockets.closeAll}): the room's spectators close too (core/src/spectate). */
  closedAll?(code: number, reason: string): void;
}

/**
 * Every accepted socket of a room, open to close. A message's arrival: counted, the one size
 * check (either dialect, before anything else), the socket's message budget, the dialect rule,
 * then decoded at the edge (room/inbound.ts) and handed to the room's one dispatch. The hello
 * deadline and admission's count of sockets waiting for hello; closes by either side and what
 * a close does to the socket's seat; and the answers any socket may get whatever it sent:
 * protocol errors, errors in its dialect, and the backpressure verdicts for replies and state.
 */
/** The WebSocket close code a runtime closes with when it refuses a message over its size limit. */
export const MESSAGE_TOO_BIG = 1009;

export class RoomSockets {
  private readonly links = new Map<number, ClientLink>();
  private readonly inbound = new InboundReader();
  private nextConnId = 1;

  constructor(private readonly d: RoomSocketsDeps) {}

  /** Open sockets, seated or not. */
  get size(): number {
    return this.links.size;
  }

  /** The link of a socket still open, if any. */
  get(connId: number): ClientLink | undefined {
    return this.links.get(connId);
  }

  /** A socket was accepted: it has `helloTimeoutMs` to say hello and counts as pending until then. */
  open(conn: Connection, identity: string | undefined, address: string | undefined, reservation?: string, claims?: PlayerClaims): ClientLink {
    const { clock, options } = this.d;
    const now = clock.now();
    const link = newClientLink(this.nextConnId++, conn, identity, identity ?? address, options, now);
    link.reservation = reservation;
    link.claims = claims;
    this.d.admission.opened(link.admissionKey, now);
    link.helloTimer = clock.setTimer(() => {
      link.helloTimer = null;
      if (!link.seat && !link.closed) this.close(link, CloseCode.hello_timeout, "no hello in time");
    }, options.helloTimeoutMs);
    this.links.set(link.connId, link);
    return link;
  }

  /**
   * One message arrived on `link` (open, not closed) at room time `now`: the guards before any
   * dispatch, then decoded. Returns the message for its holder's one dispatch (`Room.handle`, a
   * relay's `RelayRoom.handle`), valid until {@link release}; null when it was answered here
   * (refused, the socket closed) and there is nothing to dispatch. Never throws; bad input is
   * answered and counted.
   */
  arrive(link: ClientLink, data: Uint8Array | ArrayBuffer | string, now: number): Inbound | null {
    const { stats } = this.d;
    const text = typeof data === "string";
    const size = text ? data.length : data.byteLength;
    stats.messagesIn++;
    stats.bytesIn += size;
    // A socket that has not said hello is answered in the dialect it just used; a seated one
    // in its hello's.
    if (!link.seat) link.dialect = text ? "json" : "binary";
    // The one size check, for both dialects, before the budget and before any decoding: a
    // 16 MiB frame costs its arrival and nothing more.
    if (size > MAX_CLIENT_FRAME_BYTES) {
      RoomStats.bump(stats.errors, "frame_too_large");
      this.sendError(link, "frame_too_large", `frame of ${size} exceeds ${MAX_CLIENT_FRAME_BYTES}`);
      this.close(link, CloseCode.frame_too_large, "frame too large");
      return null;
    }
    if (!link.bucket.take(now)) {
      this.dropped(link, now);
      return null;
    }
    if (link.seat && (link.dialect === "json") !== text) {
      this.protocolError(link, "bad_frame", text ? "text frame on a binary connection" : "binary frame on a JSON connection");
      return null;
    }
    const m = this.inbound.read(text ? data : data instanceof Uint8Array ? data : new Uint8Array(data));
    if (isDecodeError(m)) {
      // Frames over the size limit never get here; an over-long field inside a small frame is
      // an ordinary malformed frame.
      this.protocolError(link, m.code === "unknown_kind" ? "unknown_kind" : "bad_frame", m.message);
      return null;
    }
    return m;
  }

  /** The dispatch of a message from `link` threw: a game bug must not take the room down for everyone else. */
  dispatchFailed(link: ClientLink, e: unknown): void {
    RoomStats.bump(this.d.stats.errors, "internal");
    this.sendError(link, "bad_input", "input could not be processed");
    console.error(`[room ${this.d.kind}:${this.d.roomId}] message handler error`, e);
  }

  /** Done with the message {@link arrive} returned: the reader's buffers go to the next one. */
  release(): void {
    this.inbound.release();
  }

  /**
   * Answers what is the socket's own business, whoever holds it (a room, or a relay in front
   * of one): a ping (its pong skipped while the client is behind), a receipt, a keepalive.
   */
  answerOwn(link: ClientLink, m: PingMessage | ReceiptMessage | KeepaliveInbound, now: number): void {
    switch (m.kind) {
      case "ping":
        if (this.mayReply(link, now)) sendPong(link, m.clientTime, now, this.d.writer);
        return;
      case "receipt":
        takeReceipt(link, m.messages, m.bytes);
        return;
      case "keepalive":
        // Not counted in the backlog: the runtime answers it the same way while the room sleeps.
        return link.connection.send(JSON_KEEPALIVE);
    }
  }

  /** A socket closed (by the peer or the network; 1009, the runtime's refusal of an oversized frame, is {@link oversized}). */
  closed(connId: number, code: number): void {
    const link = this.links.get(connId);
    if (!link) return;
    this.links.delete(connId);
    this.settled(link);
    if (!link.closed) {
      link.closed = true;
      this.d.sessions.closed(code);
    }
    const seat = link.seat;
    if (seat && seat.link === link) this.d.seatLost(seat, false);
  }

  /**
   * A socket the host's runtime closed for a frame over the runtime's own limit, before the room
   * could see it (close 1009: workerd refuses frames over 32 MiB, the Node host's `ws` those over
   * `maxPayloadBytes`): the room's verdict on any oversized frame, as if it had seen it —
   * counted as `frame_too_large`, the seat freed and the identity cooling down.
   */
  oversized(connId: number): void {
    const link = this.links.get(connId);
    if (!link) return;
    RoomStats.bump(this.d.stats.errors, "frame_too_large");
    this.links.delete(connId);
    this.settled(link);
    if (!link.closed) {
      link.closed = true;
      this.d.sessions.closed(MESSAGE_TOO_BIG);
      this.d.admission.kicked(link.admissionKey, this.d.clock.now());
    }
    const seat = link.seat;
    if (seat && seat.link === link) this.d.seatLost(seat, true);
  }

  /** The room closes a socket: counted, and its seat held or freed by the code (see clientLink.ts). */
  close(link: ClientLink, code: number, reason: string): void {
    if (link.closed) return;
    link.closed = true;
    this.d.sessions.closed(code);
    this.settled(link);
    if (isAbuseClose(code)) this.d.admission.kicked(link.admissionKey, this.d.clock.now());
    link.connection.close(code, reason);
    this.links.delete(link.connId);
    const seat = link.seat;
    if (seat && seat.link === link) this.d.seatLost(seat, closeFreesSeat(code));
  }

  /** Closes every socket (room shutdown). */
  closeAll(code: number, reason: string): void {
    for (const link of [...this.links.values()]) this.close(link, code, reason);
    this.d.closedAll?.(code, reason);
  }

  /** Closes every socket admission counts against `key` (seated or still before its hello); returns how many. */
  closeKey(key: string, code: number, reason: string): number {
    let n = 0;
    for (const link of [...this.links.values()]) {
      if (link.admissionKey !== key) continue;
      this.close(link, code, reason);
      n++;
    }
    return n;
  }

  /** Closes every socket that has no seat (still before its hello, or refused); returns how many. */
  closeUnseated(code: number, reason: string): number {
    let n = 0;
    for (const link of [...this.links.values()]) {
      if (link.seat) continue;
      this.close(link, code, reason);
      n++;
    }
    return n;
  }

  /**
   * The socket stops waiting for hello (it said one, or it is gone): its deadline is cleared
   * and admission stops counting it as pending.
   */
  settled(link: ClientLink): void {
    if (link.helloTimer !== null) {
      this.d.clock.clearTimer(link.helloTimer);
      link.helloTimer = null;
    }
    if (!link.pending) return;
    link.pending = false;
    this.d.admission.settled(link.admissionKey);
  }

  /**
   * A protocol error, answered and counted; more than `maxErrorsPerConnection` closes the socket
   * (4010). Before its hello a socket has nothing to lose and no reason to err: its first
   * protocol error closes it (fuzzers and scanners cost one frame, not twenty).
   */
  protocolError(link: ClientLink, name: ErrorName, reason: string): void {
    RoomStats.bump(this.d.stats.errors, name);
    link.errors++;
    this.sendError(link, name, reason);
    if (!link.seat || link.errors > this.d.options.maxErrorsPerConnection) {
      this.close(link, CloseCode.too_many_errors, link.seat ? "too many protocol errors" : "protocol error before hello");
    }
  }

  /**
   * Sends an ERROR in the socket's dialect, unless it is closed or behind (see {@link mayReply});
   * either way the room's operator sees it among the recent errors.
   */
  sendError(link: ClientLink, name: ErrorName, reason: string, retryAfterMs = 0): void {
    const now = this.d.clock.now();
    this.d.recentErrors.record(now, name, reason, link.seat?.playerId ?? 0);
    if (link.closed || !this.mayReply(link, now)) return;
    sendError(link, name, reason, retryAfterMs, this.d.writer);
  }

  /**
   * Backpressure for an optional reply (pong, stats, error): false when the client is behind
   * (the reply is dropped, counted in `errors.reply_skipped`) or was just closed 4004.
   */
  mayReply(link: ClientLink, now: number): boolean {
    const p = pressure(link, now, this.d.options);
    if (p === Pressure.Ok) return true;
    if (p === Pressure.Close) this.slowConsumer(link);
    else RoomStats.bump(this.d.stats.errors, "reply_skipped");
    return false;
  }

  /**
   * Backpressure for the state stream: false when `link` is behind (its state is skipped,
   * counted in `framesSkipped`) or was just closed 4004. `readRuntime` also consults the
   * runtime's `bufferedAmount`, which crosses into the runtime: the binary flusher asks every
   * 4th flush per client (staggered), which still finds a stalled reader within 4 flushes.
   */
  streamAllowed(link: ClientLink, now: number, readRuntime: boolean): boolean {
    const { options } = this.d;
    const p = pressure(link, now, options);
    if (p === Pressure.Close || (readRuntime && link.connection.bufferedAmount() > options.maxBufferedBytes)) {
      this.slowConsumer(link);
      return false;
    }
    if (p === Pressure.Behind) {
      this.d.stats.framesSkipped++;
      return false;
    }
    return true;
  }

  /** Whether a `tk:stats` answer may go now (`minStatsIntervalMs` spacing); else says when to retry. */
  statsAllowed(link: ClientLink, now: number): boolean {
    const wait = statsWaitMs(link, now, this.d.options.minStatsIntervalMs);
    if (wait === 0) return true;
    RoomStats.bump(this.d.stats.errors, "stats_throttled");
    this.sendError(link, "rate_limited", "stats requested too often", wait);
    return false;
  }

  /** Closes a client that does not read (4004); its seat is held like any dropped one. */
  slowConsumer(link: ClientLink): void {
    RoomStats.bump(this.d.stats.errors, "slow_consumer");
    this.close(link, CloseCode.slow_consumer, "client is not reading");
  }

  /** A message over the socket's budget: dropped, answered now and then, and a flood closed 4003. */
  private dropped(link: ClientLink, now: number): void {
    // Drops start over once a socket has gone a second without one: the kick is for floods,
    // not for a few bursts spread over a long session.
    if (now - link.lastDropAt > 1000) link.dropped = 0;
    link.lastDropAt = now;
    link.dropped++;
    RoomStats.bump(this.d.stats.errors, "rate_limited");
    if (link.dropped > this.d.options.msgBurst) {
      this.close(link, CloseCode.rate_limited, "message rate limit exceeded");
    } else if (link.dropped === 1 || link.dropped % 20 === 0) {
      this.sendError(link, "rate_limited", "too many messages; dropped", link.bucket.waitMs(now));
    }
  }
}
