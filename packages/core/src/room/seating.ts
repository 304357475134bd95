import type { Clock } from "../clock";
import type { Game } from "../game";
import type { InputQueue } from "../inputQueue";
import type { RoomOptions } from "../roomOptions";
import { RoomStats } from "../roomStats";
import type { ClientLink, Seat } from "../seat";
import type { TickScheduler } from "../tickScheduler";
import { SeatExpiry } from "./seatExpiry";
import type { SeatRegistry } from "./seatRegistry";
import type { RoomHooks, SessionTracker } from "./sessionTracker";

/** What seating needs from the room it serves. */
export interface SeatingDeps {
  kind: string;
  roomId: string;
  game: Game;
  clock: Clock;
  options: RoomOptions;
  stats: RoomStats;
  queue: InputQueue<unknown>;
  scheduler: TickScheduler;
  seats: SeatRegistry;
  sessions: SessionTracker;
  hooks: RoomHooks;
  /** A JSON room's seats changed: its next flush sends every view (no flush is queued). */
  jsonSeatsChanged(): void;
  /** A JSON room lost a player: the state changed (a turn-based room flushes at once). */
  markChanged(): void;
  /** Seats changed: what the room reports to its matchmaker changed. */
  statusChanged(): void;
}

/**
 * A seat's life after the hello decided who sits where: a socket attaches (fresh delta
 * baseline, the loop starts), a dropped socket's seat is held for the reconnection window, and
 * a seat is freed for good (game `leave`, queued inputs counted, session maybe ended). It also
 * keeps the connected count, which starts and stops the tick loop.
 */
export class Seating {
  private readonly expiry: SeatExpiry;
  /** Seats with a live socket. */
  connectedCount = 0;

  constructor(private readonly d: SeatingDeps) {
    this.expiry = new SeatExpiry(d.clock, () => d.seats.list, (seat) => this.free(seat));
  }

  /** Seats `link` on `seat`: a fresh baseline, the loop running, the adapter told. */
  attach(seat: Seat, link: ClientLink): void {
    const { game, scheduler } = this.d;
    seat.link = link;
    seat.heldUntil = Infinity;
    seat.lastAckedSeq = seat.lastProcessedSeq;
    seat.events.length = 0;
    link.seat = seat;
    if (game.sync.mode === "binary") {
      const enc = game.sync.encoder;
      if (seat.syncState !== null) enc.releaseClient(seat.syncState);
      seat.syncState = enc.createClient(seat.playerId);
    } else {
      this.d.jsonSeatsChanged();
    }
    this.connectedCount++;
    this.d.sessions.connected(this.connectedCount);
    if (game.ticking && !scheduler.running) scheduler.start();
    this.d.hooks.onSeated?.(link.connId, this.d.seats.ticketOf(seat, link));
    this.d.statusChanged();
  }

  /** The seat's socket dropped: keep seat and entity for the reconnection window. */
  hold(seat: Seat): void {
    const { game, clock } = this.d;
    seat.link = null;
    this.connectedCount--;
    if (game.sync.mode === "binary" && seat.syncState !== null) {
      game.sync.encoder.releaseClient(seat.syncState);
      seat.syncState = null;
    }
    seat.events.length = 0;
    seat.heldUntil = clock.now() + this.d.options.reconnectWindowMs;
    game.disconnected?.(seat.playerId);
    this.expiry.arm(seat.heldUntil);
    if (this.connectedCount === 0) this.d.scheduler.stop();
    this.d.statusChanged();
  }

  /** A seat rebuilt from a checkpoint, with no socket yet: held for the reconnection window. */
  holdRestored(seat: Seat): void {
    seat.link = null;
    seat.heldUntil = this.d.clock.now() + this.d.options.reconnectWindowMs;
    this.d.game.disconnected?.(seat.playerId);
    this.expiry.arm(seat.heldUntil);
    this.d.statusChanged();
  }

  /** Frees the seat for good (leave, abuse, or the window ran out). Idempotent. */
  free(seat: Seat): void {
    const { game, stats, seats } = this.d;
    if (!seats.has(seat)) return;
    if (seat.link) {
      seat.link.seat = null;
      seat.link = null;
      this.connectedCount--;
      if (this.connectedCount === 0) this.d.scheduler.stop();
    }
    if (game.sync.mode === "binary" && seat.syncState !== null) game.sync.encoder.releaseClient(seat.syncState);
    seat.syncState = null;
    seats.remove(seat);
    // Inputs queued by a player who leaves before the next tick are never applied; counting
    // them keeps tk:stats whole (received = processed + rejected once the queue drains).
    const dropped = this.d.queue.dropPlayer(seat.playerId);
    if (dropped > 0) {
      stats.inputsRejected += dropped;
      RoomStats.bump(stats.rejectedByCode, "seat_freed", dropped);
    }
    try {
      game.leave(seat.playerId);
    } catch (e) {
      RoomStats.bump(stats.errors, "internal");
      console.error(`[room ${this.d.kind}:${this.d.roomId}] leave error`, e);
    }
    if (game.sync.mode === "json") this.d.markChanged();
    if (seats.size === 0) this.d.sessions.lastSeatFreed();
    this.d.statusChanged();
    this.d.hooks.onCheckpointDue?.(true);
  }

  /** Cancels the expiry timer (room shutdown). */
  stop(): void {
    this.expiry.stop();
  }
}
