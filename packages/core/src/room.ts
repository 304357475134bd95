/**
 * The room a host drives (`Room`, seen through host.ts's `HostedRoom`): its parts wired
 * together (room/), its tick loop and flush cadence, and the one dispatch of a decoded message.
 */
import { CloseCode, FrameWriter, flushEveryTicks, ratesProblem, type AdminBan, type RoomRates, type SpectateRequest } from "@tikron/protocol";
import type { BusyMeter } from "./busyMeter";
import { systemClock, type Clock } from "./clock";
import type { Game, GameContext } from "./game";
import { RoomStore, type GameStoreSnapshot } from "./gameStore";
import type { AdmissionRefusal, BanOutcome, BanTarget, CheckpointWorld, Connection, HostedRoom, RoomAdminView, RoomCheckpoint, RoomHooks, RoomInit, SeatTicket } from "./host";
import type { PlayerClaims } from "./player";
import { InputQueue } from "./inputQueue";
import { Admission } from "./room/admission";
import { AdminActions } from "./room/adminActions";
import { RoomBans } from "./room/bans";
import { RecentErrors } from "./room/recentErrors";
import { RoomBots } from "./room/bots";
import { checkpointGameSeats, checkpointSeats, takeCheckpoint, worldChainFor } from "./room/checkpoint";
import type { WorldChain } from "./sync/worldCheckpoint";
import type { ClientLink } from "./room/clientLink";
import { DeferredWork } from "./room/deferredWork";
import { createFlusher, type FlushDeps, type Flusher } from "./room/flushers";
import { GameMessageRouter } from "./room/gameMessageRouter";
import { GameOutput } from "./room/gameOutput";
import type { Inbound, InboundInput } from "./room/inbound";
import { InputIntake } from "./room/inputIntake";
import { sendCadence, sendStats } from "./room/replies";
import { MESSAGE_TOO_BIG, RoomSockets, type RoomParts } from "./room/roomSockets";
import { SeatRegistry } from "./room/seatRegistry";
import { Seating } from "./room/seating";
import { SessionTracker } from "./room/sessionTracker";
import { resolveRoomOptions, type RoomOptions } from "./roomOptions";
import { RoomStats, buildStatsSnapshot, type RoomStatsSnapshot } from "./roomStats";
import type { RoomStatus } from "./match/roomStatus";
import type { PendingReservation, SeatAnswer, SeatHold, SeatRequest } from "./match/roomPort";
import { RoomListing } from "./room/roomListing";
import { SeatReservations } from "./room/seatReservations";
import { TickScheduler } from "./tickScheduler";
import { perfNow } from "./durationStats";
import { SlicedFlush } from "./room/slicedFlush";
import { TokenBucket } from "./tokenBucket";
import type { MatchRecorder } from "./replay/matchRecorder";
import { RoomSpectators } from "./spectate/roomSpectators";
import { SpectatorHub } from "./spectate/spectatorHub";

/** How often a ticking room's status is re-reported while it has players (a sleeping room's is not). */
const STATUS_REFRESH_MS = 60_000;

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
  private readonly gameContext: GameContext;
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
  /** Ticks between periodic checkpoints (`checkpointMs` rounded up to whole flushes); 0: none. */
  private checkpointEveryTicks: number;
  private readonly writer = new FrameWriter(4096);
  private readonly seats = new SeatRegistry();
  private readonly admission: Admission;
  private readonly sockets: RoomSockets;
  private readonly seating: Seating;
  private readonly intake: InputIntake;
  private readonly flusher: Flusher;
  /** The flush in progress, sent in slices (room/slicedFlush.ts). */
  private readonly flushing: SlicedFlush;
  /** Game messages to the game's `onMessage` (see room/gameMessageRouter.ts). */
  private readonly gameMessages: GameMessageRouter;
  /** The room's bot players (see room/bots.ts). */
  private readonly bots: RoomBots;
  /** Metadata, lock and visibility: what a matchmaker lists the room by (room/roomListing.ts). */
  private readonly listing: RoomListing;
  /** Seats held for players a matchmaker sent (room/seatReservations.ts). */
  private readonly reservations: SeatReservations;
  /** The game's durable store, `ctx.store` (gameStore.ts). */
  private readonly store: RoomStore;
  /** The game's deferred work, `ctx.defer` (room/deferredWork.ts). */
  private readonly deferred: DeferredWork;
  /** Identities an operator banned (room/bans.ts). */
  private readonly bans = new RoomBans();
  /** The last errors sent to clients or hit by the room, for its operator (room/recentErrors.ts). */
  private readonly recentErrors = new RecentErrors();
  /** The operator's actions (room/adminActions.ts). */
  private readonly admin: AdminActions;
  /** The recorder of the room's match, if it is recorded (replay/matchRecorder.ts). */
  private readonly recorder: MatchRecorder | null;
  /** The chain a host keeps the game's world by, piece after piece (`checkpoint("next")`); null: no world to chain. */
  private readonly chain: WorldChain | null;
  /** Spectators watching from this object (core/src/spectate): no seats, fed by a feed of the world. */
  private readonly spectators: RoomSpectators;
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
    // Whole flushes: a periodic checkpoint always follows a flush (see runTick).
    this.checkpointEveryTicks = this.checkpointTicks();
    this.scheduler = new TickScheduler(this.clock, this.options.tickMs, (k, now) => this.runTick(k, now));
    const { kind, roomId, game, clock, options, stats, hooks, epoch, writer, seats, bans, recentErrors, recorder } = this;
    const room = this;
    const queue = new InputQueue<unknown>();
    const admission = (this.admission = new Admission(options));
    const sessions = new SessionTracker(kind, roomId, clock, stats, hooks);
    const parts: RoomParts = { kind, roomId, game, clock, options, stats, epoch, recorder };
    const listing = (this.listing = new RoomListing(init.listing, Date.now(), () => hooks.onStatusChange?.()));
    const reservations = (this.reservations = new SeatReservations(clock, () => listing.changed()));
    this.sockets = new RoomSockets({
      ...parts,
      writer,
      sessions,
      admission,
      recentErrors,
      seatLost: (seat, free) => (free ? room.seating.free(seat) : room.seating.hold(seat)),
    });
    const sockets = this.sockets;
    const flushDeps: FlushDeps = { options, stats, writer, epoch, gate: recorder ? recorder.gate(sockets) : sockets, recorder };
    this.flusher = makeFlusher ? makeFlusher(flushDeps) : createFlusher(game.sync, flushDeps);
    this.flushing = new SlicedFlush({
      flusher: this.flusher,
      stats,
      clock,
      sliceClients: () => options.flushSliceClients,
      sliceBegins: () => recorder?.slice(clock.now()),
      deferred: (now) => recorder?.deferred(now),
      finished: (now) => room.flushFinished(now),
    });
    this.seating = new Seating({
      ...parts,
      queue,
      scheduler: this.scheduler,
      seats,
      sessions,
      hooks,
      admission,
      bans,
      joinBucket: new TokenBucket(options.joinRatePerSec, options.joinBurst, epoch),
      reservations,
      listing,
      joinOptions: init.joinOptions,
      sockets,
      flusher: this.flusher,
      writer,
      get syncIntervalMs() {
        return room.syncIntervalMs;
      },
      markChanged: () => room.markChanged(),
      flushSoon: () => room.flushSoon(),
    });
    this.intake = new InputIntake({
      ...parts,
      queue,
      seats,
      sockets,
      ackNow: (seat) => (game.ticking ? room.flusher.ackNow(seat, room.tickIndex, clock.now()) : room.flushSoon()),
    });
    this.gameMessages = new GameMessageRouter({ ...parts, writer, sockets });
    this.spectators = new RoomSpectators({
      kind,
      world: game.sync.mode === "binary" ? game.sync.world : undefined,
      options,
      stats,
      epoch,
      syncIntervalMs: () => room.syncIntervalMs,
    });
    const output = new GameOutput({
      seats,
      dialect: this.flusher.dialect,
      events: this.flusher.events,
      noticeQueued: () => {
        if (!game.ticking) room.flushSoon();
      },
    });
    this.bots = new RoomBots(init.bots, {
      clock,
      epoch,
      dialect: this.flusher.dialect,
      open: (conn) => room.open(conn),
      message: (connId, data) => room.message(connId, data),
    });
    // The game's store and deferred work; kept by the host (storeSnapshot, the onDeferred hook).
    const store = (this.store = new RoomStore(() => hooks.onCheckpointDue?.(true)));
    if (init.store !== undefined && !store.load(init.store)) {
      RoomStats.bump(stats.errors, "store_refused");
      console.error(`[room ${kind}:${roomId}] the kept game store is not one; starting with an empty store`);
    }
    const deferred = (this.deferred = new DeferredWork(`${kind}:${roomId}`, stats.errors, hooks.onDeferred?.bind(hooks)));
    this.admin = new AdminActions({ clock, seats, sockets, seating: this.seating, listing, reservations, bots: this.bots, bans, recentErrors, writer });
    this.gameContext = {
      now: () => clock.now() - epoch,
      epoch,
      emit: (event, to) => output.emit(event, to),
      markChanged: () => room.markChanged(),
      count: (counter, by = 1) => RoomStats.bump(stats.game, counter, by),
      get metadata() {
        return listing.metadata;
      },
      setMetadata: (patch) => listing.setMetadata(patch),
      lock: () => listing.setLocked(true),
      unlock: () => listing.setLocked(false),
      setPrivate: (value) => listing.setPrivate(value),
      send: (playerId, type, data) => output.notice(type, data, [playerId]),
      broadcast: (type, data) => output.notice(type, data, undefined),
      roomId,
      store,
      env: init.env,
      defer: (work, label) => deferred.run(work, label),
      setRates: (rates) => room.setRates(rates),
    };
    game.init?.(this.gameContext);
    recorder?.begin({ epoch, game, framesSent: makeFlusher === undefined, checkpoint: () => room.takeCheckpoint(true, null) });
    // Seated on the next turn, not here: the host is still wiring the room (its hooks may read
    // the room it is being handed).
    const initialBots = options.bots;
    if (initialBots > 0) clock.setTimer(() => this.setBots(initialBots), 0);
  }

  // ---- what a host reads and calls (HostedRoom, host.ts) ---------------------------------

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
    const key = identity ?? address;
    const now = this.clock.now();
    const ban = this.bans.check(key, now);
    if (ban) {
      RoomStats.bump(this.stats.refused, "banned");
      const reason = ban.reason === "" ? "banned from this room" : `banned from this room: ${ban.reason}`;
      return { status: 403, counter: "banned", closeCode: CloseCode.banned, reason, retryAfterMs: ban.until - now };
    }
    const pending = this.sockets.size - this.seating.connectedCount;
    const refusal = this.admission.check(key, pending, now);
    if (refusal) RoomStats.bump(this.stats.refused, refusal.counter);
    return refusal;
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

  /**
   * A spectator socket opened (a join URL with `spectate=1`, protocol `readSpectate`): no seat,
   * apart from the cap. Returns its id for {@link message} and {@link closed}, or -1 when it was
   * refused and closed (`spectators_full`, or `bad_request` for a game without a sync world).
   */
  spectate(conn: Connection, req: SpectateRequest): number {
    if (this.disposed) {
      conn.close(CloseCode.room_closed, "room closed");
      return -1;
    }
    return this.spectators.open(conn, req, this.clock.now(), (c) => c.close(CloseCode.bad_request, `${this.kind} rooms cannot be watched`));
  }

  message(connId: number, data: Uint8Array | ArrayBuffer | string): void {
    if (SpectatorHub.owns(connId)) return this.spectators.message(connId, data, this.clock.now());
    const link = this.sockets.get(connId);
    if (!link || link.closed) return;
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
    if (SpectatorHub.owns(connId)) return this.spectators.closed(connId);
    if (code === MESSAGE_TOO_BIG) this.sockets.oversized(connId);
    else this.sockets.closed(connId, code);
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
    if (link && !link.closed) this.intake.receive(link, entries, count, this.clock.now());
  }

  snapshot(): RoomStatsSnapshot {
    const own = buildStatsSnapshot(this.stats, {
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
      admissions: { ...this.seating.admissions.counts, waiting: this.seating.admissions.size },
      listing: { locked: this.listing.locked, private: this.listing.isPrivate, metadata: this.listing.metadata },
      deferred: { ...this.deferred.counts, pending: this.deferred.pending },
      store: { keys: this.store.size, chars: this.store.chars, version: this.store.version },
      busy: this.busy?.reading(),
    });
    own.spectators = this.spectators.stats();
    return this.amendStats ? this.amendStats(own) : own;
  }

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

  reserveSeats(req: SeatRequest): SeatAnswer {
    const refuse = (code: "room_full" | "locked" | "not_found", reason: string): SeatAnswer => {
      this.reservations.counts.refused++;
      // The status goes with every refusal (a private room's too): the room exists, and its
      // matchmaker must keep it, whatever the player is told.
      return { ok: false, code, reason, status: this.status() };
    };
    if (this.listing.isPrivate && !req.byId) return refuse("not_found", "no such public room");
    if (this.listing.locked) return refuse("locked", "the room is locked");
    // A banned player is sent elsewhere: to the matchmaker this room is closed to it.
    const now = this.clock.now();
    if (req.seats.some((s) => this.bans.check(s.identity, now))) return refuse("locked", "banned from this room");
    const wanted = req.seats.filter((s) => !this.seats.hasIdentity(s.identity));
    // Joins the game is still deciding on count too: a reservation never over-grants the cap.
    if (this.seating.claimed + wanted.length > this.options.cap) {
      return refuse("room_full", `room is full (${this.options.cap} seats)`);
    }
    // An identity already seated here needs no new seat: its join resumes its own.
    for (const s of wanted) this.reservations.add(s.reservationId, s.identity, req.ttlMs, s.claims);
    return { ok: true, status: this.status() };
  }

  releaseSeats(seats: readonly SeatHold[]): RoomStatus {
    for (const s of seats) this.reservations.release(s.reservationId, s.identity);
    return this.status();
  }

  seatTicket(connId: number): SeatTicket | null {
    const link = this.sockets.get(connId);
    const seat = link?.seat;
    if (!link || !seat) return null;
    return this.seats.ticketOf(seat, link);
  }

  checkpoint(world: CheckpointWorld = "whole"): RoomCheckpoint {
    // A ticking game's world goes in only while periodic checkpoints are on (checkpointMs).
    const withGame = !this.game.ticking || this.checkpointEveryTicks > 0;
    if (world === "base") this.chain?.rebase();
    return this.takeCheckpoint(withGame, world === "whole" ? null : this.chain);
  }

  /** The room's checkpoint, the game's state in it or not, its world whole (`chain` null) or as the chain's next piece. */
  private takeCheckpoint(withGame: boolean, chain: WorldChain | null): RoomCheckpoint {
    const { kind, roomId, seats, game } = this;
    return takeCheckpoint({ kind, roomId, seats, json: this.flusher.dialect === "json", game, withGame, listing: this.listing.save(), chain });
  }

  get storeVersion(): number {
    return this.store.version;
  }

  storeSnapshot(): GameStoreSnapshot | null {
    return this.store.snapshot();
  }

  deferredIdle(): Promise<void> {
    return this.deferred.idle();
  }

  restoreCheckpoint(value: unknown): boolean {
    if (this.seats.size > 0) return false;
    const { seats: saved, refused } = checkpointSeats(value, this.kind, this.roomId);
    if (refused > 0) {
      // A stored seat that does not read is corrupt or foreign: refused and counted, never thrown.
      RoomStats.bump(this.stats.errors, "seat_record_refused", refused);
      console.error(`[room ${this.kind}:${this.roomId}] ${refused} seat record(s) refused${saved ? "" : "; the checkpoint is not restored"}`);
    }
    if (!saved || saved.length === 0) return false;
    this.recorder?.restored(value as RoomCheckpoint, this.clock.now());
    // Listed as it was: a private room stays private, a locked match locked, its metadata kept.
    const cp = value as RoomCheckpoint;
    this.listing.restore(cp.listing);
    this.seating.restore(saved, cp.game, checkpointGameSeats(cp, saved));
    return true;
  }

  setBots(n: number): number {
    return this.bots.set(n);
  }

  // ---- the operator's actions (admin API; room/adminActions.ts) ---------------------------

  adminView(): RoomAdminView {
    return this.admin.view();
  }

  kick(playerId: number, reason = ""): number | null {
    return this.admin.kick(playerId, reason);
  }

  ban(target: BanTarget, durationMs: number, reason = ""): BanOutcome {
    return this.admin.ban(target, durationMs, reason);
  }

  unban(identity: string): boolean {
    return this.admin.unban(identity);
  }

  setLocked(locked: boolean): void {
    this.listing.setLocked(locked);
  }

  closeRoom(reason = ""): number {
    return this.admin.close(reason);
  }

  notice(text: string): number {
    return this.admin.notice(text);
  }

  activeBans(): AdminBan[] {
    return this.bans.list(this.clock.now());
  }

  restoreBans(bans: readonly AdminBan[]): void {
    const now = this.clock.now();
    for (const b of bans) if (b.until > now) this.bans.add(b.identity, b.until, b.reason, now);
  }

  pendingReservations(): PendingReservation[] {
    return this.reservations.list();
  }

  holdReservations(pending: readonly PendingReservation[]): void {
    for (const r of pending) if (r.ttlMs > 0) this.reservations.add(r.id, r.identity, r.ttlMs, r.claims);
  }

  handOver(code: number, reason: string): void {
    if (this.disposed) return;
    this.disposed = true;
    // The match ends here: what the sockets' closes do next is not part of it.
    this.recorder?.ended("handed_over", this.clock.now());
    // Sockets first: each closes as a dropped socket's (its seat held, arming the seats' expiry),
    // then every timer stops, that expiry's too, so no seat is freed and no session ends here.
    this.sockets.closeAll(code, reason);
    this.spectators.closeAll(code, reason);
    this.scheduler.stop();
    this.flushing.finish();
    this.seating.stop();
    this.reservations.clear();
  }

  dispose(code: number = CloseCode.room_closed, reason = "room closed"): void {
    if (this.disposed) return;
    this.disposed = true;
    this.recorder?.ended("disposed", this.clock.now());
    this.scheduler.stop();
    this.flushing.finish();
    this.seating.stop();
    this.reservations.clear();
    this.sockets.closeAll(code, reason);
    this.spectators.closeAll(code, reason);
    try {
      this.game.onDispose?.({ reason: this.seats.size === 0 ? "empty" : "shutdown" });
    } catch (e) {
      RoomStats.bump(this.stats.errors, "internal");
      console.error(`[room ${this.kind}:${this.roomId}] onDispose error`, e);
    }
  }

  /**
   * The game changes the room's rates (`ctx.setRates`): the loop moves onto the new tick grid,
   * flushes follow the new cadence, and every connected client hears of it (CADENCE).
   */
  private setRates(asked: Partial<RoomRates>): RoomRates {
    const { options } = this;
    const next = { tickMs: asked.tickMs ?? options.tickMs, syncIntervalMs: asked.syncIntervalMs ?? options.syncIntervalMs };
    const problem = ratesProblem(next);
    if (problem) throw new RangeError(problem);
    const tickChanged = next.tickMs !== options.tickMs;
    const before = this.syncIntervalMs;
    options.tickMs = next.tickMs;
    options.syncIntervalMs = next.syncIntervalMs;
    this.syncEveryTicks = flushEveryTicks(next.syncIntervalMs, next.tickMs);
    this.checkpointEveryTicks = this.checkpointTicks();
    if (tickChanged) this.scheduler.setTickMs(next.tickMs);
    const rates = { tickMs: options.tickMs, syncIntervalMs: this.syncIntervalMs };
    if (tickChanged || rates.syncIntervalMs !== before) {
      for (const seat of this.seats.list) {
        if (seat.link && seat.link.connection.bot !== true) sendCadence(seat.link, rates.tickMs, rates.syncIntervalMs, this.writer);
      }
    }
    return rates;
  }

  /** `checkpointMs` in ticks, rounded up to whole flushes (a checkpoint follows a flush); 0: none. */
  private checkpointTicks(): number {
    const flushMs = this.syncEveryTicks * this.options.tickMs;
    return this.options.checkpointMs > 0 ? Math.max(1, Math.ceil(this.options.checkpointMs / flushMs)) * this.syncEveryTicks : 0;
  }

  // ---- the one dispatch of a decoded message ----------------------------------------------

  /** Where every decoded message goes: what {@link message} got through the sockets' guards. */
  private handle(link: ClientLink, m: Inbound, now: number): void {
    switch (m.kind) {
      case "hello":
        return this.seating.hello(link, m, now);
      case "inputs":
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
    this.tickIndex = k;
    this.stats.timerLate.record(this.scheduler.lastLateMs);
    const t0 = perfNow();
    this.bots.tick(now, this.seating.connectedCount);
    this.intake.drain();
    try {
      this.game.tick(now - this.epoch, this.options.tickMs);
    } catch (e) {
      RoomStats.bump(this.stats.errors, "internal");
      this.recentErrors.record(now, "internal", `tick: ${e instanceof Error ? e.message : String(e)}`, 0);
      console.error(`[room ${this.kind}:${this.roomId}] tick error`, e);
    }
    this.stats.ticks++;
    this.stats.tick.record(perfNow() - t0);
    if (k % this.syncEveryTicks === 0) this.flush(now);
  }

  /** Begins a flush; its first slice runs now, the rest in tasks of their own (room/slicedFlush.ts). */
  private flush(now: number): void {
    this.flushing.run(this.seats.list, this.tickIndex, now);
    this.spectators.flushed(this.tickIndex, Math.max(0, Math.round(now - this.epoch)), now);
  }

  /**
   * The flush's last client is done. A periodic checkpoint is due after it, so the host's
   * checkpoint (taken on its next turn, off this path) sees the world as the frames just sent
   * showed it, in the slack before the next tick.
   */
  private flushFinished(now: number): void {
    // At the flush's instant, not the clock's now: a replay ends it in the same instant it began.
    this.recorder?.flushed(now);
    const every = this.checkpointEveryTicks;
    if (every > 0 && this.game.ticking && this.tickIndex % every === 0) this.hooks.onCheckpointDue?.(false);
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
    this.flusher.stateChanged();
    if (!this.game.ticking) {
      this.flushSoon();
      this.hooks.onCheckpointDue?.(true);
    }
  }
}
