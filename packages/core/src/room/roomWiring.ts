/**
 * A room's parts built from its init and wired to each other (`wireRoom`): the sockets, seating,
 * intake, flusher and the rest that `Room` (room.ts) names in its constructor. What a part asks of
 * the room itself (its loop, its flush, its cadence) goes through {@link RoomCalls}.
 */
import { RoomSpectators } from "../spectate/roomSpectators";
import { FrameWriter, type RoomRates } from "@tikron/protocol";
import type { Clock } from "../clock";
import type { Game, GameContext } from "../game";
import { RoomStore } from "../gameStore";
import type { Connection, RoomHooks } from "../host";
import type { RoomInit } from "../roomInit";
import { InputQueue } from "../inputQueue";
import type { MatchRecorder } from "../replay/matchRecorder";
import type { RoomOptions } from "../roomOptions";
import { RoomStats } from "../roomStats";
import { TickScheduler } from "../tickScheduler";
import { TokenBucket } from "../tokenBucket";
import { Admission } from "./admission";
import { AdminActions } from "./adminActions";
import { RoomBans } from "./bans";
import { RoomBots } from "./bots";
import type { Seat } from "./clientLink";
import { DeferredWork } from "./deferredWork";
import { CheckpointCadence } from "./checkpointCadence";
import { RoomSleep } from "./roomSleep";
import { createFlusher, type FlushDeps, type Flusher } from "./flushers";
import { GameMessageRouter } from "./gameMessageRouter";
import { GameOutput } from "./gameOutput";
import { InputIntake } from "./inputIntake";
import { MatchSeats } from "./matchSeats";
import { RecentErrors } from "./recentErrors";
import { RoomListing } from "./roomListing";
import { RoomSockets, type RoomParts } from "./roomSockets";
import { SeatRegistry } from "./seatRegistry";
import { SeatReservations } from "./seatReservations";
import { Seating } from "./seating";
import { SessionTracker } from "./sessionTracker";
import { SlicedFlush } from "./slicedFlush";

/** What the parts call back on the room: its loop, flush and cadence (room.ts keeps them). */
export interface RoomCalls {
  /** One tick of the loop (the scheduler's callback). */
  tick(k: number, now: number): void;
  /** A flush's last slice is done. */
  flushed(now: number): void;
  /** The sync interval the room flushes at now. */
  readonly syncIntervalMs: number;
  /** The game's state changed. */
  markChanged(): void;
  /** The game marked a change a player would lose in a restart (`GameContext.keepSoon`). */
  keepSoon(): void;
  /** Flush on a microtask (rooms without a tick loop). */
  flushSoon(): void;
  /** Something from outside the loop happened: a sleeping loop wakes (room/roomSleep.ts). */
  stir(): void;
  /** A seat's input was applied at once: acknowledge it now. */
  ackNow(seat: Seat): void;
  /** A bot's socket opens and speaks like a player's. */
  open(conn: Connection): number;
  message(connId: number, data: Uint8Array | ArrayBuffer | string): void;
  /** The game's `ctx.setRates`. */
  setRates(rates: Partial<RoomRates>): RoomRates;
}

/** What a room is made of, built once by {@link wireRoom}; `Room` keeps each as a field of its own. */
export interface RoomWiring {
  readonly writer: FrameWriter;
  readonly seats: SeatRegistry;
  readonly scheduler: TickScheduler;
  readonly admission: Admission;
  readonly listing: RoomListing;
  readonly reservations: SeatReservations;
  readonly sockets: RoomSockets;
  readonly flusher: Flusher;
  readonly flushing: SlicedFlush;
  readonly seating: Seating;
  readonly intake: InputIntake;
  readonly gameMessages: GameMessageRouter;
  readonly bots: RoomBots;
  readonly store: RoomStore;
  readonly deferred: DeferredWork;
  readonly bans: RoomBans;
  readonly recentErrors: RecentErrors;
  readonly admin: AdminActions;
  readonly matchSeats: MatchSeats;
  readonly gameContext: GameContext;
  readonly spectators: RoomSpectators;
  /** When the periodic checkpoint is due. */
  readonly cadence: CheckpointCadence;
  /** The loop's sleep while the game is still. */
  readonly sleep: RoomSleep;
}

/** The room's own values every part starts from. */
export interface RoomBase {
  readonly kind: string;
  readonly roomId: string;
  readonly game: Game;
  readonly clock: Clock;
  readonly options: RoomOptions;
  readonly stats: RoomStats;
  readonly epoch: number;
  readonly recorder: MatchRecorder | null;
}

/**
 * Builds a room's parts and wires them to each other, to the host's `hooks` and to `calls`.
 * @param makeFlusher How state reaches the seats when not by the game's own sync mode (see `Room`).
 */
export function wireRoom(init: RoomInit, base: RoomBase, hooks: RoomHooks, calls: RoomCalls, makeFlusher?: (deps: FlushDeps) => Flusher): RoomWiring {
  const { kind, roomId, game, clock, options, stats, epoch, recorder } = base;
  const parts: RoomParts = base;
  const writer = new FrameWriter(4096);
  const seats = new SeatRegistry();
  const bans = new RoomBans();
  const recentErrors = new RecentErrors();
  const queue = new InputQueue<unknown>();
  const scheduler = new TickScheduler(clock, options.tickMs, calls.tick);
  const admission = new Admission(options);
  const sessions = new SessionTracker(kind, roomId, clock, stats, hooks);
  const listing = new RoomListing(init.listing, Date.now(), () => hooks.onStatusChange?.());
  const reservations = new SeatReservations(clock, () => listing.changed());
  // Seating is made below; a socket is lost only once messages flow, long after.
  let seating: Seating | null = null;
  // Spectators (core/src/spectate): no seats; fed a feed of the game's world from its first one.
  const spectators = new RoomSpectators({ kind, world: game.sync.mode === "binary" ? game.sync.world : undefined, options, stats, epoch, clock, syncIntervalMs: () => calls.syncIntervalMs });
  const sockets = new RoomSockets({
    ...parts,
    writer,
    sessions,
    admission,
    recentErrors,
    seatLost: (seat, free) => (free ? seating!.free(seat) : seating!.hold(seat)),
    closedAll: (code, reason) => spectators.closeAll(code, reason),
  });
  const flushDeps: FlushDeps = { options, stats, writer, epoch, gate: recorder ? recorder.gate(sockets) : sockets, recorder };
  const flusher = makeFlusher ? makeFlusher(flushDeps) : createFlusher(game.sync, flushDeps);
  const flushing = new SlicedFlush({
    flusher,
    stats,
    clock,
    sliceClients: () => options.flushSliceClients,
    begun: (tick, now) => spectators.flushed(tick, Math.max(0, Math.round(now - epoch)), now),
    sliceBegins: () => recorder?.slice(clock.now()),
    deferred: (now) => recorder?.deferred(now),
    finished: calls.flushed,
  });
  seating = new Seating({
    ...parts,
    queue,
    scheduler,
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
    flusher,
    writer,
    get syncIntervalMs() {
      return calls.syncIntervalMs;
    },
    markChanged: calls.markChanged,
    flushSoon: calls.flushSoon,
    stir: calls.stir,
  });
  const intake = new InputIntake({ ...parts, queue, seats, sockets, ackNow: calls.ackNow });
  const gameMessages = new GameMessageRouter({ ...parts, writer, sockets });
  const output = new GameOutput({
    seats,
    dialect: flusher.dialect,
    events: flusher.events,
    noticeQueued: () => {
      if (!game.ticking) calls.flushSoon();
    },
  });
  const bots = new RoomBots(init.bots, { clock, epoch, dialect: flusher.dialect, open: calls.open, message: calls.message });
  // The game's store and deferred work; kept by the host (storeSnapshot, the onDeferred hook).
  const store = new RoomStore(() => hooks.onCheckpointDue?.(true));
  if (init.store !== undefined && !store.load(init.store)) {
    RoomStats.bump(stats.errors, "store_refused");
    console.error(`[room ${kind}:${roomId}] the kept game store is not one; starting with an empty store`);
  }
  const deferred = new DeferredWork(`${kind}:${roomId}`, stats.errors, hooks.onDeferred?.bind(hooks));
  const admin = new AdminActions({ clock, seats, sockets, seating, listing, reservations, bots, bans, recentErrors, writer });
  const matchSeats = new MatchSeats({ roomId, game, clock, options, seats, seating, listing, reservations, bans, bots });
  // What the game does from outside a tick (a deferred result, a message) wakes a sleeping loop.
  const { stir } = calls;
  const gameContext: GameContext = {
    now: () => clock.now() - epoch,
    epoch,
    emit: (event, to) => {
      stir();
      output.emit(event, to);
    },
    markChanged: calls.markChanged,
    keepSoon: calls.keepSoon,
    count: (counter, by = 1) => RoomStats.bump(stats.game, counter, by),
    get metadata() {
      return listing.metadata;
    },
    setMetadata: (patch) => listing.setMetadata(patch),
    lock: () => listing.setLocked(true),
    unlock: () => listing.setLocked(false),
    setPrivate: (value) => listing.setPrivate(value),
    send: (playerId, type, data) => {
      stir();
      output.notice(type, data, [playerId]);
    },
    broadcast: (type, data) => {
      stir();
      output.notice(type, data, undefined);
    },
    roomId,
    store,
    env: init.env,
    defer: (work, label) => deferred.run(work, label),
    setRates: calls.setRates,
  };
  const cadence = new CheckpointCadence();
  const busy = (): boolean => bots.count > 0 || spectators.active || deferred.pending > 0;
  const sleep = new RoomSleep({ game, clock, options, scheduler, flusher, cadence, busy });
  return {
    cadence,
    sleep,
    writer,
    seats,
    scheduler,
    admission,
    listing,
    reservations,
    sockets,
    flusher,
    flushing,
    seating,
    intake,
    gameMessages,
    bots,
    store,
    deferred,
    bans,
    recentErrors,
    admin,
    matchSeats,
    gameContext,
    spectators,
  };
}
