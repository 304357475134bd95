import {
  CloseCode,
  FrameFlag,
  PROTOCOL_VERSION,
  beginFrame,
  endFrame,
  writeFrameAck,
  writeFrameEvents,
  type InputEntry,
  type WelcomeFields,
} from "@tikron/protocol";
import { isRejection, type GameContext, type InputRejection } from "./game";
import { flushJsonState, sendWelcome } from "./room/dialects";
import { RoomSockets, type RoomInit } from "./room/roomSockets";
import { RoomStats } from "./roomStats";
import type { ClientLink, Dialect, Seat } from "./seat";
import type { StateEncoder } from "./stateEncoder";

export type { RoomInit } from "./room/roomSockets";
export type { RoomHooks, RoomSessionRecord } from "./room/sessionTracker";
export type { SeatTicket } from "./room/seatRegistry";

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
 * dialects' replies live beside it in room/.
 */
export class Room extends RoomSockets {
  private flushIndex = 0;
  private tickIndex = 0;
  private immediateFlushQueued = false;
  private readonly ctx: GameContext;

  constructor(init: RoomInit) {
    super(init);
    const room = this;
    this.ctx = {
      now: () => room.clock.now(),
      emit: (event, to) => room.emit(event, to),
      markChanged: () => room.markChanged(),
      count: (counter, by = 1) => RoomStats.bump(room.stats.game, counter, by),
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
    const held = this.seats.resumable(link.identity, token);
    if (held) {
      if (held.link) this.closeLink(held.link, CloseCode.replaced, "seat taken by a newer connection");
      this.seating.attach(held, link);
      this.stats.reconnects++;
      this.game.reconnected?.(held.playerId);
      this.welcome(link, held, true, now);
      return;
    }
    if (this.seats.size >= this.options.cap) {
      this.sessions.refused("room_full");
      this.sendError(link, "room_full", `room is full (${this.options.cap} seats)`, 0, dialect);
      return this.closeLink(link, CloseCode.room_full, "room_full");
    }
    // The room's own bots are not a join storm: they skip admission (they still take seats).
    if (link.connection.bot !== true && !this.joinBucket.take(now)) {
      const wait = this.joinBucket.waitMs(now);
      this.sessions.refused("join_throttled");
      this.sendError(link, "join_throttled", "too many joins right now; retry later", Math.max(wait, 100), dialect);
      return this.closeLink(link, CloseCode.join_throttled, "join_throttled");
    }
    this.sessions.seatTaken(this.seats.size === 0);
    const seat = this.seats.add(name.slice(0, 32), link.identity);
    this.seating.attach(seat, link);
    this.sessions.joined();
    this.game.join(seat.playerId, seat.name);
    this.welcome(link, seat, false, now);
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
    if (seat.link) this.sendError(seat.link, r.code, r.reason);
  }

  private countRejected(code: string): void {
    this.stats.inputsRejected++;
    RoomStats.bump(this.stats.rejectedByCode, code);
  }


  // ---- the loop: tick, then flush every syncEveryTicks ticks ----------------------------

  protected runTick(k: number, now: number): void {
    this.tickIndex = k;
    const t0 = perfNow();
    this.bots.tick(now, this.connectedCount);
    this.queue.drain((e) => {
      const seat = this.seats.get(e.playerId);
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
      // Reading the backlog crosses into the runtime; every 4th flush per client (staggered)
      // still finds a stalled reader within 4 flushes, at a quarter of the cost.
      if (((flushIndex + i) & 3) === 0 && link.connection.bufferedAmount() > this.options.maxBufferedBytes) {
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
      link.connection.send(w.peek());
    }
  }

  private flushJson(now: number): void {
    if (this.game.sync.mode !== "json") return;
    const dirty = this.jsonDirty;
    this.jsonDirty = false;
    const time = Math.max(0, Math.round(now - this.epoch));
    flushJsonState(this.seats.list, this.game.sync.source, dirty, this.tickIndex, time, this.stats);
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
    link.connection.send(w.peek());
  }

  protected markChanged(): void {
    this.jsonDirty = true;
    if (!this.game.ticking) this.queueImmediateFlush();
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
