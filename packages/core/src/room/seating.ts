/**
 * Seating (`Seating`), the one home of who sits where: a hello's decision (join options,
 * resume, cap, admission, the game's own admission, new seat, welcome), sockets adopted after a
 * restart, seats from a checkpoint, and a seat's life after it (attached, held, freed).
 */
import { CloseCode, PROTOCOL_VERSION, parseJoinOptions, refusalCloseReason, type ErrorName, type FrameWriter, type HelloMessage, type JoinOptionsDecl } from "@tikron/protocol";
import type { CheckpointSeat, RoomHooks, SeatTicket } from "../host";
import { anonymousIdentity, isJoinRefusal, type AdmitVerdict, type JoiningPlayer } from "../player";
import type { InputQueue } from "../inputQueue";
import { RoomStats } from "../roomStats";
import type { TickScheduler } from "../tickScheduler";
import type { TokenBucket } from "../tokenBucket";
import type { Admission } from "./admission";
import type { RoomBans } from "./bans";
import type { ClientLink, Seat } from "./clientLink";
import type { Flusher } from "./flushers";
import { seatRecord } from "./checkpoint";
import { sendWelcome } from "./replies";
import type { RoomParts, RoomSockets } from "./roomSockets";
import { JoinAdmissions, isThenable, type AdmissionOutcome, type Admitting } from "./joinAdmissions";
import { SeatExpiry } from "./seatExpiry";
import type { SeatRegistry } from "./seatRegistry";
import type { SessionTracker } from "./sessionTracker";
import type { RoomListing } from "./roomListing";
import type { SeatReservations } from "./seatReservations";

/** The wait a join refused `admission_failed` is told before it comes back (ms). */
const ADMISSION_RETRY_MS = 1_000;

/** What seating needs from the room it serves. */
export interface SeatingDeps extends RoomParts {
  readonly queue: InputQueue<unknown>;
  readonly scheduler: TickScheduler;
  readonly seats: SeatRegistry;
  readonly sessions: SessionTracker;
  readonly hooks: RoomHooks;
  readonly admission: Admission;
  /** Identities an operator banned from the room. */
  readonly bans: RoomBans;
  /** The room's own join bucket (`joinRatePerSec`, `joinBurst`), after each caller's own. */
  readonly joinBucket: TokenBucket;
  /** Seats held for players a matchmaker sent: counted against the cap until used or expired. */
  readonly reservations: SeatReservations;
  /** Metadata, lock and visibility; its change count orders the room's status reports. */
  readonly listing: RoomListing;
  /** The join options the kind's players may choose (its definition's); undefined: none. */
  readonly joinOptions: JoinOptionsDecl | undefined;
  readonly sockets: RoomSockets;
  readonly flusher: Flusher;
  readonly writer: FrameWriter;
  /** The sync interval the room really flushes at, the welcome's `syncIntervalMs`. */
  readonly syncIntervalMs: number;
  /** The game's state changed (a turn-based room flushes at once). */
  markChanged(): void;
  /** Flushes on a microtask (a turn-based room sends a new seat its view at once). */
  flushSoon(): void;
  /** A seat's life changed (attached, held, freed): a sleeping loop wakes (room/roomSleep.ts). */
  stir(): void;
}

/**
 * Seating: the one home of who sits where. A socket takes a seat three ways: by its hello
 * ({@link hello}: the only one with admission and a welcome), by surviving a runtime restart
 * ({@link adopt}), or a checkpoint brings seats back held ({@link restore}). Then a seat's life:
 * a socket attaches (fresh baseline, the loop runs), a dropped socket's seat is held for the
 * reconnection window, and a seat is freed for good (game `leave`, queued inputs counted,
 * session maybe ended). It keeps the connected count, which starts and stops the tick loop.
 */
export class Seating {
  private readonly expiry: SeatExpiry;
  /** Joins waiting for the game's `admit` to answer (each counted against the cap). */
  readonly admissions: JoinAdmissions;
  /** Seats with a live socket. */
  connectedCount = 0;

  constructor(private readonly d: SeatingDeps) {
    this.expiry = new SeatExpiry(d.clock, () => d.seats.list, (seat) => this.free(seat));
    this.admissions = new JoinAdmissions(d.clock, () => d.options.admissionTimeoutMs);
  }

  /** Seats a join may not take: every seat (connected or held), every reservation, every join the game is still deciding on. */
  get claimed(): number {
    return this.d.seats.size + this.d.reservations.size + this.admissions.size;
  }

  /**
   * A hello on `link`. After the hello's own checks (a second hello, the protocol version, the
   * room's dialect) and a ban, one decision, in this order:
   * 1. resume: the seat this identity (or, without one, this token) holds comes back with its
   *    player record, and a socket still on it is replaced (4005); a reservation the join names
   *    is used up by it;
   * 2. the join options, checked against the game's declaration (`bad_request`, naming the
   *    option; a reservation the join names is given up with it);
   * 3. a seat reservation the join names: the seat held for it (it was counted when it was
   *    reserved, and reservations are single-use and made at a matchmaker's pace, so the cap and
   *    the join buckets are skipped), or `reservation_invalid` when the room holds none for it;
   * 4. a locked room refuses (`room_locked`); the cap: every seat taken, connected or held,
   *    every seat reservation pending and every join the game is still deciding on counts;
   * 5. join admission: the caller's own join bucket, then the room's (the room's bots skip both);
   * 6. the game's `admit` (not for bots), at once or, when it answers with a promise, within
   *    `admissionTimeoutMs` while the seat is counted against the cap;
   * 7. a new seat, and the game's `join` with the player's record;
   * 8. the welcome.
   */
  hello(link: ClientLink, m: HelloMessage, now: number): void {
    const { sockets, stats, seats, options, sessions, game } = this.d;
    if (link.seat || this.admissions.has(link)) return sockets.protocolError(link, "already_joined", "hello after join");
    if (m.version !== PROTOCOL_VERSION) {
      RoomStats.bump(stats.errors, "version_mismatch");
      return this.refuse(link, "version_mismatch", `server speaks protocol ${PROTOCOL_VERSION}`, 0, CloseCode.bad_hello, "protocol version mismatch");
    }
    const dialect = this.d.flusher.dialect;
    if (link.dialect !== dialect) {
      RoomStats.bump(stats.errors, "wrong_mode");
      return this.refuse(link, "bad_frame", `room ${this.d.kind} speaks ${dialect}`, 0, CloseCode.bad_hello, "wrong dialect for this room");
    }
    sockets.settled(link);
    // Admission refused a banned caller before its upgrade; a socket already open when the ban
    // came, or one of a host that does not ask, meets it here.
    const ban = this.d.bans.check(link.admissionKey, now);
    if (ban) {
      sessions.refused("banned");
      const why = ban.reason === "" ? "banned from this room" : `banned from this room: ${ban.reason}`;
      return this.refuse(link, "banned", why, ban.until - now, CloseCode.banned, refusalCloseReason(why, ban.until - now));
    }
    const { reservations } = this.d;
    const held = seats.resumable(link.identity, m.token);
    if (held) {
      // A reservation token is also its player's ticket back into the room: used, it resumes.
      if (link.reservation !== undefined && reservations.isHeldFor(link.reservation, link.identity)) reservations.take(link.reservation, link.identity);
      if (held.link) sockets.close(held.link, CloseCode.replaced, "seat taken by a newer connection");
      this.attach(held, link);
      stats.reconnects++;
      this.d.recorder?.reconnected(held.playerId, now);
      game.reconnected?.(held.player);
      return this.welcome(link, held, true, now);
    }
    // A new seat's options are checked before anything else is taken (a resumed seat keeps those
    // it was taken with, whatever its hello says now).
    const checked = parseJoinOptions(this.d.joinOptions, m.options);
    if (!checked.ok) {
      // Nothing is taken: a reservation the join names is given up, not left counted for nobody.
      if (link.reservation !== undefined) reservations.giveUp(link.reservation, link.identity);
      sessions.refused("bad_options");
      return this.refuse(link, "bad_request", checked.reason, 0, CloseCode.bad_request, refusalCloseReason(checked.reason));
    }
    // One identity asks once: an older join of it still waiting for the game gives way.
    if (link.identity !== undefined) {
      const older = this.admissions.supersede(link.identity);
      if (older) sockets.close(older.link, CloseCode.replaced, "a newer connection of this player is joining");
    }
    let claims = link.claims;
    const reserved = link.reservation !== undefined;
    if (reserved) {
      const taken = reservations.take(link.reservation!, link.identity);
      if (!taken) {
        sessions.refused("reservation_invalid");
        return this.refuse(link, "reservation_invalid", "this seat reservation is not held here (expired, used, or another player's); match again", 0, CloseCode.reservation_invalid, "reservation_invalid");
      }
      claims ??= taken.claims;
    } else {
      if (this.d.listing.locked) {
        sessions.refused("room_locked");
        return this.refuse(link, "room_locked", "the room is locked", 0, CloseCode.room_locked, "room_locked");
      }
      // Every seat taken counts against the cap, connected or held, every seat reserved, and
      // every join the game is still deciding on.
      if (this.claimed >= options.cap) {
        sessions.refused("room_full");
        return this.refuse(link, "room_full", `room is full (${options.cap} seats)`, 0, CloseCode.room_full, "room_full");
      }
      if (link.connection.bot !== true && !this.admitJoin(link, now)) return;
    }
    const bound = link.identity !== undefined;
    // An anonymous identity is drawn here; a replay's recorder hands back the one the match drew.
    const identity = link.identity ?? this.d.recorder?.anonymousIdentity?.() ?? anonymousIdentity();
    const joining: JoiningPlayer = { name: m.name.slice(0, 32), identity, claims: claims ?? {}, options: checked.options };
    if (link.connection.bot === true || !game.admit) return this.seatNew(link, joining, bound, now);
    const a: Admitting = { link, joining, bound, reserved };
    this.admissions.counts.asked++;
    let answer: AdmitVerdict | PromiseLike<AdmitVerdict>;
    try {
      answer = game.admit(joining);
    } catch (e) {
      return this.decide(a, { kind: "failed", error: e }, now);
    }
    if (!isThenable(answer)) return this.decide(a, { kind: "answered", verdict: answer }, now);
    this.admissions.wait(a, answer, (waited, outcome) => {
      // Off any socket event: a game bug in `join` must not become an unhandled rejection.
      try {
        this.decide(waited, outcome, this.d.clock.now());
      } catch (e) {
        RoomStats.bump(stats.errors, "internal");
        console.error(`[room ${this.d.kind}:${this.d.roomId}] admission error`, e);
      }
    });
  }

  /**
   * What the game's admission decided for `a`: a seat, or the join refused (the game's own
   * refusal `join_refused`; out of time, a throw or an answer that is no verdict:
   * `admission_failed`, closed `join_throttled` with a wait). A socket that closed while the
   * game decided is let be; a room locked meanwhile refuses a join without a reservation.
   */
  private decide(a: Admitting, outcome: AdmissionOutcome, now: number): void {
    const { link } = a;
    if (link.closed) return;
    const { sessions, stats } = this.d;
    if (outcome.kind === "answered") {
      const v = outcome.verdict;
      if (v === undefined || v === true) {
        if (!a.reserved && this.d.listing.locked) {
          sessions.refused("room_locked");
          return this.refuse(link, "room_locked", "the room is locked", 0, CloseCode.room_locked, "room_locked");
        }
        this.admissions.counts.admitted++;
        return this.seatNew(link, a.joining, a.bound, now);
      }
      if (v === false || isJoinRefusal(v)) {
        const code = v === false ? "refused" : v.code;
        const text = `${code}: ${v === false || v.reason === "" ? "the game refused this player" : v.reason}`;
        const wait = v === false ? 0 : v.retryAfterMs;
        sessions.refused("join_refused");
        return this.refuse(link, "join_refused", text, wait, CloseCode.join_refused, refusalCloseReason(text, wait));
      }
    }
    const timedOut = outcome.kind === "timeout";
    if (!timedOut) {
      RoomStats.bump(stats.errors, "internal");
      const why = outcome.kind === "failed" ? outcome.error : `admit answered ${JSON.stringify(outcome.verdict)}`;
      console.error(`[room ${this.d.kind}:${this.d.roomId}] the game's admit failed; join refused`, why);
    }
    sessions.refused(timedOut ? "admission_timeout" : "admission_failed");
    const text = timedOut ? "the game did not decide in time; retry" : "the game could not decide; retry";
    this.refuse(link, "admission_failed", text, ADMISSION_RETRY_MS, CloseCode.join_throttled, refusalCloseReason(text, ADMISSION_RETRY_MS));
  }

  /** A new seat for `joining` on `link`: the game's `join` with its record, then the welcome. */
  private seatNew(link: ClientLink, joining: JoiningPlayer, bound: boolean, now: number): void {
    const seat = this.take((seats) => seats.add(joining, bound));
    this.attach(seat, link);
    this.d.sessions.joined();
    this.d.recorder?.joined(seat.player, bound, link.connection.bot === true, now);
    this.d.game.join(seat.player);
    // Before the welcome: a host that keeps the record durably holds the welcome until it is kept.
    this.keep(seat);
    this.welcome(link, seat, false, now);
  }

  /**
   * Re-attaches a socket that survived a runtime restart to its seat: the seat a checkpoint
   * brought back (held) if it matches, else the seat rebuilt from the socket's ticket, with a
   * fresh entity. No welcome: the client never left.
   */
  adopt(link: ClientLink, ticket: SeatTicket): void {
    link.dialect = ticket.json ? "json" : "binary";
    this.d.sockets.settled(link);
    const held = this.d.seats.get(ticket.playerId);
    if (held && held.token === ticket.token) {
      this.attach(held, link);
      this.d.game.reconnected?.(held.player);
      return;
    }
    const seat = this.take((seats) => seats.restore(ticket));
    // The game is as new as the room: give the restored seat its entity before it is attached.
    this.d.game.join(seat.player);
    this.attach(seat, link);
    this.keep(seat);
  }

  /**
   * Seats from a checkpoint, before any socket is seated: each comes back held for the
   * reconnection window with its last applied seq and its player record; the game continues
   * from `gameState` when it can (told the restored players that state holds), or gives each
   * restored player a fresh entity (`join`). `gameSeats` are the players that state holds: a seat
   * not among them gets a fresh entity (`join`, with its record), a player among them without a
   * seat leaves.
   */
  restore(saved: readonly CheckpointSeat[], gameState: unknown, gameSeats: readonly number[]): void {
    const { game, stats } = this.d;
    const restored = saved.map((s) => {
      const seat = this.take((seats) => seats.restore(s));
      seat.lastReceivedSeq = seat.lastProcessedSeq = seat.lastAckedSeq = s.lastSeq;
      return seat;
    });
    let inGame = new Set<number>();
    if (gameState !== undefined && game.restore) {
      try {
        const held = new Set(gameSeats);
        game.restore(
          gameState,
          restored.filter((seat) => held.has(seat.playerId)).map((seat) => seat.player),
        );
        inGame = held;
        stats.restoredGames++;
      } catch (e) {
        RoomStats.bump(stats.errors, "checkpoint_refused");
        console.error(`[room ${this.d.kind}:${this.d.roomId}] game checkpoint refused; starting the game fresh`, e);
      }
    }
    // Players freed after the game's state was taken leave it before anyone new joins.
    const seated = new Set(restored.map((s) => s.playerId));
    for (const id of inGame) if (!seated.has(id)) this.leaveGame(id);
    for (const seat of restored) {
      if (!inGame.has(seat.playerId)) game.join(seat.player);
      seat.link = null;
      seat.heldUntil = this.d.clock.now() + this.d.options.reconnectWindowMs;
      game.disconnected?.(seat.playerId);
      this.expiry.arm(seat.heldUntil);
    }
    stats.restoredSeats += restored.length;
    this.d.listing.changed();
    this.d.flusher.stateChanged();
  }

  /** The seat's socket dropped: keep seat and entity for the reconnection window. */
  hold(seat: Seat): void {
    const { game, clock } = this.d;
    this.d.stir();
    seat.link = null;
    this.connectedCount--;
    this.d.flusher.detach(seat);
    seat.events.length = seat.notices.length = 0;
    const now = clock.now();
    seat.heldUntil = now + this.d.options.reconnectWindowMs;
    this.d.recorder?.disconnected(seat.playerId, now);
    game.disconnected?.(seat.playerId);
    this.expiry.arm(seat.heldUntil);
    if (this.connectedCount === 0) {
      this.d.scheduler.stop();
      // A room nobody is connected to is what an object's eviction follows: save it as it is.
      this.d.hooks.onCheckpointDue?.(true);
    }
    this.d.listing.changed();
  }

  /** Frees the seat for good (leave, abuse, or the window ran out). Idempotent. */
  free(seat: Seat): void {
    const { game, stats, seats } = this.d;
    if (!seats.has(seat)) return;
    this.d.stir();
    this.d.recorder?.left(seat.playerId, this.d.clock.now());
    if (seat.link) {
      seat.link.seat = null;
      seat.link = null;
      this.connectedCount--;
      if (this.connectedCount === 0) this.d.scheduler.stop();
    }
    this.d.flusher.detach(seat);
    seats.remove(seat);
    // Inputs queued by a player who leaves before the next tick are never applied; counting
    // them keeps tk:stats whole (received = processed + rejected once the queue drains).
    const dropped = this.d.queue.dropPlayer(seat.playerId);
    if (dropped > 0) {
      stats.inputsRejected += dropped;
      RoomStats.bump(stats.rejectedByCode, "seat_freed", dropped);
    }
    this.leaveGame(seat.playerId);
    this.d.hooks.onSeatRecord?.(seat.playerId, null);
    this.d.markChanged();
    if (seats.size === 0) {
      this.d.sessions.lastSeatFreed();
      // Nothing left to keep: a host removes what it kept of the room.
      this.d.hooks.onCheckpointDue?.(true);
    }
    this.d.listing.changed();
  }

  /** The game's `leave`, a throw logged and counted. */
  private leaveGame(playerId: number): void {
    try {
      this.d.game.leave(playerId);
    } catch (e) {
      RoomStats.bump(this.d.stats.errors, "internal");
      console.error(`[room ${this.d.kind}:${this.d.roomId}] leave error`, e);
    }
  }

  /** Hands the host the record that brings `seat` back after a restart. */
  private keep(seat: Seat): void {
    const hooks = this.d.hooks;
    if (hooks.onSeatRecord) hooks.onSeatRecord(seat.playerId, seatRecord(this.d.seats, seat, this.d.flusher.dialect === "json"));
  }

  /** Cancels the expiry timer and stops waiting for the game's admissions (room shutdown). */
  stop(): void {
    this.expiry.stop();
    this.admissions.clear();
  }

  /** Join admission for a new seat: false (and the socket refused) when a bucket is empty. */
  private admitJoin(link: ClientLink, now: number): boolean {
    const { sessions, stats, joinBucket } = this.d;
    // The caller's own join bucket first, so one identity's loop never drains the room's.
    const own = this.d.admission.joinWaitMs(link.admissionKey, now);
    if (own > 0) {
      sessions.refused("join_throttled");
      RoomStats.bump(stats.refused, "identity_join_throttled");
      this.refuse(link, "join_throttled", "you are joining too often; retry later", own, CloseCode.join_throttled, "join_throttled");
      return false;
    }
    if (!joinBucket.take(now)) {
      sessions.refused("join_throttled");
      const wait = Math.max(joinBucket.waitMs(now), 100);
      this.refuse(link, "join_throttled", "too many joins right now; retry later", wait, CloseCode.join_throttled, "join_throttled");
      return false;
    }
    return true;
  }

  /**
   * Files a seat `file` makes (a new one, or one rebuilt from a ticket), starting a session in
   * an empty room.
   */
  private take(file: (seats: SeatRegistry) => Seat): Seat {
    const { seats } = this.d;
    this.d.sessions.seatTaken(seats.size === 0);
    return file(seats);
  }

  /** Seats `link` on `seat`: a fresh baseline, the loop running, the host told. */
  private attach(seat: Seat, link: ClientLink): void {
    const { game, scheduler } = this.d;
    this.d.stir();
    seat.link = link;
    seat.heldUntil = Infinity;
    seat.lastAckedSeq = seat.lastProcessedSeq;
    seat.events.length = seat.notices.length = 0;
    link.seat = seat;
    this.d.flusher.attach(seat);
    this.connectedCount++;
    this.d.sessions.connected(this.connectedCount);
    if (game.ticking && !scheduler.running) scheduler.start();
    this.d.hooks.onSeated?.(link.connId, this.d.seats.ticketOf(seat, link));
    this.d.listing.changed();
  }

  /** The welcome: the seat, the room's cadence and clock, and the seqs it has applied. */
  private welcome(link: ClientLink, seat: Seat, reconnected: boolean, now: number): void {
    const { options, flusher } = this.d;
    sendWelcome(
      link,
      {
        version: PROTOCOL_VERSION,
        playerId: seat.playerId,
        token: seat.token,
        tickMs: options.tickMs,
        syncIntervalMs: this.d.syncIntervalMs,
        serverTime: now,
        roomEpoch: this.d.epoch,
        reconnected,
        json: link.dialect === "json",
        roomKind: this.d.kind,
        cap: options.cap,
        schemaHash: flusher.schemaHash,
        lastSeq: seat.lastProcessedSeq,
      },
      this.d.writer,
    );
    if (!this.d.game.ticking) this.d.flushSoon();
  }

  /** Refuses a hello: the error in the socket's dialect, then the close. */
  private refuse(link: ClientLink, name: ErrorName, reason: string, retryAfterMs: number, code: number, closeReason: string): void {
    this.d.sockets.sendError(link, name, reason, retryAfterMs);
    this.d.sockets.close(link, code, closeReason);
  }
}
