/**
 * Who asks a matchmaker for a seat, and the seats it answers: the shapes every part of
 * matchmaking passes around (the matchmaker, its queue and party desks, the match routes).
 */
import type { PlayerClaims } from "../player";

/** Who is asking: the identity a seat is bound to, and the key its requests are limited by. */
export interface Caller {
  /** The identity a reserved seat is bound to (a verified player id, or an anonymous one). */
  identity: string;
  /** True when {@link identity} was verified (a ticket): it owns its queue entries. */
  verified: boolean;
  /** The key requests are rate-limited by (identity or address); undefined: not limited. */
  rateKey?: string;
  /** The sign-in claims verified with the identity (a JWT's, as the deployment names them): its seat's player gets them. */
  claims?: PlayerClaims;
}

/** A seat a matchmaker reserved: what a host turns into a `SeatReservation` answer. */
export interface ReservedSeat {
  /** The room. */
  roomId: string;
  /** The signed reservation token. */
  token: string;
  /** When the held seat is given up if unused (Unix ms). */
  expiresAt: number;
  /** The room was created for this request. */
  created: boolean;
  /** Queue matches: the group's size. */
  group?: number;
}

/** Seats a room held for one request: a signed token and a reservation id per caller, in the callers' order. */
export interface HeldSeats {
  /** The room. */
  roomId: string;
  /** Signed reservation tokens. */
  tokens: string[];
  /** The reservation ids the room holds them under. */
  reservationIds: string[];
  /** When unused seats are given up (Unix ms). */
  expiresAt: number;
  /** The room was made for the request. */
  created: boolean;
  /** Queue matches: the whole group's size. */
  group?: number;
}
