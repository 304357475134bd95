/** The room a host drives (`Room`, seen through hostedRoom.ts's `HostedRoom`): its parts wired together (room/), its tick
 * loop and flush cadence, and the one dispatch of a decoded message. */
import { CloseCode, flushEveryTicks, type AdminBan, type FrameWriter, type RoomRates, type SpectateRequest } from "@tikron/protocol";
import type { BusyMeter } from "./busyMeter";
import { systemClock, type Clock } from "./clock";
import type { Game } from "./game";
import type { GameStoreSnapshot } from "./gameStore";
import type { AdmissionRefusal, BanOutcome, BanTarget, CheckpointWorld, Connection, RoomAdminView, RoomCheckpoint, RoomHooks, SeatTicket } from "./host";
import type { HostedRoom } from "./hostedRoom";
import type { RoomInit } from "./roomInit";
import type { PlayerClaims } from "./player";
import type { RoomBots } from "./room/bots";
import { takeCheckpoint, worldChainFor } from "./room/checkpoint";
import { restoreRoom } from "./room/restore";
import type { WorldChain } from "./sync/worldCheckpoint";
import type { ClientLink } from "./room/clientLink";
import type { FlushDeps, Flusher } from "./room/flushers";
import type { GameMessageRouter } from "./room/gameMessageRouter";
import type { Inbound, InboundInput } from "./room/inbound";
import type { InputIntake } from "./room/inputIntake";
import { sendStats } from "./room/replies";
import { changeRates } from "./room/roomRates";
import { admitToRoom } from "./room/admission";
import type { CheckpointCadence } from "./room/checkpointCadence";
import type { RoomSleep } from "./room/roomSleep";
import { MESSAGE_TOO_BIG, type RoomSockets } from "./room/roomSockets";
import { wireRoom, type RoomBase, type RoomCalls, type RoomWiring } from "./room/roomWiring";
import { statsContext } from "./room/statsContext";
import type { SeatRegistry } from "./room/seatRegistry";
import type { Seating } from "./room/seating";
import { resolveRoomOptions, type RoomOptions } from "./roomOptions";
import { RoomStats, buildStatsSnapshot, type RoomStatsSnapshot } from "./roomStats";
import type { RoomStatus } from "./match/roomStatus";
import type { PendingReservation, SeatAnswer, SeatHold, SeatRequest } from "./match/roomPort";
import type { TickScheduler } from "./tickScheduler";
import { perfNow } from "./durationStats";
import type { SlicedFlush } from "./room/slicedFlush";
import type { MatchRecorder } from "./replay/matchRecorder";

/**
 * The runtime-agnostic room: seats players, validates and queues their inputs, runs the tick
 * loop, flushes per-client state on a throttle and answers the `tk:stats` probe. It speaks the
 * wire protocol over `Connection`s handed in by a host ({@link HostedRoom} is all a host calls)
 * and knows nothing of the runtime.
 *
 * A message (`message`) goes through the sockets' guards
 * (room/roomSockets.ts `arrive`: counted, size, budget, dialect, decoded at the edge,
 * room/inbound.ts) and on to `handle`, the one dispatch: a hello to seating (room/seating.ts), inputs to the
 * intake (room/inputIntake.ts), game messages to their router, probes answered in the socket's
 * dialect (room/replies.ts). A tick is `runTick`; its flush goes through the game's
 * flusher (room/flushers.ts: binary FRAMEs or JSON states), which also sends what the game
 * queued for players through its context: events and notices (room/gameOutput.ts).
 */
export class Room implements HostedRoom {
  /** Room kind, e.g. `agar`. */
  readonly kind: string;
  /** Room id within its kind. */
  readonly roomId: string;
  /** The resolved options the room runs with. */
  readonly options: RoomOptions;
  /** Counters and durations behind `tk:stats`; hosts read them through {@link snapshot}. */
  readonly stats = new RoomStats();
  private readonly game: Game;
  private readonly clock: Clock;
  /** The host's meter of the object's own time, reported as `busy` (null: not metered). */
  private readonly busy: BusyMeter | null;
  /** See the constructor's `amendStats`. */
  private readonly amendStats: ((own: RoomStatsSnapshot) => RoomStatsSnapshot) | null;
  private readonly hooks: RoomHooks;
  private readonly epoch: number;
  private readonly scheduler: TickScheduler;
  /** Ticks between two flushes (`flushEveryTicks`); moves with {@link setRates}. */
  private syncEveryTicks: number;
  /** When the periodic checkpoint is due (room/checkpointCadence.ts). */
  private readonly cadence: CheckpointCadence;
  /** The loop's sleep while the game is still (room/roomSleep.ts). */
  private readonly sleep: RoomSleep;
  /** The room's own values every part starts from. */
  private readonly base: RoomBase;
  /** The room's parts (room/roomWiring.ts), read through this on the cold paths (admin, keeping, matchmaker). */
  private readonly parts: RoomWiring;
  // The parts the hot paths (message, tick, flush) use, each a field of the room's own.
  private readonly writer: FrameWriter;
  private readonly seats: SeatRegistry;
  private readonly sockets: RoomSockets;
  private readonly seating: Seating;
  private readonly intake: InputIntake;
  private readonly flusher: Flusher;
  private readonly flushing: SlicedFlush;
  private readonly gameMessages: GameMessageRouter;
  private readonly bots: RoomBots;
  /** The recorder of the room's match, if it is recorded (replay/matchRecorder.ts). */
  private readonly recorder: MatchRecorder | null;
  /** The chain a host keeps the game's world by, piece after piece (`checkpoint("next")`); null: no world to chain. */
  private readonly chain: WorldChain | null;
  readonly spectate = (conn: Connection, req: SpectateRequest): number => (this.stir(), this.parts.spectators.open(conn, req, this.clock.now(), this.disposed)); // SocketRoom.spectate: core/src/spectate
  private tickIndex = 0;
  private immediateFlushQueued = false;
  private disposed = false;

  /**
   * @param makeFlusher How state reaches the seats, when not by the game's own sync mode: a
   * simulation whose clients sit behind relays hands its seats' acks, events and notices to the
   * relays instead (relay/simulationFlusher.ts).
   * @param amendStats What the room's `tk:stats` snapshot becomes before it is answered: a
   * simulation's takes its relays' counters in (relay/relayReport.ts).
   */
  constructor(init: RoomInit, makeFlusher?: (deps: FlushDeps) => Flusher, amendStats?: (own: RoomStatsSnapshot) => RoomStatsSnapshot) {
    this.kind = init.kind;
    this.roomId = init.roomId;
    this.game = init.game;
    this.chain = worldChainFor(init.game);
    // The room's timers (its tick, a flush's later slices, bots, seat expiry) are entries of its
    // object: on a host's meter they count as the object's own time.
    this.clock = init.busy ? init.busy.clock(init.clock ?? systemClock) : (init.clock ?? systemClock);
    this.busy = init.busy ?? null;
    this.amendStats = amendStats ?? null;
    this.hooks = init.hooks ?? {};
    this.recorder = init.recorder ?? null;
    this.options = resolveRoomOptions(init.options);
    this.epoch = this.clock.now();
    this.syncEveryTicks = flushEveryTicks(this.options.syncIntervalMs, this.options.tickMs);
    const { kind, roomId, game, clock, options, stats, epoch, recorder } = this;
    this.base = { kind, roomId, game, clock, options, stats, epoch, recorder };
    const parts = (this.parts = wireRoom(init, this.base, this.hooks, this.calls(), makeFlusher));
    this.writer = parts.writer;
    this.seats = parts.seats;
    this.scheduler = parts.scheduler;
    this.sockets = parts.sockets;
    this.seating = parts.seating;
    this.intake = parts.intake;
    this.flusher = parts.flusher;
    this.flushing = parts.flushing;
    this.gameMessages = parts.gameMessages;
    this.bots = parts.bots;
    this.cadence = parts.cadence;
    this.sleep = parts.sleep;
    this.game.init?.(parts.gameContext);
    this.recorder?.begin({ epoch: this.epoch, game: this.game, framesSent: makeFlusher === undefined, checkpoint: () => this.takeCheckpoint(true, null) });
    // Seated on the next turn, not here: the host is still wiring the room (its hooks may read
    // the room it is being handed).
    const initialBots = this.options.bots;
    if (initialBots > 0) this.clock.setTimer(() => this.setBots(initialBots), 0);
  }

  /** What the parts call back on the room: the same closures the room's paths always took. */
  private calls(): RoomCalls {
    const { game, clock } = this;
    const room = this;
    return {
      tick: (k, now) => room.runTick(k, now),
      flushed: (now) => room.flushFinished(now),
      get syncIntervalMs() {
        return room.syncIntervalMs;
      },
      markChanged: () => room.markChanged(),
      keepSoon: () => (room.stir(), room.cadence.keepSoon()),
      flushSoon: () => room.flushSoon(),
      stir: () => room.stir(),
      ackNow: (seat) => (game.ticking ? room.flusher.ackNow(seat, room.tickIndex, clock.now()) : room.flushSoon()),
      open: (conn) => room.open(conn),
      message: (connId, data) => room.message(connId, data),
      setRates: (rates) => room.setRates(rates),
    };
  }

  // ---- what a host reads and calls (HostedRoom, hostedRoom.ts) ---------------------------------

  get ticking(): boolean {
    return this.game.ticking;
  }

  get connectedCount(): number {
    return this.seating.connectedCount;
  }

  get seatCount(): number {
    return this.seats.size;
  }

  get botCount(): number {
    return this.bots.count;
  }

  get botsAvailable(): HostedRoom["botsAvailable"] {
    return { available: this.bots.available, inProduction: this.bots.allowedInProduction };
  }

  /** True while the tick loop is scheduled. */
  get loopRunning(): boolean {
    return this.scheduler.running;
  }

  /** The sync interval the room really flushes at: whole ticks, never below `syncIntervalMs`. */
  get syncIntervalMs(): number {
    return this.syncEveryTicks * this.options.tickMs;
  }

  admitSocket(identity?: string, address?: string): AdmissionRefusal | null {
    return admitToRoom(this.parts, this.stats, identity ?? address, this.sockets.size - this.seating.connectedCount, this.clock.now());
  }

  open(conn: Connection, identity?: string, address?: string, reservation?: string, claims?: PlayerClaims): number {
    return this.sockets.open(conn, identity, address, reservation, claims).connId;
  }

  adopt(conn: Connection, ticket: SeatTicket): number {
    this.recorder?.adopted(ticket, this.clock.now());
    const link = this.sockets.open(conn, ticket.identity, undefined);
    this.seating.adopt(link, ticket);
    return link.connId;
  }

  message(connId: number, data: Uint8Array | ArrayBuffer | string): void {
    const link = this.sockets.get(connId);
    if (!link || link.closed) return this.parts.spectators.message(connId, data, this.clock.now());
    const now = this.clock.now();
    const m = this.sockets.arrive(link, data, now);
    if (m === null) return;
    try {
      this.handle(link, m, now);
    } catch (e) {
      this.sockets.dispatchFailed(link, e);
    } finally {
      this.sockets.release();
    }
  }

  closed(connId: number, code: number, _reason = ""): void {
    if (code === MESSAGE_TOO_BIG) this.sockets.oversized(connId);
    else if (!this.parts.spectators.closed(connId)) this.sockets.closed(connId, code);
  }

  /**
   * A relay closed socket `connId` for its own reasons (abuse, a client that does not read):
   * as if the room had closed it, so an abuse kick frees the seat and cools the identity down.
   * @internal
   */
  closeRelayed(connId: number, code: number, reason: string): void {
    const link = this.sockets.get(connId);
    if (link) this.sockets.close(link, code, reason);
  }

  /**
   * Inputs a relay took from its client on socket `connId` (`entries[0, count)`): the relay did
   * the socket's size check, budget and decoding, so they go straight to the intake (seq
   * checks, the game's `decodeInput`, refusals), as the room's own sockets' inputs do.
   * @internal
   */
  relayedInputs(connId: number, entries: readonly InboundInput[], count: number): void {
    const link = this.sockets.get(connId);
    if (!link || link.closed) return;
    this.stir();
    this.intake.receive(link, entries, count, this.clock.now());
  }

  snapshot(): RoomStatsSnapshot {
    const own = buildStatsSnapshot(this.stats, statsContext(this.base, this.parts, this.syncIntervalMs, this.busy, this.sleep.stats()));
    return this.amendStats ? this.amendStats(own) : own;
  }

  status(): RoomStatus {
    return this.parts.matchSeats.status();
  }

  reserveSeats(req: SeatRequest): SeatAnswer {
    return this.parts.matchSeats.reserve(req);
  }

  releaseSeats(seats: readonly SeatHold[]): RoomStatus {
    return this.parts.matchSeats.release(seats);
  }

  seatTicket(connId: number): SeatTicket | null {
    const link = this.sockets.get(connId);
    const seat = link?.seat;
    if (!link || !seat) return null;
    return this.seats.ticketOf(seat, link);
  }

  checkpoint(world: CheckpointWorld = "whole"): RoomCheckpoint {
    // A ticking game's world goes in only while periodic checkpoints are on (checkpointMs).
    const withGame = !this.game.ticking || this.options.checkpointMs > 0;
    if (world === "base") this.chain?.rebase();
    return this.takeCheckpoint(withGame, world === "whole" ? null : this.chain);
  }

  /** The room's checkpoint, the game's state in it or not, its world whole (`chain` null) or as the chain's next piece. */
  private takeCheckpoint(withGame: boolean, chain: WorldChain | null): RoomCheckpoint {
    const { kind, roomId, seats, game } = this;
    return takeCheckpoint({ kind, roomId, seats, json: this.flusher.dialect === "json", game, withGame, listing: this.parts.listing.save(), chain });
  }

  get storeVersion(): number {
    return this.parts.store.version;
  }

  storeSnapshot(): GameStoreSnapshot | null {
    return this.parts.store.snapshot();
  }

  deferredIdle(): Promise<void> {
    return this.parts.deferred.idle();
  }

  restoreCheckpoint(value: unknown): boolean {
    this.stir();
    return restoreRoom(this.base, this.parts, value);
  }

  setBots(n: number): number {
    return this.bots.set(n);
  }

  // ---- the operator's actions (admin API; room/adminActions.ts) ---------------------------

  adminView(): RoomAdminView {
    return this.parts.admin.view();
  }

  kick(playerId: number, reason = ""): number | null {
    return this.parts.admin.kick(playerId, reason);
  }

  ban(target: BanTarget, durationMs: number, reason = ""): BanOutcome {
    return this.parts.admin.ban(target, durationMs, reason);
  }

  unban(identity: string): boolean {
    return this.parts.admin.unban(identity);
  }

  setLocked(locked: boolean): void {
    this.stir();
    this.parts.listing.setLocked(locked);
  }

  closeRoom(reason = ""): number {
    return this.parts.admin.close(reason);
  }

  notice(text: string): number {
    this.stir();
    return this.parts.admin.notice(text);
  }

  activeBans(): AdminBan[] {
    return this.parts.bans.list(this.clock.now());
  }

  restoreBans(bans: readonly AdminBan[]): void {
    const now = this.clock.now();
    for (const b of bans) if (b.until > now) this.parts.bans.add(b.identity, b.until, b.reason, now);
  }

  pendingReservations(): PendingReservation[] {
    return this.parts.matchSeats.pending();
  }

  holdReservations(pending: readonly PendingReservation[]): void {
    this.parts.matchSeats.hold(pending);
  }

  handOver(code: number, reason: string): void {
    if (this.disposed) return;
    this.disposed = true;
    // The match ends here: what the sockets' closes do next is not part of it.
    this.recorder?.ended("handed_over", this.clock.now());
    // Sockets first: each closes as a dropped socket's (its seat held, arming the seats' expiry),
    // then every timer stops, that expiry's too, so no seat is freed and no session ends here.
    this.sockets.closeAll(code, reason);
    this.stopTimers();
  }

  dispose(code: number = CloseCode.room_closed, reason = "room closed"): void {
    if (this.disposed) return;
    this.disposed = true;
    this.recorder?.ended("disposed", this.clock.now());
    this.stopTimers();
    this.sockets.closeAll(code, reason);
    try {
      this.game.onDispose?.({ reason: this.seats.size === 0 ? "empty" : "shutdown" });
    } catch (e) {
      RoomStats.bump(this.stats.errors, "internal");
      console.error(`[room ${this.kind}:${this.roomId}] onDispose error`, e);
    }
  }

  /** The loop, a flush's slices, seat expiry and reservations stop: nothing of the room runs later. */
  private stopTimers(): void {
    this.scheduler.stop();
    this.flushing.finish();
    this.seating.stop();
    this.parts.reservations.clear();
  }

  /** The game changes the room's rates (`ctx.setRates`; room/roomRates.ts): flushes follow the new cadence. */
  private setRates(asked: Partial<RoomRates>): RoomRates {
    this.stir();
    const rates = changeRates(this.options, asked, this.scheduler, this.seats, this.writer);
    this.syncEveryTicks = flushEveryTicks(rates.syncIntervalMs, rates.tickMs);
    return rates;
  }

  // ---- the one dispatch of a decoded message ----------------------------------------------

  /** Where every decoded message goes: what {@link message} got through the sockets' guards. */
  private handle(link: ClientLink, m: Inbound, now: number): void {
    switch (m.kind) {
      case "hello":
        return this.seating.hello(link, m, now);
      case "inputs":
        this.stir();
        return this.intake.receive(link, m.entries, m.count, now);
      case "ping":
      case "receipt":
      case "keepalive":
        return this.sockets.answerOwn(link, m, now);
      case "statsRequest":
        if (!link.seat) return this.sockets.protocolError(link, "not_joined", "stats before hello");
        if (this.sockets.statsAllowed(link, now) && this.sockets.mayReply(link, now)) sendStats(link, m.requestId, this.snapshot(), this.writer);
        return;
      case "gameMessage":
        if (!link.seat) return this.sockets.protocolError(link, "not_joined", "message before hello");
        this.stir();
        return this.gameMessages.receive(link, m, now);
      case "leave":
        // The close is counted before the seat is freed: in that order the close of the player
        // whose leave ends the session still lands in the session's record.
        return this.sockets.close(link, CloseCode.normal, "left");
    }
  }

  // ---- the loop: tick, then flush every syncEveryTicks ticks ----------------------------

  private runTick(k: number, now: number): void {
    this.recorder?.tick(k, now);
    // A flush still in slices (a busy runtime did not get to them) ends before the game moves.
    this.flushing.finish();
    this.sleep.tickBegins(k);
    this.tickIndex = k;
    this.stats.timerLate.record(this.scheduler.lastLateMs);
    const t0 = perfNow();
    this.bots.tick(now, this.seating.connectedCount);
    this.intake.drain();
    try {
      this.game.tick(now - this.epoch, this.options.tickMs);
    } catch (e) {
      RoomStats.bump(this.stats.errors, "internal");
      this.parts.recentErrors.record(now, "internal", `tick: ${e instanceof Error ? e.message : String(e)}`, 0);
      console.error(`[room ${this.kind}:${this.roomId}] tick error`, e);
    }
    this.stats.ticks++;
    this.stats.tick.record(perfNow() - t0);
    if (k % this.syncEveryTicks === 0) this.flush(now);
  }

  /** Begins a flush; its first slice runs now, the rest in tasks of their own (room/slicedFlush.ts). */
  private flush(now: number): void {
    this.flushing.run(this.seats.list, this.tickIndex, now);
  }

  /**
   * The flush's last client is done. A periodic checkpoint is due after it, so the host's
   * checkpoint (taken on its next turn, off this path) sees the world as the frames just sent
   * showed it, in the slack before the next tick.
   */
  private flushFinished(now: number): void {
    // At the flush's instant, not the clock's now: a replay ends it in the same instant it began.
    this.recorder?.flushed(now);
    if (!this.game.ticking) return;
    if (this.cadence.flushEnded(now, this.options.checkpointMs, this.syncIntervalMs, this.options.keepSoonMs) && this.sleep.keepDue()) this.hooks.onCheckpointDue?.(false);
    this.sleep.flushEnded(this.tickIndex);
  }

  /** Something from outside the loop reached the room: a sleeping loop wakes, its tick index where the grid is now. */
  private stir(): void {
    if (this.sleep.stir()) this.tickIndex = this.scheduler.tickIndex;
  }

  /** Flushes on a microtask: rooms without a tick loop flush when something changed. */
  private flushSoon(): void {
    if (this.immediateFlushQueued) return;
    this.immediateFlushQueued = true;
    queueMicrotask(() => {
      this.immediateFlushQueued = false;
      this.flush(this.clock.now());
    });
  }

  /** The game's state changed: JSON rooms send views on their next flush, turn-based ones at once. */
  private markChanged(): void {
    this.stir();
    this.flusher.stateChanged();
    if (!this.game.ticking) {
      this.flushSoon();
      this.hooks.onCheckpointDue?.(true);
    }
  }
}
