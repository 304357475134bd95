/**
 * The one rule for seat reservations on every host: which secret signs and verifies them, and
 * how a matchmaker mints one (a room ticket for the seat's room and player that names the
 * reservation id, `claims.seat`). The join that names it is checked by the join gate
 * (core `identifyReservedJoin`, called from `admitJoin`).
 */
import { DEV_MODE_SECRET, mintRoomTicket } from "../ticket";

/** How long a reservation token stays good as its player's ticket back into the room (s). */
export const SEAT_RESERVATION_TTL_SECONDS = 3600;

/**
 * The secret seat reservations are signed and verified with: the deployment's ticket secret
 * when set, else in DEV_MODE the public development secret (a DEV_MODE host trusts nobody
 * anyway), else none — and then no reservation is handed out or accepted.
 */
export function reservationSecret(ticketSecret: string | undefined, devMode: boolean): string | null {
  if (ticketSecret) return ticketSecret;
  return devMode ? DEV_MODE_SECRET : null;
}

/** A seat a matchmaker holds for a player: the room, the player, the reservation's id. */
export interface HeldSeat {
  /** The room the seat is in. */
  roomId: string;
  /** The player it is held for. */
  identity: string;
  /** The id the room holds it under. */
  reservationId: string;
}

/** The reservation token of `seat` in a room of `kind`, signed with `secret` (a matchmaker's `signSeat`). */
export function mintSeatReservation(secret: string, kind: string, seat: HeldSeat): Promise<string> {
  return mintRoomTicket({ secret, kind, roomId: seat.roomId, playerId: seat.identity, ttlSeconds: SEAT_RESERVATION_TTL_SECONDS, seat: seat.reservationId });
}
