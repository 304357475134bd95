/**
 * What an operator can do to a room (the admin API's room side, the same on every host): see its
 * seats, identities, recent errors and bans; remove a player, ban an identity for a while, close
 * the room, send everyone a notice. Each runs as one event of the room, like a message: nothing
 * here touches the tick path.
 */
import { CloseCode, refusalCloseReason, type AdminSeat, type FrameWriter } from "@tikron/protocol";
import type { Clock } from "../clock";
import type { BanOutcome, BanTarget, RoomAdminView } from "../host";
import type { RoomBans } from "./bans";
import type { RoomBots } from "./bots";
import { unconfirmedBytes, type Seat } from "./clientLink";
import type { RecentErrors } from "./recentErrors";
import { sendOperatorNotice } from "./replies";
import type { RoomListing } from "./roomListing";
import type { RoomSockets } from "./roomSockets";
import type { SeatRegistry } from "./seatRegistry";
import type { SeatReservations } from "./seatReservations";
import type { Seating } from "./seating";

/** What the actions need from the room. */
export interface AdminActionsDeps {
  readonly clock: Clock;
  readonly seats: SeatRegistry;
  readonly sockets: RoomSockets;
  readonly seating: Seating;
  readonly listing: RoomListing;
  readonly reservations: SeatReservations;
  readonly bots: RoomBots;
  readonly bans: RoomBans;
  readonly recentErrors: RecentErrors;
  readonly writer: FrameWriter;
}

/** The operator's actions on one room (see the module comment). */
export class AdminActions {
  constructor(private readonly d: AdminActionsDeps) {}

  /** Seats, recent errors and bans. */
  view(): RoomAdminView {
    const now = this.d.clock.now();
    const seats = [...this.d.seats.list].sort((a, b) => a.playerId - b.playerId).map((seat) => this.seatView(seat, now));
    return { seats, errors: this.d.recentErrors.list(), bans: this.d.bans.list(now) };
  }

  /**
   * Removes player `playerId`: its socket closes with `kicked` (4022) and the reason, and its
   * seat is freed (a held seat is freed at once). Returns the sockets closed, or null when no
   * seat has that id. A kick is not a ban: the player may join again.
   */
  kick(playerId: number, reason: string): number | null {
    const seat = this.d.seats.get(playerId);
    if (!seat) return null;
    const link = seat.link;
    if (link) {
      this.d.sockets.close(link, CloseCode.kicked, refusalCloseReason(closeReason("removed by the operator", reason)));
      return 1;
    }
    this.d.seating.free(seat);
    return 0;
  }

  /**
   * Bans an identity (or the identity of a seated player) for `durationMs`: every socket of it
   * closes with `banned` (4023) and the wait, its seat is freed, and its joins are refused until
   * the ban ends. A player with neither a verified identity nor an address to limit by cannot be
   * banned (`anonymous`): kick it, or require sign-in.
   */
  ban(target: BanTarget, durationMs: number, reason: string): BanOutcome {
    const now = this.d.clock.now();
    let key: string | undefined;
    if ("playerId" in target) {
      const seat = this.d.seats.get(target.playerId);
      if (!seat) return "no_such_player";
      key = this.d.seats.identityOf(seat) ?? seat.link?.admissionKey;
      if (key === undefined) return "anonymous";
    } else {
      key = target.identity;
    }
    const until = now + durationMs;
    this.d.bans.add(key, until, reason, now);
    const closed = this.d.sockets.closeKey(key, CloseCode.banned, refusalCloseReason(closeReason("banned from this room", reason), durationMs));
    // A seat held for a reconnect has no socket to close.
    const held = this.d.seats.byIdentityOf(key);
    if (held) this.d.seating.free(held);
    return { identity: key, until, closed };
  }

  /** Lifts the ban on `identity`; false when there was none. */
  unban(identity: string): boolean {
    return this.d.bans.remove(identity);
  }

  /**
   * Closes the room: its bots leave, every socket closes with `room_closed` (4008) and the
   * reason, every seat is freed (held ones too) and every pending reservation dropped. The room
   * is empty afterwards; it takes players again like a new one (lock it first to keep them out).
   * Returns the sockets closed.
   */
  close(reason: string): number {
    this.d.bots.set(0);
    const closed = this.d.sockets.size;
    this.d.sockets.closeAll(CloseCode.room_closed, refusalCloseReason(closeReason("closed by the operator", reason)));
    for (const seat of [...this.d.seats.list]) this.d.seating.free(seat);
    this.d.reservations.clear();
    this.d.listing.changed();
    return closed;
  }

  /** Sends every connected player an operator's notice (`OPERATOR_NOTICE`) at once; returns how many got it. */
  notice(text: string): number {
    let n = 0;
    for (const seat of this.d.seats.list) {
      const link = seat.link;
      if (!link || link.closed || link.connection.bot === true) continue;
      sendOperatorNotice(link, text, this.d.writer);
      n++;
    }
    return n;
  }

  private seatView(seat: Seat, now: number): AdminSeat {
    const link = seat.link;
    return {
      playerId: seat.playerId,
      name: seat.name,
      identity: this.d.seats.identityOf(seat) ?? null,
      connected: link !== null,
      bot: link?.connection.bot === true,
      heldForMs: link ? null : Math.max(0, Math.round(seat.heldUntil - now)),
      lastSeq: seat.lastProcessedSeq,
      backlogBytes: link ? unconfirmedBytes(link) : 0,
      rttMs: null,
    };
  }
}

/** A close's reason: what happened, and the operator's words (clipped to a close frame by `refusalCloseReason`). */
function closeReason(what: string, reason: string): string {
  return reason === "" ? what : `${what}: ${reason}`;
}
