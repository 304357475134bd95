/**
 * A join naming a seat reservation (`?reservation=`, what the matchmaker's join URL carries): one
 * rule for every host. The reservation is verified like a room ticket for the room joined (its
 * signature, expiry, kind and room) and must name a seat; it binds the join to the player the
 * seat is held for. Any other credential the request carries (a room ticket, a sign-in token) is
 * checked by the host's own rule and must name that same player: a join speaks for one identity,
 * so Mallory's own ticket cannot ride on Alice's reservation, nor Alice's reservation on
 * Mallory's token. A refusal is `unauthorized` with the reason.
 */
import { TICKET_REFUSAL_TEXT, verifyRoomTicket } from "../ticket";
import { readCredential, type CallerVerdict, type IdentifyRequest, type IdentityRefusal } from "./identify";

/** What a reservation must be for. */
export interface ReservationRequirement {
  /** The secret reservations are signed with (the ticket secret; DEV_MODE's own without one). */
  secret: string;
  /** The room kind joined. */
  kind: string;
  /** The room id joined. */
  roomId: string;
}

/** Why a reserved join was refused, beside a credential's own reasons. */
export type ReservedJoinRefusal = IdentityRefusal | "not_a_reservation" | "two_identities";

/** Result of {@link identifyReservedJoin}. */
export type ReservedJoinVerdict =
  | {
      /** Let in, bound to the reservation's player and seat. */
      ok: true;
      /** The player the seat is held for. */
      identity: string;
      /** The reservation id the room holds the seat under. */
      reservation: string;
    }
  | {
      /** Refused. */
      ok: false;
      /** Why. */
      reason: ReservedJoinRefusal | "unconfigured";
      /** 401 (`unauthorized`), or 503 when the other credential cannot be checked now (the provider, the host's configuration). */
      status: 401 | 503;
      /** Text safe to send the client. */
      message: string;
    };

/**
 * Checks a join that names the reservation `token` (see the module comment). `other` is the
 * host's own rule for the rest of the request's credentials (core `identifyCaller` as the host
 * calls it for joins); it is asked only when the request carries one.
 */
export async function identifyReservedJoin(request: IdentifyRequest, token: string, need: ReservationRequirement, other: () => Promise<CallerVerdict>): Promise<ReservedJoinVerdict> {
  const verdict = await verifyRoomTicket(token, { secret: need.secret, kind: need.kind, roomId: need.roomId });
  if (!verdict.ok) return { ok: false, reason: verdict.reason, status: 401, message: `seat reservation refused: ${TICKET_REFUSAL_TEXT[verdict.reason]}` };
  const seat = verdict.claims.seat;
  if (seat === undefined) return { ok: false, reason: "not_a_reservation", status: 401, message: "seat reservation refused: a room ticket is not a reservation (?ticket=)" };
  const identity = verdict.claims.playerId;
  if (readCredential(request) === null) return { ok: true, identity, reservation: seat };
  const second = await other();
  if (!second.ok) {
    const status = second.status === 401 ? 401 : 503;
    return { ok: false, reason: second.reason, status, message: `${second.message} (next to a seat reservation)` };
  }
  // A credential this host does not verify (DEV_MODE without its secret) names nobody.
  if (second.identity === null || second.identity === identity) return { ok: true, identity, reservation: seat };
  return { ok: false, reason: "two_identities", status: 401, message: `the seat reservation is held for another player than the ${second.via === "jwt" ? "sign-in token" : "room ticket"} names: send one player's credentials` };
}
