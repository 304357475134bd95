/**
 * The parties' part of the matchmaker's model-based test (matchmaker.model.test.ts): steps that
 * make, join, start, watch and leave parties against the test's world, and the invariants a
 * party promises, checked against what members were told, what the rooms hold and what the
 * matchmaker saved.
 */
import { isMatchError, type MatchError, type MatchFilters, type MatchMode } from "@tikron/protocol";
import type { Room } from "../../src";
import { NO_OVERRIDES, type Matchmaker, type PartyAnswer, type PartyRecord, type ReservedSeat } from "../../src/match";

/** What the party steps need of the test's world. */
export interface PartyWorld {
  readonly mm: Matchmaker;
  /** Every reservation a room made: by which seat request (all of a request's at once). */
  readonly made: readonly { roomId: string; reservationId: string; identity: string; request: number }[];
  readonly rooms: ReadonlyMap<string, { room: Room }>;
  /** Seats answered, for the world's join steps to use. */
  readonly answered: { identity: string; seat: ReservedSeat; joined: boolean }[];
  readonly violations: string[];
  readonly requestFilters: Map<string, MatchFilters>;
  readonly requestMode: Map<string, MatchMode>;
  /** The parties the live matchmaker saved. */
  readonly storedParties: ReadonlyMap<string, PartyRecord>;
  /** A fresh number for an identity. */
  id(): number;
}

/** A party as the test knows it: its code, and the members it was told of (member id → identity). */
interface KnownParty {
  code: string;
  members: Map<string, string>;
}

/** Lets every promise chain the last step started run to its end (no timers involved). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await Promise.resolve();
}

/** The parties' steps and invariants over a {@link PartyWorld} whose rooms have `cap` seats. */
export class PartyModel {
  readonly parties: KnownParty[] = [];
  /** Party member identity → its party's code. */
  private readonly partyOf = new Map<string, string>();
  /** Per party: the rooms, and the seat requests, of every seat any of its members was told. */
  readonly partyRooms = new Map<string, Set<string>>();
  private readonly partyRequests = new Map<string, Set<number>>();
  /** Seats (tokens and reservation ids) members were told, so a second view of one is not a second seat. */
  private readonly toldSeats = new Set<string>();
  /**
   * Per party code: the start the live matchmaker may still be seating (its filters are the ones
   * its seat requests go out with), until it answers or the matchmaker restarts.
   */
  private readonly starting = new Map<string, object>();

  constructor(
    private readonly w: PartyWorld,
    private readonly cap: number,
    private readonly filters: readonly MatchFilters[],
  ) {}

  /** One of the parties made last (steps name them by how recent they are). */
  private party(i: number): KnownParty | undefined {
    return this.parties[this.parties.length - 1 - (i % Math.max(1, this.parties.length))];
  }

  /** A new player makes a party. */
  create(rating: number): void {
    const identity = `pt${this.w.id()}`;
    const out = this.w.mm.parties.create({ name: identity, rating }, { identity, verified: true }, NO_OVERRIDES);
    if (isMatchError(out)) return void this.w.violations.push(`party create refused: ${out.code} ${out.reason}`);
    this.parties.push({ code: out.code, members: new Map([[out.member, identity]]) });
    this.partyOf.set(identity, out.code);
    this.heard(out, identity);
  }

  /** A new player joins a known party: refused only when it is full, started or gone. */
  join(i: number, rating: number): void {
    const p = this.party(i);
    if (!p) return;
    const identity = `pt${this.w.id()}`;
    const out = this.w.mm.parties.join(p.code, { name: identity, rating }, { identity, verified: true });
    if (isMatchError(out)) {
      if (!["party_full", "locked", "not_found"].includes(out.code)) this.w.violations.push(`party join refused: ${out.code} ${out.reason}`);
      return;
    }
    p.members.set(out.member, identity);
    this.partyOf.set(identity, p.code);
    this.heard(out, identity);
  }

  /** A member (any: a non-leader's start is refused) starts its party into a room or the queue. */
  start(i: number, j: number, mode: MatchMode | "queue", f: number): void {
    const p = this.party(i);
    const m = p && [...p.members][j % p.members.size];
    if (!p || !m) return;
    const [memberId, identity] = m;
    const filters = this.filters[f % this.filters.length]!;
    const req = mode === "queue" ? ({ queue: true } as const) : ({ queue: false, match: { mode, filters, options: {}, private: false } } as const);
    const who = { identity, verified: true };
    if (this.starting.has(p.code)) {
      // A party is seated by one start at a time: this one is refused, and the filters the
      // creation check reads stay those of the start in flight (it may still create a room).
      void this.w.mm.parties.start(p.code, memberId, req, who).then((out) => {
        if (!isMatchError(out)) this.w.violations.push(`party ${p.code} started again while its start was in flight`);
      });
      return;
    }
    this.w.requestFilters.set(identity, filters);
    if (mode !== "queue") this.w.requestMode.set(identity, mode);
    const token = {};
    this.starting.set(p.code, token);
    void this.w.mm.parties.start(p.code, memberId, req, who).then((out) => {
      if (this.starting.get(p.code) === token) this.starting.delete(p.code);
      this.heard(out, identity);
    });
  }

  /** The matchmaker restarted: a start in flight on the old one asks no room for seats any more. */
  restarted(): void {
    this.starting.clear();
  }

  /** A member asks how its party is (no long poll: at once). */
  async watch(i: number, j: number): Promise<void> {
    const p = this.party(i);
    const m = p && [...p.members][j % p.members.size];
    if (!p || !m) return;
    this.heard(await this.w.mm.parties.watch(p.code, m[0], undefined, { identity: m[1], verified: true }), m[1]);
  }

  /**
   * A member leaves. A seat it was told and had not used is given back at once; the seats its
   * party's other members were told stay held.
   */
  async leave(i: number, j: number): Promise<void> {
    const p = this.party(i);
    const m = p && [...p.members][j % p.members.size];
    if (!p || !m) return;
    const [memberId, identity] = m;
    await this.watch(i, j);
    const before = this.seatsHeld(p, identity);
    const out = this.w.mm.parties.leave(p.code, memberId, { identity, verified: true });
    p.members.delete(memberId);
    if (isMatchError(out)) return;
    await settle();
    const after = this.seatsHeld(p, identity);
    for (const id of before.others) if (!after.others.has(id)) this.w.violations.push(`${identity} left party ${p.code}: another member's seat ${id} went with it`);
    for (const id of after.own) this.w.violations.push(`${identity} left party ${p.code} before joining: its seat ${id} is still held`);
  }

  /** The seats (reservation ids) rooms still hold for a party's members: `identity`'s own, and the others'. */
  private seatsHeld(p: KnownParty, identity: string): { own: Set<string>; others: Set<string> } {
    const own = new Set<string>();
    const others = new Set<string>();
    const pending = new Set<string>();
    for (const { room } of this.w.rooms.values()) for (const r of room.pendingReservations()) pending.add(r.id);
    for (const m of this.w.made) {
      if (this.partyOf.get(m.identity) !== p.code || !pending.has(m.reservationId) || !this.toldSeats.has(m.reservationId)) continue;
      (m.identity === identity ? own : others).add(m.reservationId);
    }
    return { own, others };
  }

  /**
   * What a member was told: a party at most its cap, and once it has a seat, every seat any member
   * of the party was told is in one room and came from one seat request (all of them at once).
   */
  private heard(out: PartyAnswer | MatchError, identity: string): void {
    if (isMatchError(out)) return;
    if (out.members.length > this.cap) this.w.violations.push(`party ${out.code} has ${out.members.length} members, over the cap ${this.cap}`);
    const seat = out.seat;
    if (!seat || this.toldSeats.has(seat.token)) return;
    this.toldSeats.add(seat.token);
    const [roomId, who, reservationId] = seat.token.split("|") as [string, string, string];
    this.toldSeats.add(reservationId);
    if (who !== identity) this.w.violations.push(`${identity} was told a seat bound to ${who}`);
    const made = this.w.made.find((m) => m.reservationId === reservationId);
    if (!made) return void this.w.violations.push(`party ${out.code}: seat ${reservationId} was never made by its room`);
    const rooms = this.partyRooms.get(out.code) ?? new Set();
    const requests = this.partyRequests.get(out.code) ?? new Set();
    rooms.add(roomId);
    requests.add(made.request);
    this.partyRooms.set(out.code, rooms);
    this.partyRequests.set(out.code, requests);
    if (rooms.size > 1) this.w.violations.push(`party ${out.code} was seated in ${[...rooms].join(" and ")}`);
    if (requests.size > 1) this.w.violations.push(`party ${out.code}'s seats came from ${requests.size} seat requests, not one`);
    this.w.answered.push({ identity, seat, joined: false });
  }

  /**
   * All or none, read from the parties the matchmaker saved (reading them through a watch would
   * keep every member from going idle): a matched party's every member has a seat, all in one
   * room, made by one seat request; a party not matched gives no member a seat.
   */
  check(): void {
    for (const p of this.w.storedParties.values()) {
      const seats = p.members.map((m) => m.seat);
      if (p.state !== "matched") {
        if (seats.some((x) => x)) this.w.violations.push(`party ${p.code} is ${p.state} but a member has a seat`);
        continue;
      }
      if (seats.some((x) => !x)) this.w.violations.push(`party ${p.code} is matched but a member has no seat`);
      const requests = new Set(seats.map((x) => x && this.w.made.find((m) => m.reservationId === x.reservationId)?.request));
      const rooms = new Set(seats.map((x) => x?.roomId));
      if (requests.size > 1 || requests.has(undefined) || rooms.size > 1) this.w.violations.push(`party ${p.code}'s seats are not one request's in one room (${[...rooms].join(", ")})`);
    }
  }
}
