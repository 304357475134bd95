import {
  CloseCode,
  FrameFlag,
  PROTOCOL_VERSION,
  beginFrame,
  endFrame,
  writeFrameAck,
  writeFrameEvents,
  type ErrorName,
  type InputEntry,
  type WelcomeFields,
} from "@tikron/protocol";
import { isRejection, type GameContext, type InputRejection } from "./game";
import { Pressure, pressure, sendTo } from "./room/clientLink";
import { checkpointSeats, type RoomCheckpoint } from "./room/checkpoint";
import { flushJsonState, sendWelcome } from "./room/dialects";
import { RoomSockets, type RoomInit } from "./room/roomSockets";
import { RoomStats } from "./roomStats";
import type { ClientLink, Dialect, Seat } from "./seat";
import type { StateEncoder } from "./stateEncoder";

export type { RoomInit } from "./room/roomSockets";
export type { RoomHooks, RoomSessionRecord } from "./room/sessionTracker";
export type { SeatTicket } from "./room/seatRegistry";
export type { RoomCheckpoint, CheckpointSeat } from "./room/checkpoint";

/** Ticks between a ticking room's checkpoint nudges (`onCheckpointDue`), while anyone is seated. */
const CHECKPOINT_EVERY_TICKS = 200;

const perfNow: () => number =
  typeof performance !== "undefined" && typeof performance.now === "function"
    ? () => performance.now()
    : () => Date.now();

/**
 * The runtime-agnostic room: seats players, validates and queues their inputs, runs the tick
 * loop, flushes per-client state on a throttle and answers the `tk:stats` probe. It speaks the
 * wire protocol over `Connection`s handed in by a host and knows nothing of the runtime.
 *
 * This file is the game side: a hello seats a player (`hello`), inputs are queued or
 * applied here, a tick happens in `runTick`, and a binary FRAME is encoded in
 * `flushBinary`. The socket side (open/close, a message's arrival and decode, errors) is
 * `RoomSockets` in room/roomSockets.ts; seats, their expiry, session counting, per-socket guards and both
 * dialects' replies live beside it in room/. Over 400 lines with the checkpoint pair
 * ({@link checkpoint}, {@link restoreCheckpoint}) and the bot accessors, which must reach the
 * same seats, sessions and game as a hello; the checkpoint's shape and validation stand alone in
 * room/checkpoint.ts and the bots' own logic in room/bots.ts. Next split: joins (hello, welcome,
 * checkpoint) out of the tick/flush story.
 */
export class Room extends RoomSockets {
  private flushIndex = 0;
  private tickIndex = 0;
  private immediateFlushQueued = false;
  /** Some seat has refusals to report (see {@link reportRefusals}). */
  private refusalsPending = false;
  private readonly ctx: GameContext;
  /** Backpressure verdict for JSON flushes, bound once (no closure per flush). */
  private readonly mayStream = (link: ClientLink): boolean => this.streamAllowed(link, this.clock.now());

  constructor(init: RoomInit) {
    super(init);
    const room = this;
    this.ctx = {
      now: () => room.clock.now(),
      emit: (event, to) => room.emit(event, to),
      markChanged: () => room.markChanged(),
      count: (counter, by = 1) => RoomStats.bump(room.stats.game, counter, by),
      get metadata() {
        return room.listing.metadata;
      },
      setMetadata: (patch) => room.listing.setMetadata(patch),
      lock: () => room.listing.setLocked(true),
      unlock: () => room.listing.setLocked(false),
      setPrivate: (value) => room.listing.setPrivate(value),
    };
    this.game.init?.(this.ctx);
    // Seated on the next turn, not here: the host is still wiring the room (its hooks may read
    // the room it is being handed).
    const initialBots = this.options.bots;
    if (initialBots > 0) this.clock.setTimer(() => this.setBots(initialBots), 0);
  }

  // ---- bots: seats driven by the room itself (room/bots.ts) -------------------------------
  /** Bot players seated now. */
  get botCount(): number {
    return this.bots.count;
  }

  /** Whether this room's kind has bots, and whether production gateways may add them. */
  get botsAvailable(): {
    /** The kind's definition has bots. */
    available: boolean;
    /** Its `bots.allowInProduction` is set. */
    inProduction: boolean;
  } {
    return { available: this.bots.available, inProduction: this.bots.allowedInProduction };
  }

  /**
   * Adds or removes bot players until `n` are seated (clamped to 0..MAX_BOTS; bots take seats
   * like anyone, so a full room seats fewer). Returns the bots seated. No-op for kinds without
   * bots. Bots leave by themselves once no human has been in the room for five minutes.
   */
  setBots(n: number): number {
    return this.bots.set(n);
  }

  // ---- joins: a hello seats a player, resumes a held seat, or is refused -----------------

  protected hello(link: ClientLink, version: number, token: string, name: string, dialect: Dialect, now: number): void {
    if (link.seat) return this.protocolError(link, "already_joined", "hello after join", dialect);
    link.dialect = dialect;
    if (version !== PROTOCOL_VERSION) {
      RoomStats.bump(this.stats.errors, "version_mismatch");
      this.sendError(link, "version_mismatch", `server speaks protocol ${PROTOCOL_VERSION}`, 0, dialect);
      return this.closeLink(link, CloseCode.bad_hello, "protocol version mismatch");
    }
    if (this.game.sync.mode !== dialect) {
      RoomStats.bump(this.stats.errors, "wrong_mode");
      this.sendError(link, "bad_frame", `room ${this.kind} speaks ${this.game.sync.mode}`, 0, dialect);
      return this.closeLink(link, CloseCode.bad_hello, "wrong dialect for this room");
    }
    this.clearHelloTimer(link);
    this.settlePending(link);
    const held = this.seats.resumable(link.identity, token);
    if (held) {
      // A reservation token is also its player's ticket back into the room: used, it resumes.
      if (link.reservation !== undefined && this.reservations.isHeldFor(link.reservation, link.identity)) this.reservations.take(link.reservation, link.identity);
      if (held.link) this.closeLink(held.link, CloseCode.replaced, "seat taken by a newer connection");
      this.seating.attach(held, link);
      this.stats.reconnects++;
      this.game.reconnected?.(held.playerId);
      this.welcome(link, held, true, now);
      return;
    }
    const reservation = link.reservation;
    if (reservation !== undefined) {
      // The seat was counted when it was reserved, and reservations are single-use and made at
      // the matchmaker's pace: a reserved join skips the cap and the join buckets.
      if (!this.reservations.take(reservation, link.identity)) {
        this.sessions.refused("reservation_invalid");
        this.sendError(link, "reservation_invalid", "this seat reservation is not held here (expired, used, or another player's); match again", 0, dialect);
        return this.closeLink(link, CloseCode.reservation_invalid, "reservation_invalid");
      }
      return this.takeSeat(link, name, now);
    }
    if (this.listing.locked) {
      this.sessions.refused("room_locked");
      this.sendError(link, "room_locked", "the room is locked", 0, dialect);
      return this.closeLink(link, CloseCode.room_locked, "room_locked");
    }
    if (this.seats.size + this.reservations.size >= this.options.cap) {
      this.sessions.refused("room_full");
      this.sendError(link, "room_full", `room is full (${this.options.cap} seats)`, 0, dialect);
      return this.closeLink(link, CloseCode.room_full, "room_full");
    }
    // The room's own bots are not a join storm: they skip admission (they still take seats).
    // The caller's own join bucket first, so one identity's loop never drains the room's.
    const own = link.connection.bot === true ? 0 : this.admission.joinWaitMs(link.admissionKey, now);
    if (own > 0) {
      this.sessions.refused("join_throttled");
      RoomStats.bump(this.stats.refused, "identity_join_throttled");
      this.sendError(link, "join_throttled", "you are joining too often; retry later", own, dialect);
      return this.closeLink(link, CloseCode.join_throttled, "join_throttled");
    }
    if (link.connection.bot !== true && !this.joinBucket.take(now)) {
      const wait = this.joinBucket.waitMs(now);
      this.sessions.refused("join_throttled");
      this.sendError(link, "join_throttled", "too many joins right now; retry later", Math.max(wait, 100), dialect);
      return this.closeLink(link, CloseCode.join_throttled, "join_throttled");
    }
    this.takeSeat(link, name, now);
  }

  /** A new seat for `link`: filed, attached, the game told, the player welcomed. */
  private takeSeat(link: ClientLink, name: string, now: number): void {
    this.sessions.seatTaken(this.seats.size === 0);
    const seat = this.seats.add(name.slice(0, 32), link.identity);
    this.seating.attach(seat, link);
    this.sessions.joined();
    this.game.join(seat.playerId, seat.name);
    this.welcome(link, seat, false, now);
    this.hooks.onCheckpointDue?.(true);
  }

  /** The welcome's fields, one builder for both dialects. */
  protected welcome(link: ClientLink, seat: Seat, reconnected: boolean, now: number): void {
    const fields: WelcomeFields = {
      version: PROTOCOL_VERSION,
      playerId: seat.playerId,
      token: seat.token,
      tickMs: this.options.tickMs,
      syncIntervalMs: this.syncIntervalMs,
      serverTime: now,
      roomEpoch: this.epoch,
      reconnected,
      json: link.dialect === "json",
      roomKind: this.kind,
      cap: this.options.cap,
      schemaHash: this.game.sync.mode === "binary" ? this.game.sync.encoder.schemaHash : 0,
      lastSeq: seat.lastProcessedSeq,
    };
    sendWelcome(link, fields, this.writer);
    if (!this.game.ticking) this.queueImmediateFlush();
  }

  // ---- inputs: queued for the next tick, or applied at once ------------------------------

  /** Handles `inputs[0, count)` (the array may be a reused scratch longer than `count`). */
  protected inputs(link: ClientLink, inputs: readonly InputEntry[], count: number, now: number): void {
    const seat = link.seat;
    if (!seat) return this.protocolError(link, "not_joined", "input before hello");
    const queued = this.game.ticking && this.options.queueInputs;
    let appliedNow = false;
    for (let i = 0; i < count; i++) {
      const entry = inputs[i]!;
      this.stats.inputsReceived++;
      if (entry.seq <= seat.lastReceivedSeq) {
        this.countRejected("stale_seq");
        this.noteRefusal(seat, "bad_input", "seq is not above the last one");
        continue;
      }
      // A bounded step: a seq that leaps to 2^32-1 would leave the seat nowhere to go.
      if (entry.seq - seat.lastReceivedSeq > this.options.maxSeqStep) {
        this.countRejected("seq_jump");
        this.noteRefusal(seat, "bad_input", `seq jumps more than ${this.options.maxSeqStep} above the last one`);
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
    if (seat.refusedCount > 0) this.reportRefusals(seat);
  }

  /** Remembers a refused input; the seat hears of all of them in one error frame. */
  private noteRefusal(seat: Seat, name: ErrorName, reason: string): void {
    if (seat.refusedCount++ === 0) {
      seat.refusedName = name;
      seat.refusedReason = reason;
    }
    this.refusalsPending = true;
  }

  /**
   * One error frame for every input refused since the last one (the first refusal's code, the
   * count in the reason), and one charge against the socket's refusal budget: refused inputs
   * cost the room a decode each, so a client that keeps sending them is kicked (4010) once
   * the budget (`rejectedFramesPerSec`, `rejectedFramesBurst`) runs out.
   */
  private reportRefusals(seat: Seat): void {
    const n = seat.refusedCount;
    if (n === 0) return;
    seat.refusedCount = 0;
    const link = seat.link;
    if (!link || link.closed) return;
    const now = this.clock.now();
    if (!link.rejectBucket.take(now)) {
      RoomStats.bump(this.stats.errors, "too_many_refusals");
      this.closeLink(link, CloseCode.too_many_errors, "too many refused inputs");
      return;
    }
    const reason = n === 1 ? seat.refusedReason : `${n} inputs refused; first: ${seat.refusedReason}`;
    this.sendError(link, seat.refusedName as ErrorName, reason);
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
    this.noteRefusal(seat, r.code, r.reason);
  }

  private countRejected(code: string): void {
    this.stats.inputsRejected++;
    RoomStats.bump(this.stats.rejectedByCode, code);
  }


  // ---- the loop: tick, then flush every syncEveryTicks ticks ----------------------------

  protected runTick(k: number, now: number): void {
    this.tickIndex = k;
    this.stats.timerLate.record(this.scheduler.lastLateMs);
    const t0 = perfNow();
    this.bots.tick(now, this.connectedCount);
    this.queue.drain((e) => {
      const seat = this.seats.get(e.playerId);
      if (seat) this.apply(seat, e.seq, e.input, e.receivedAt);
    });
    if (this.refusalsPending) {
      this.refusalsPending = false;
      const list = this.seats.list;
      for (let i = 0; i < list.length; i++) this.reportRefusals(list[i]!);
    }
    try {
      this.game.tick(now, this.options.tickMs);
    } catch (e) {
      RoomStats.bump(this.stats.errors, "internal");
      console.error(`[room ${this.kind}:${this.roomId}] tick error`, e);
    }
    this.stats.ticks++;
    this.stats.tick.record(perfNow() - t0);
    // Seats' last seqs move with every input; a nudge now and then keeps a checkpoint close.
    if (k % CHECKPOINT_EVERY_TICKS === 0) this.hooks.onCheckpointDue?.(false);
    if (k % this.syncEveryTicks === 0) this.flush(now);
  }

  private flush(now: number): void {
    const t0 = perfNow();
    this.stats.flushes++;
    if (this.game.sync.mode === "binary") this.flushBinary(this.game.sync.encoder, now);
    else this.flushJson(now);
    this.stats.flush.record(perfNow() - t0);
  }

  private flushBinary(encoder: StateEncoder, now: number): void {
    const flushIndex = this.flushIndex++;
    encoder.beginFlush(flushIndex);
    const time = Math.max(0, Math.round(now - this.epoch));
    const w = this.writer;
    const idleMs = this.options.idleFrameMs;
    const list = this.seats.list;
    for (let i = 0; i < list.length; i++) {
      const seat = list[i]!;
      const link = seat.link;
      if (!link) continue;
      if (link.connection.bot === true) {
        // Bots read nothing: encoding their frames would be work for nobody.
        seat.events.length = 0;
        continue;
      }
      // A client that is behind gets no frame: its baseline stays at the last frame it got,
      // so the next one it gets carries everything since (a fresh view, not a replay).
      if (!this.streamAllowed(link, now, ((flushIndex + i) & 3) === 0)) continue;
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
      if (flags === 0) {
        // Nothing changed for this client: a header-only frame at once when it stops changing,
        // then one per idleFrameMs, tells it that time advanced with nothing moving, so its
        // playout clock neither drifts nor starves.
        if (idleMs === 0 || (seat.settled && now - seat.lastFrameAt < idleMs)) continue;
        this.stats.idleFrames++;
        seat.settled = true;
      } else {
        seat.settled = false;
      }
      seat.lastFrameAt = now;
      endFrame(w, flagsPos, flags);
      this.stats.frames++;
      this.stats.bytesOut += w.offset;
      sendTo(link, w.peek());
    }
  }

  /**
   * Backpressure for the state stream: false when `link` is behind (frame skipped, counted in
   * `framesSkipped`) or was just closed 4004. `readRuntime` also consults the runtime's
   * `bufferedAmount`, which crosses into the runtime: every 4th flush per client (staggered)
   * still finds a stalled reader within 4 flushes, at a quarter of the cost.
   */
  private streamAllowed(link: ClientLink, now: number, readRuntime = true): boolean {
    const p = pressure(link, now, this.options);
    if (p === Pressure.Close || (readRuntime && link.connection.bufferedAmount() > this.options.maxBufferedBytes)) {
      this.slowConsumer(link);
      return false;
    }
    if (p === Pressure.Behind) {
      this.stats.framesSkipped++;
      return false;
    }
    return true;
  }

  private flushJson(now: number): void {
    if (this.game.sync.mode !== "json") return;
    const dirty = this.jsonDirty;
    this.jsonDirty = false;
    const time = Math.max(0, Math.round(now - this.epoch));
    flushJsonState(this.seats.list, this.game.sync.source, dirty, this.tickIndex, time, this.stats, this.mayStream);
  }

  /** Ack-only frame sent at once (queueInputs off): one extra send per input, by design. */
  private sendAckNow(seat: Seat): void {
    const link = seat.link;
    if (!link || seat.lastProcessedSeq <= seat.lastAckedSeq) return;
    const w = this.writer.reset();
    const now = this.clock.now();
    const flagsPos = beginFrame(w, this.tickIndex, Math.max(0, Math.round(now - this.epoch)));
    seat.lastFrameAt = now;
    writeFrameAck(w, seat.lastProcessedSeq);
    endFrame(w, flagsPos, FrameFlag.Ack);
    seat.lastAckedSeq = seat.lastProcessedSeq;
    this.stats.acks++;
    this.stats.frames++;
    this.stats.bytesOut += w.offset;
    sendTo(link, w.peek());
  }

  protected markChanged(): void {
    this.jsonDirty = true;
    if (!this.game.ticking) {
      this.queueImmediateFlush();
      this.hooks.onCheckpointDue?.(true);
    }
  }

  // ---- checkpoints: what a restart needs -------------------------------------------------

  /** Every seat and the game's own checkpoint, JSON-able (see room/checkpoint.ts). */
  checkpoint(): RoomCheckpoint {
    const json = this.game.sync.mode === "json";
    const seats = this.seats.list.map((seat) => ({ ...this.seats.ticketFor(seat, json), lastSeq: seat.lastProcessedSeq }));
    const cp: RoomCheckpoint = { v: 1, kind: this.kind, roomId: this.roomId, savedAt: Date.now(), seats };
    if (this.game.checkpoint) cp.game = this.game.checkpoint();
    return cp;
  }

  /**
   * Rebuilds the room from a {@link checkpoint} before any socket is seated: every seat comes
   * back held for the reconnection window (a hello with its token, or its ticket's identity,
   * resumes it with `reconnected: true`), and the game continues from its checkpoint, or, for a
   * game without one, gives each restored player a fresh entity. Returns false (and changes
   * nothing) for a value that is not a checkpoint of this room, or when seats already exist.
   */
  restoreCheckpoint(value: unknown): boolean {
    const seats = checkpointSeats(value, this.kind, this.roomId);
    if (!seats || seats.length === 0 || this.seats.size > 0) return false;
    const restored = seats.map((s) => {
      this.sessions.seatTaken(this.seats.size === 0);
      const seat = this.seats.restore(s);
      seat.lastReceivedSeq = seat.lastProcessedSeq = seat.lastAckedSeq = s.lastSeq;
      return seat;
    });
    const state = (value as RoomCheckpoint).game;
    let gameRestored = false;
    if (state !== undefined && this.game.restore) {
      try {
        this.game.restore(state);
        gameRestored = true;
      } catch (e) {
        RoomStats.bump(this.stats.errors, "checkpoint_refused");
        console.error(`[room ${this.kind}:${this.roomId}] game checkpoint refused; starting the game fresh`, e);
      }
    }
    for (const seat of restored) {
      if (!gameRestored) this.game.join(seat.playerId, seat.name);
      this.seating.holdRestored(seat);
    }
    this.stats.restoredSeats += restored.length;
    this.jsonDirty = true;
    return true;
  }

  protected queueImmediateFlush(): void {
    if (this.immediateFlushQueued) return;
    this.immediateFlushQueued = true;
    queueMicrotask(() => {
      this.immediateFlushQueued = false;
      this.flush(this.clock.now());
    });
  }

  private emit(event: unknown, to?: Iterable<number>): void {
    if (to === undefined) {
      for (const seat of this.seats.list) if (seat.link) seat.events.push(event);
      return;
    }
    for (const id of to) {
      const seat = this.seats.get(id);
      if (seat?.link) seat.events.push(event);
    }
  }
}
