/**
 * Where a room files its seats (`SeatRegistry`): by player id, reconnect token and verified
 * identity, with the dense list the flush walks; and the one place a seat's `Player` record is
 * made, from a join or from a ticket, and kept in a ticket (so it travels with the seat).
 */
import type { SeatTicket } from "../host";
import { anonymousIdentity, playerRecord, seatPlayerOf, type JoiningPlayer } from "../player";
import { newSeat, type ClientLink, type Seat } from "./clientLink";

/** 128 random bits as hex: a reconnect token nobody can guess. */
function randomToken(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/**
 * Every seat of a room, connected or held, found by player id, reconnect token or verified
 * identity, plus a dense list the flush loop walks without allocating an iterator. It only
 * files seats; what taking or freeing one means for the game is the room's business.
 */
export class SeatRegistry {
  private readonly byId = new Map<number, Seat>();
  private readonly byToken = new Map<string, Seat>();
  /** Seats bound to a verified external player id, and the reverse, for freeing. */
  private readonly byIdentity = new Map<string, Seat>();
  private readonly identityOfSeat = new Map<Seat, string>();
  private nextPlayerId = 1;
  /**
   * Dense list for the flush loop; replaced (not mutated) when a seat goes, appended to when one
   * comes, so a flush in slices walks the first entries it began with unchanged
   * (room/slicedFlush.ts).
   */
  list: Seat[] = [];

  /** Seats taken, connected or held. */
  get size(): number {
    return this.byId.size;
  }

  /** The seat of a player id, if taken. */
  get(playerId: number): Seat | undefined {
    return this.byId.get(playerId);
  }

  /** True while the seat is filed (not yet freed). */
  has(seat: Seat): boolean {
    return this.byId.get(seat.playerId) === seat;
  }

  /**
   * The seat a hello resumes. A verified identity resumes only its own seat; a bare token
   * resumes only a seat no identity is bound to, so a leaked token cannot take a ticketed seat.
   */
  resumable(identity: string | undefined, token: string): Seat | undefined {
    if (identity !== undefined) return this.byIdentity.get(identity);
    const seat = token ? this.byToken.get(token) : undefined;
    return seat && !this.identityOfSeat.has(seat) ? seat : undefined;
  }

  /** The verified identity a seat is bound to, if any. */
  identityOf(seat: Seat): string | undefined {
    return this.identityOfSeat.get(seat);
  }

  /** The seat bound to verified identity `identity`, if any. */
  byIdentityOf(identity: string): Seat | undefined {
    return this.byIdentity.get(identity);
  }

  /** Whether a seat is bound to verified identity `identity`. */
  hasIdentity(identity: string): boolean {
    return this.byIdentity.has(identity);
  }

  /**
   * Files a new seat for `joining` with the next player id and a fresh token; `bound`: its
   * identity is a verified one, which the seat is bound to (else it is an anonymous id).
   */
  add(joining: JoiningPlayer, bound: boolean): Seat {
    const playerId = this.nextPlayerId++;
    const player = playerRecord(playerId, joining.name, joining.identity, joining.claims, joining.options);
    return this.file(player, randomToken(), bound ? joining.identity : undefined);
  }

  /**
   * Files a seat rebuilt from a ticket (after a runtime restart), keeping its id, token and
   * player record (a ticket kept before records were: an anonymous identity, no claims or options).
   */
  restore(ticket: SeatTicket): Seat {
    this.nextPlayerId = Math.max(this.nextPlayerId, ticket.playerId + 1);
    const kept = ticket.player;
    const player = playerRecord(ticket.playerId, ticket.name, ticket.identity ?? kept?.anonymous ?? anonymousIdentity(), kept?.claims ?? {}, kept?.options ?? {});
    return this.file(player, ticket.token, ticket.identity);
  }

  /** Unfiles a seat. Returns false when it was not filed. */
  remove(seat: Seat): boolean {
    if (!this.has(seat)) return false;
    this.byId.delete(seat.playerId);
    this.byToken.delete(seat.token);
    const identity = this.identityOfSeat.get(seat);
    if (identity !== undefined) {
      this.byIdentity.delete(identity);
      this.identityOfSeat.delete(seat);
    }
    this.list = this.list.filter((s) => s !== seat);
    return true;
  }

  /** The ticket that rebuilds this seat for this link after a restart. */
  ticketOf(seat: Seat, link: ClientLink): SeatTicket {
    return this.ticketFor(seat, link.dialect === "json");
  }

  /** The ticket that rebuilds this seat, connected or not (`json`: the room's dialect), its player record with it. */
  ticketFor(seat: Seat, json: boolean): SeatTicket {
    const identity = this.identityOfSeat.get(seat);
    const player = seatPlayerOf(seat.player, identity !== undefined);
    return { playerId: seat.playerId, token: seat.token, name: seat.name, json, ...(identity !== undefined ? { identity } : {}), ...(player ? { player } : {}) };
  }

  private file(player: Parameters<typeof newSeat>[0], token: string, identity: string | undefined): Seat {
    const seat = newSeat(player, token);
    const playerId = seat.playerId;
    this.byId.set(playerId, seat);
    this.byToken.set(token, seat);
    if (identity !== undefined) {
      this.byIdentity.set(identity, seat);
      this.identityOfSeat.set(seat, identity);
    }
    this.list.push(seat);
    return seat;
  }
}
