/**
 * The room as its matchmaker sees it (`MatchSeats`): the status it reports, and the seats a
 * matchmaker reserves and releases there (match/roomPort.ts). Each runs as one event of the room,
 * off the message and tick paths.
 */
import type { Clock } from "../clock";
import type { Game } from "../game";
import type { PendingReservation, SeatAnswer, SeatHold, SeatRequest } from "../match/roomPort";
import type { RoomStatus } from "../match/roomStatus";
import type { RoomOptions } from "../roomOptions";
import type { RoomBans } from "./bans";
import type { RoomBots } from "./bots";
import type { RoomListing } from "./roomListing";
import type { SeatRegistry } from "./seatRegistry";
import type { SeatReservations } from "./seatReservations";
import type { Seating } from "./seating";

/** How often a ticking room's status is re-reported while it has players (a sleeping room's is not). */
const STATUS_REFRESH_MS = 60_000;

/** What the matchmaker's side needs from the room. */
export interface MatchSeatsDeps {
  readonly roomId: string;
  readonly game: Game;
  readonly clock: Clock;
  readonly options: RoomOptions;
  readonly seats: SeatRegistry;
  readonly seating: Seating;
  readonly listing: RoomListing;
  readonly reservations: SeatReservations;
  readonly bans: RoomBans;
  readonly bots: RoomBots;
}

/** The room's status and seat reservations, as `HostedRoom` hands them to a matchmaker. */
export class MatchSeats {
  constructor(private readonly d: MatchSeatsDeps) {}

  /** The room as a matchmaker lists it. */
  status(): RoomStatus {
    const l = this.d.listing;
    return {
      roomId: this.d.roomId,
      clients: this.d.seats.size,
      bots: this.d.bots.count,
      reserved: this.d.reservations.size,
      maxClients: this.d.options.cap,
      metadata: l.metadata,
      locked: l.locked,
      private: l.isPrivate,
      createdAt: l.createdAt,
      version: [l.createdAt, l.changes],
      overrides: l.overrides,
      refreshMs: this.d.game.ticking ? STATUS_REFRESH_MS : 0,
    };
  }

  /** Holds seats for a matchmaker's players, or says why not (with the status either way). */
  reserve(req: SeatRequest): SeatAnswer {
    const { listing, reservations, seats, options } = this.d;
    const refuse = (code: "room_full" | "locked" | "not_found", reason: string): SeatAnswer => {
      reservations.counts.refused++;
      // The status goes with every refusal (a private room's too): the room exists, and its
      // matchmaker must keep it, whatever the player is told.
      return { ok: false, code, reason, status: this.status() };
    };
    if (listing.isPrivate && !req.byId) return refuse("not_found", "no such public room");
    if (listing.locked) return refuse("locked", "the room is locked");
    // A banned player is sent elsewhere: to the matchmaker this room is closed to it.
    const now = this.d.clock.now();
    if (req.seats.some((s) => this.d.bans.check(s.identity, now))) return refuse("locked", "banned from this room");
    const wanted = req.seats.filter((s) => !seats.hasIdentity(s.identity));
    // Joins the game is still deciding on count too: a reservation never over-grants the cap.
    if (this.d.seating.claimed + wanted.length > options.cap) {
      return refuse("room_full", `room is full (${options.cap} seats)`);
    }
    // An identity already seated here needs no new seat: its join resumes its own.
    for (const s of wanted) reservations.add(s.reservationId, s.identity, req.ttlMs, s.claims);
    return { ok: true, status: this.status() };
  }

  /** Lets reserved seats go; the status after. */
  release(seats: readonly SeatHold[]): RoomStatus {
    for (const s of seats) this.d.reservations.release(s.reservationId, s.identity);
    return this.status();
  }

  /** Reservations still waiting for their players, as a host keeps them over a restart. */
  pending(): PendingReservation[] {
    return this.d.reservations.list();
  }

  /** Holds again the reservations a host kept. */
  hold(pending: readonly PendingReservation[]): void {
    for (const r of pending) if (r.ttlMs > 0) this.d.reservations.add(r.id, r.identity, r.ttlMs, r.claims);
  }
}
