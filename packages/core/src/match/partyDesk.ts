import { isMatchError, matchError, type MatchError, type MatchRequest, type PartyJoinRequest, type PartyStartRequest } from "@tikron/protocol";
import type { Clock } from "../clock";
import { newPartyCodeFor } from "./matchHttp";
import type { QueueEntry } from "./matchQueue";
import { PartyBook, type MemberSeat, type PartyAnswer, type PartyMemberRecord, type PartyRecord, type PartyStore } from "./parties";
import type { RoomCreation, SeatHold } from "./roomPort";
import type { Caller, HeldSeats } from "./seats";

/** What parties need of the matchmaker's host (its `MatchmakerHost` has each). */
export interface PartyHost {
  /** The matchmaker's clock. */
  clock: Clock;
  /** Where parties are kept across restarts. */
  partyStore?: PartyStore;
  /** A fresh unguessable id (member ids, start ids). */
  newReservationId(): string;
  /** A fresh party code (default: any code). */
  newPartyCode?(): string;
  /** The seat cap of a room made with `overrides`: a party's most members. */
  capFor(overrides: RoomCreation["overrides"]): number;
}

/** What the party desk asks of its matchmaker: its gate, its two ways to seat players, its releases. */
export interface PartySeating {
  /** Counts a request and applies the caller's rate limit: the refusal, or null. */
  admit(op: string, who: Caller): MatchError | null;
  /** Counts a refusal by its code and returns it. */
  refuse(err: MatchError): MatchError;
  /** Seats every caller in one room, all or none, as a match request seats one (not counted as refused). */
  seatTogether(req: MatchRequest, callers: readonly Caller[], creation: RoomCreation): Promise<HeldSeats | MatchError>;
  /** Puts an entry in the queue; its seats once its group is seated, or why not (counted). */
  enqueue(entry: QueueEntry): Promise<HeldSeats | MatchError>;
  /** Takes a waiting entry out of the queue: its {@link enqueue} answers `cancelled` with `reason`. */
  dequeue(queueId: string, reason: string): void;
  /** Gives seats back to their room (the directory hears the room's answer). */
  release(roomId: string, seats: SeatHold[]): void;
  /** Players per queue group, or null for a kind without a queue. */
  readonly groupSize: number | null;
}

/** How long a code works while its party forms (ms). */
export const PARTY_TTL_MS = 30 * 60_000;
/** A member of a forming party that has not asked about it for this long has left (ms). */
export const PARTY_MEMBER_IDLE_MS = 45_000;
/** A matched party is kept this long past its seats' lifetime, for members that ask late (ms). */
const MATCHED_GRACE_MS = 5_000;
/** Parties one matchmaker holds at most (memory, and its object's storage). */
const MAX_PARTIES = 10_000;
/** How often every party is looked at for expiry and idle members: on requests, never by a timer. */
const SWEEP_EVERY_MS = 10_000;

/**
 * The parties of one matchmaker: a party is a code one player makes and others enter, matched as
 * one request when its leader starts it — every member's seat reserved in one room at once (a
 * match, like `POST /match/<kind>` for all of them, or the queue, where the party is one entry of
 * its members' mean rating), or none. Members watch the party (a long poll) to learn of joins,
 * leaves and their own seat; a member who leaves before joining gives back only its own seat.
 */
export class PartyDesk {
  private readonly book: PartyBook;
  private sweptAt: number;
  /** Parties made and matched (stats). */
  readonly counts: {
    /** Parties made. */
    made: number;
    /** Parties matched. */
    matched: number;
  } = { made: 0, matched: 0 };

  constructor(
    private readonly host: PartyHost,
    private readonly seating: PartySeating,
  ) {
    this.book = new PartyBook(host.clock, host.partyStore);
    this.sweptAt = host.clock.now();
  }

  /** Parties held now. */
  get size(): number {
    return this.book.size;
  }

  /** Loads the parties the host saved (call once, before the first request). */
  load(): Promise<void> {
    return this.book.load();
  }

  /** Answers every held watch `unavailable`. */
  dispose(): void {
    this.book.dispose();
  }

  /** `POST /match/<kind>/party`: a new party with the caller as its leader. */
  create(req: PartyJoinRequest, who: Caller, creation: RoomCreation): PartyAnswer | MatchError {
    const refused = this.enter("partyCreate", who);
    if (refused) return refused;
    if (this.book.size >= MAX_PARTIES) return this.seating.refuse(matchError("unavailable", "this matchmaker holds as many parties as it takes; try again later", 5000));
    let code = this.newCode();
    for (let i = 0; i < 8 && this.book.get(code); i++) code = this.newCode();
    if (this.book.get(code)) return this.seating.refuse(matchError("unavailable", "no free party code; try again", 500));
    const now = this.host.clock.now();
    const party: PartyRecord = { code, createdAt: now, expiresAt: now + PARTY_TTL_MS, version: 1, state: "open", members: [], maxSize: this.host.capFor(creation.overrides), creation };
    const member = this.newMember(req, who, now);
    party.members.push(member);
    this.book.add(party);
    this.counts.made++;
    return viewOf(party, member);
  }

  /** `POST /match/<kind>/party/<code>`: joins the party (a verified identity already in it gets its own place back). */
  join(code: string, req: PartyJoinRequest, who: Caller): PartyAnswer | MatchError {
    const refused = this.enter("partyJoin", who);
    if (refused) return refused;
    const party = this.party(code);
    if (!party) return this.seating.refuse(noParty(code));
    const now = this.host.clock.now();
    const again = who.verified ? party.members.find((m) => m.verified && m.identity === who.identity) : undefined;
    if (again) {
      again.seenAt = now;
      return viewOf(party, again);
    }
    if (party.state !== "open") return this.seating.refuse(matchError("locked", `party ${code} has started: it takes no new member`));
    if (party.members.length >= party.maxSize) return this.seating.refuse(matchError("party_full", `party ${code} is full (${party.maxSize}: the rooms' seat cap)`));
    const member = this.newMember(req, who, now);
    party.members.push(member);
    this.book.changed(party);
    return viewOf(party, member);
  }

  /**
   * `GET /match/<kind>/party/<code>?member=&after=`: the party as this member sees it, at once
   * when its version is not `after`, else when it next changes (or after the hold, unchanged).
   */
  async watch(code: string, memberId: string, after: number | undefined, who: Caller): Promise<PartyAnswer | MatchError> {
    const refused = this.enter("partyWatch", who);
    if (refused) return refused;
    const found = this.member(code, memberId, who);
    if (isMatchError(found)) return found;
    const [party, member] = found;
    if (after !== party.version) return viewOf(party, member);
    const later = await this.book.wait(party, memberId);
    if (isMatchError(later)) return later;
    const still = later?.members.find((m) => m.id === memberId);
    if (!later || !still) return this.seating.refuse(matchError("not_found", `you are no longer in party ${code}`));
    still.seenAt = this.host.clock.now();
    return viewOf(later, still);
  }

  /** `DELETE /match/<kind>/party/<code>?member=`: leaves the party; a seat not used yet is given back. */
  leave(code: string, memberId: string, who: Caller): true | MatchError {
    const refused = this.enter("partyLeave", who);
    if (refused) return refused;
    const found = this.member(code, memberId, who);
    if (isMatchError(found)) return found;
    this.drop(found[0], found[1], `${found[1].name || "a member"} left the party`);
    return true;
  }

  /**
   * `POST /match/<kind>/party/<code>/start?member=`: the leader starts the party; answers when
   * every member has a seat in one room (the leader's view, with its seat) or why none has.
   */
  async start(code: string, memberId: string, req: PartyStartRequest, who: Caller): Promise<PartyAnswer | MatchError> {
    const refused = this.enter("partyStart", who);
    if (refused) return refused;
    const found = this.member(code, memberId, who);
    if (isMatchError(found)) return found;
    const [party, leader] = found;
    if (party.members[0] !== leader) return this.seating.refuse(matchError("forbidden", "only the party's leader starts it"));
    if (party.state !== "open") return this.seating.refuse(matchError("locked", `party ${code} is ${party.state} already`));
    const members = party.members.slice();
    const id = this.host.newReservationId();
    let entry: QueueEntry | undefined;
    if (req.queue) {
      const size = this.seating.groupSize;
      if (size === null) return this.seating.refuse(matchError("no_queue", "this kind has no queue"));
      if (members.length > size) return this.seating.refuse(matchError("bad_request", `a party of ${members.length} does not fit the queue's groups of ${size}`));
      const ratings = members.flatMap((m) => (m.rating === undefined ? [] : [m.rating]));
      if (ratings.length === 0) return this.seating.refuse(matchError("bad_request", "a party queues by its members' ratings: give a rating when you make or join it"));
      entry = { queueId: id, identity: `party:${code}`, rating: ratings.reduce((a, b) => a + b, 0) / ratings.length, enqueuedAt: this.host.clock.now(), seats: members.map((m) => ({ identity: m.identity, ...(m.claims ? { claims: m.claims } : {}) })) };
    }
    party.state = "matching";
    party.start = entry ? { id, queueId: id } : { id };
    delete party.error;
    this.book.changed(party);
    let out: HeldSeats | MatchError;
    try {
      out = req.queue ? await this.seating.enqueue(entry!) : await this.seating.seatTogether(req.match, members.map((m): Caller => ({ identity: m.identity, verified: m.verified, ...(m.claims ? { claims: m.claims } : {}) })), party.creation);
    } catch (e) {
      // A start that threw (a seat it could not sign) must not leave the party matching for good.
      out = matchError("unavailable", `the party could not be seated: ${e instanceof Error ? e.message.slice(0, 120) : "error"}`, 1000);
    }
    if (isMatchError(out) && !entry) this.seating.refuse(out);
    return this.settle(party, id, members, leader, out);
  }

  /** `DELETE /match/<kind>/party/<code>/start?member=`: the leader stops the party's wait in the queue. */
  cancel(code: string, memberId: string, who: Caller): true | MatchError {
    const refused = this.enter("partyCancel", who);
    if (refused) return refused;
    const found = this.member(code, memberId, who);
    if (isMatchError(found)) return found;
    const [party, member] = found;
    if (party.members[0] !== member) return this.seating.refuse(matchError("forbidden", "only the party's leader stops its start"));
    const queueId = party.state === "matching" ? party.start?.queueId : undefined;
    if (queueId === undefined) return this.seating.refuse(matchError("not_found", `party ${code} is not waiting in the queue`));
    this.seating.dequeue(queueId, "the party's leader stopped the wait");
    return true;
  }

  // ---- the parts ------------------------------------------------------------------------

  /** The outcome of a start: every member still in the party gets its seat; seats of members gone are given back. */
  private settle(party: PartyRecord, startId: string, members: PartyMemberRecord[], leader: PartyMemberRecord, out: HeldSeats | MatchError): PartyAnswer | MatchError {
    const live = this.book.get(party.code) === party && party.start?.id === startId;
    if (isMatchError(out)) {
      if (live) {
        party.state = "open";
        delete party.start;
        party.error = out;
        this.book.changed(party);
      }
      return out;
    }
    const gone: SeatHold[] = [];
    members.forEach((m, i) => {
      const seat: MemberSeat = { roomId: out.roomId, token: out.tokens[i]!, reservationId: out.reservationIds[i]!, expiresAt: out.expiresAt, created: out.created };
      if (out.group !== undefined) seat.group = out.group;
      if (live && party.members.includes(m)) m.seat = seat;
      else gone.push({ reservationId: seat.reservationId, identity: m.identity });
    });
    if (gone.length > 0) this.seating.release(out.roomId, gone);
    if (!live) return this.seating.refuse(matchError("not_found", `party ${party.code} ended while it was being matched`));
    party.state = "matched";
    delete party.start;
    party.expiresAt = out.expiresAt + MATCHED_GRACE_MS;
    this.counts.matched++;
    this.book.changed(party);
    return party.members.includes(leader) ? viewOf(party, leader) : this.seating.refuse(matchError("not_found", `you left party ${party.code}`));
  }

  /** Takes a member out: its seat (if it has one and has not used it) goes back; a queued start stops. */
  private drop(party: PartyRecord, member: PartyMemberRecord, why: string): void {
    party.members.splice(party.members.indexOf(member), 1);
    if (member.seat) this.seating.release(member.seat.roomId, [{ reservationId: member.seat.reservationId, identity: member.identity }]);
    // A queued party waits as the members it had: with one gone it waits no more.
    if (party.state === "matching" && party.start?.queueId !== undefined) this.seating.dequeue(party.start.queueId, why);
    if (party.members.length === 0) this.book.remove(party.code);
    else this.book.changed(party);
  }

  /** Counts and limits the request, and looks at every party now and then. */
  private enter(op: string, who: Caller): MatchError | null {
    const refused = this.seating.admit(op, who);
    if (refused) return refused;
    const now = this.host.clock.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = now;
      for (const p of [...this.book.all()]) this.tidy(p, now);
    }
    return null;
  }

  /** The party of `code`, tidied (gone when it expired or nobody is left). */
  private party(code: string): PartyRecord | undefined {
    const p = this.book.get(code);
    return p && this.tidy(p, this.host.clock.now()) ? p : undefined;
  }

  /**
   * Drops a party past its time (a forming one's code, a matched one's seats), and a forming
   * party's members who stopped asking about it. False when the party is gone.
   */
  private tidy(party: PartyRecord, now: number): boolean {
    if (party.state !== "matching" && now >= party.expiresAt) {
      this.book.remove(party.code);
      return false;
    }
    if (party.state === "open") {
      for (const m of party.members.slice()) {
        if (now - m.seenAt >= PARTY_MEMBER_IDLE_MS && !this.book.watching(party.code, m.id)) this.drop(party, m, `${m.name || "a member"} went away`);
      }
    }
    return this.book.get(party.code) === party;
  }

  /** A member of a party, named by its id (and, if it was verified, by the same identity), seen now. */
  private member(code: string, memberId: string, who: Caller): [PartyRecord, PartyMemberRecord] | MatchError {
    const party = this.party(code);
    if (!party) return this.seating.refuse(noParty(code));
    const m = party.members.find((x) => x.id === memberId);
    if (!m || (m.verified && (!who.verified || who.identity !== m.identity))) return this.seating.refuse(matchError("not_found", `you are not in party ${code}`));
    m.seenAt = this.host.clock.now();
    return [party, m];
  }

  private newMember(req: PartyJoinRequest, who: Caller, now: number): PartyMemberRecord {
    const m: PartyMemberRecord = { id: this.host.newReservationId(), identity: who.identity, verified: who.verified, name: req.name, seenAt: now };
    if (who.claims) m.claims = who.claims;
    if (req.rating !== undefined) m.rating = req.rating;
    return m;
  }

  private newCode(): string {
    return this.host.newPartyCode?.() ?? newPartyCodeFor(0, 1);
  }
}

function noParty(code: string): MatchError {
  return matchError("not_found", `no party ${code} (the code is wrong, or the party ended)`);
}

/** A party as `member` sees it. */
function viewOf(party: PartyRecord, member: PartyMemberRecord): PartyAnswer {
  const leader = party.members[0];
  const view: PartyAnswer = {
    code: party.code,
    member: member.id,
    version: party.version,
    state: party.state,
    members: party.members.map((m) => ({ name: m.name, ...(m.rating !== undefined ? { rating: m.rating } : {}), leader: m === leader, you: m === member })),
    maxSize: party.maxSize,
    expiresAt: party.expiresAt,
  };
  if (member.seat) {
    const { reservationId: _, ...seat } = member.seat;
    view.seat = seat;
  }
  if (party.error) view.error = party.error;
  return view;
}
