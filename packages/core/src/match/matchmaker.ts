import {
  isMatchError,
  matchError,
  matchesFilters,
  type MatchError,
  type MatchErrorCode,
  type MatchFilters,
  type MatchRequest,
  type QueueRequest,
  type RoomListing,
  type RoomMetadata,
} from "@tikron/protocol";
import type { Clock } from "../clock";
import { DurationStats, type DurationSummary } from "../durationStats";
import { TokenBucket } from "../tokenBucket";
import type { ResolvedMatchmaking } from "./matchmakingSpec";
import type { PartyStore } from "./parties";
import { PartyDesk } from "./partyDesk";
import { QueueDesk } from "./queueDesk";
import { RoomDirectory, type DirectoryEntry } from "./roomDirectory";
import { toListing, type RoomStatus } from "./roomStatus";
import { NO_OVERRIDES, type RoomCreation, type RoomPort, type SeatHold, type SeatRequest } from "./roomPort";
import type { Caller, HeldSeats, ReservedSeat } from "./seats";

/** Where a matchmaker keeps its directory across restarts (a host may keep none). */
export interface DirectoryStore {
  /** Every status saved (called once, before the first request). */
  load(): Promise<RoomStatus[]>;
  /** Saves a room's status (written behind; the host decides when it is durable). */
  put(status: RoomStatus): void;
  /** Forgets a room. */
  delete(roomId: string): void;
}

/** What a matchmaker needs from its host. */
export interface MatchmakerHost {
  /** The rooms' seat authority. */
  rooms: RoomPort;
  /** The matchmaker's clock (timers: reservations' lifetimes, the queue). */
  clock: Clock;
  /** Directory persistence; omitted: the directory lives in memory only. */
  store?: DirectoryStore;
  /** A fresh room id (unguessable: private rooms are joined by id alone). */
  newRoomId(): string;
  /** A fresh reservation id (unguessable). */
  newReservationId(): string;
  /** Signs a reservation: the token a client joins with, and its ticket back into the room. */
  signSeat(seat: { roomId: string; identity: string; reservationId: string }): Promise<string>;
  /** The seat cap of a room created with `overrides` (the kind's defaults layered with them). */
  capFor(overrides: RoomCreation["overrides"]): number;
  /** Where parties are kept across restarts; omitted: in memory only. */
  partyStore?: PartyStore;
  /** A fresh party code (unguessable; on a sharded kind, one of this shard's). Default: any code. */
  newPartyCode?(): string;
}

/** Counters behind a matchmaker's stats. */
export interface MatchmakerStats {
  /** The rooms the directory holds (DEV_MODE stats, tests); not filled by {@link Matchmaker.stats}. */
  directory?: RoomStatus[];
  /** Requests by operation (`match`, `joinById`, `queue`, `cancel`, `rooms`). */
  requests: Record<string, number>;
  /** Seats reserved and answered. */
  seated: number;
  /** Rooms created. */
  roomsCreated: number;
  /** Seat requests a room refused (the matchmaker then tried another). */
  roomRefusals: number;
  /** Answers refused, by code. */
  refused: Partial<Record<MatchErrorCode, number>>;
  /** Rooms in the directory. */
  rooms: number;
  /** Players waiting in the queue. */
  queued: number;
  /** Queue groups seated. */
  groups: number;
  /** Parties held now, made, and matched. */
  parties: {
    /** Held now (forming, matching, or matched and not yet ended). */
    held: number;
    /** Made since the matchmaker started. */
    made: number;
    /** Matched (every member seated in one room) since it started. */
    matched: number;
  };
  /** Time from a match request to its answer (ms), reserve round trips included. */
  decision: DurationSummary;
}

/** Rooms one request asks before it creates one (or answers `no_room`). */
const MAX_TRIES = 5;
/**
 * How often rooms that stopped refreshing are looked for: on a request or a report, never by a
 * timer (a pending timer would keep a matchmaker object awake, and billed, with nothing to do).
 */
const EXPIRE_EVERY_MS = 30_000;
/** Rate-limit keys kept before idle ones are swept. */
const SWEEP_ABOVE = 4096;

function oneSeat(held: HeldSeats): ReservedSeat {
  const seat: ReservedSeat = { roomId: held.roomId, token: held.tokens[0]!, expiresAt: held.expiresAt, created: held.created };
  if (held.group !== undefined) seat.group = held.group;
  return seat;
}

/**
 * The matchmaker of one game kind: decides which room a player goes to and has that room reserve
 * the seat before it answers. Rooms are the authority for their seats (a room refuses anything
 * past its cap, whatever this believes); the directory here only steers: it counts the seat
 * requests in flight so concurrent requests spread over free seats instead of racing for one,
 * fills the fullest matching room first, and creates a room only when none has a free seat.
 * Runtime-agnostic: a Durable Object hosts one per kind on Cloudflare, the Node host one per
 * kind in process.
 */
export class Matchmaker {
  private readonly directory = new RoomDirectory();
  private readonly queue: QueueDesk | null;
  private expiredAt: number;
  private readonly limits = new Map<string, TokenBucket>();
  private readonly counters: Omit<MatchmakerStats, "rooms" | "queued" | "decision" | "parties"> = {
    requests: {},
    seated: 0,
    roomsCreated: 0,
    roomRefusals: 0,
    refused: {},
    groups: 0,
  };
  private readonly decision = new DurationStats();
  private disposed = false;
  /** Parties of this kind: made, joined, watched, started into a room or the queue (`PartyDesk`). */
  readonly parties: PartyDesk;

  constructor(
    /** The kind matched. */
    readonly kind: string,
    private readonly spec: ResolvedMatchmaking,
    private readonly host: MatchmakerHost,
  ) {
    this.queue = spec.queue
      ? new QueueDesk(spec.queue, host.clock, {
          seatGroup: async (callers) => this.create({ filters: {}, options: {}, private: true }, callers, NO_OVERRIDES),
          refuse: (err) => void this.refuse(err),
          grouped: () => void this.counters.groups++,
        })
      : null;
    this.expiredAt = host.clock.now();
    this.parties = new PartyDesk(host, {
      admit: (op, who) => {
        this.expireRooms(host.clock.now());
        this.count(op);
        const limited = this.rateLimited(who, host.clock.now());
        return limited && this.refuse(limited);
      },
      refuse: (err) => this.refuse(err),
      seatTogether: (req, callers, creation) => this.seatTogether(req, callers, creation),
      enqueue: (entry) => (this.queue ? this.queue.enqueue(entry) : Promise.resolve(this.refuse(matchError("no_queue", `${kind} has no queue`)))),
      dequeue: (queueId, reason) => this.queue?.dequeue(queueId, reason),
      release: (roomId, seats) => this.release(roomId, seats),
      groupSize: spec.queue?.groupSize ?? null,
    });
  }

  /** Loads the directory and the parties from the host's stores; call once before the first request. */
  async load(): Promise<void> {
    await this.parties.load();
    if (!this.host.store) return;
    const now = this.host.clock.now();
    for (const s of await this.host.store.load()) this.directory.apply(s, now);
  }

  /** A room's report: its seats, reservations, metadata or lock changed. */
  report(status: RoomStatus): void {
    this.record(status);
  }

  /**
   * `POST /match/<kind>`: a seat in the fullest public, unlocked room matching the filters
   * (`join`, `joinOrCreate`), or in a new room (`create`, and `joinOrCreate` when none fits).
   */
  async match(req: MatchRequest, who: Caller, creation: RoomCreation = NO_OVERRIDES): Promise<ReservedSeat | MatchError> {
    return this.answer("match", who, async () => {
      const held = await this.seatTogether(req, [who], creation);
      return isMatchError(held) ? held : oneSeat(held);
    });
  }

  /** `POST /match/<kind>/<roomId>`: a seat in a known room, private ones included. */
  async joinById(roomId: string, who: Caller): Promise<ReservedSeat | MatchError> {
    return this.answer("joinById", who, async () => {
      const known = this.directory.get(roomId);
      const e = known ?? this.directory.addCreating(unknownRoom(roomId), this.host.clock.now());
      const held = await this.reserveIn(e, [who], true);
      if (!isMatchError(held)) return oneSeat(held);
      if (!known && this.directory.get(roomId) === e && e.inflight === 0 && e.status.version[0] === 0) this.directory.remove(roomId);
      return held;
    });
  }

  /**
   * `GET /match/<kind>/rooms`: public, unlocked rooms with a free seat, matching the filters (and,
   * given `overrides`, made with those DEV_MODE overrides).
   */
  list(filters: MatchFilters, overrides?: string): RoomListing[] | MatchError {
    this.count("rooms");
    this.expireRooms(this.host.clock.now());
    const bad = this.checkFilterKeys(filters);
    if (bad) return bad;
    return this.directory.available(filters, overrides).map((e) => toListing(e.status));
  }

  /**
   * `POST /match/<kind>/queue`: waits until the player is grouped with `groupSize − 1` others
   * within the rating window, then answers a seat in the group's new room; or `queue_timeout`,
   * or `cancelled` (by {@link cancel}, or by the same identity queueing again).
   */
  async queueFor(req: QueueRequest, who: Caller): Promise<ReservedSeat | MatchError> {
    const started = this.host.clock.now();
    this.count("queue");
    if (!this.queue) return this.refuse(matchError("no_queue", `${this.kind} has no queue`));
    const limited = this.rateLimited(who, started);
    if (limited) return this.refuse(limited);
    const held = await this.queue.enqueue({ queueId: req.queueId, identity: who.identity, rating: req.rating, enqueuedAt: started, ...(who.claims ? { claims: who.claims } : {}) });
    if (isMatchError(held)) return held;
    this.decision.record(this.host.clock.now() - started);
    return oneSeat(held);
  }

  /** `DELETE /match/<kind>/queue/<queueId>`: false when nothing of the caller's waits under that id. */
  cancel(queueId: string, who: Caller): boolean {
    this.count("cancel");
    const e = this.queue?.get(queueId);
    // A verified identity cancels only its own wait; an anonymous caller's capability is the id.
    if (!e || (who.verified && e.identity !== who.identity)) return false;
    this.queue!.dequeue(queueId, "cancelled");
    return true;
  }

  /** Counters, the directory's size and decision times. */
  stats(): Omit<MatchmakerStats, "directory"> {
    const parties = { held: this.parties.size, ...this.parties.counts };
    return { ...this.counters, rooms: this.directory.size, queued: this.queue?.size ?? 0, parties, decision: this.decision.summary() };
  }

  /** The directory's entries (tests, DEV_MODE stats). */
  rooms(): readonly DirectoryEntry[] {
    return [...this.directory.entries()];
  }

  /** Stops timers and every decision in flight; every queued player is answered `unavailable`. */
  dispose(): void {
    this.disposed = true;
    this.parties.dispose();
    this.queue?.dispose();
  }

  // ---- deciding -------------------------------------------------------------------------

  private async answer(op: string, who: Caller, decide: () => Promise<ReservedSeat | MatchError>): Promise<ReservedSeat | MatchError> {
    const started = this.host.clock.now();
    this.expireRooms(started);
    this.count(op);
    const limited = this.rateLimited(who, started);
    if (limited) return this.refuse(limited);
    const out = await decide();
    if (isMatchError(out)) return this.refuse(out);
    this.decision.record(this.host.clock.now() - started);
    return out;
  }

  /**
   * Seats every caller in one room, all or none: the fullest public, unlocked room matching the
   * filters with a free seat for each (`join`, `joinOrCreate`), or a new room (`create`, and
   * `joinOrCreate` when none fits).
   */
  private async seatTogether(req: MatchRequest, callers: readonly Caller[], creation: RoomCreation): Promise<HeldSeats | MatchError> {
    const bad = this.checkFilterKeys(req.filters);
    if (bad) return bad;
    if (req.mode !== "create") {
      const tried = new Set<string>();
      for (let i = 0; i < MAX_TRIES; i++) {
        const e = this.directory.pick(req.filters, creation.key, callers.length, tried);
        if (!e) break;
        tried.add(e.status.roomId);
        const held = await this.reserveIn(e, callers, false);
        if (!isMatchError(held)) return held;
        if (held.code === "unavailable") return held;
      }
      if (req.mode === "join") return matchError("no_room", callers.length > 1 ? `no open room matches with ${callers.length} free seats` : "no open room matches");
    }
    return this.create(req, callers, creation);
  }

  /** A new room for `callers` (one request, a party, or a queue group), with a seat reserved for each. */
  private async create(req: Pick<MatchRequest, "filters" | "options" | "private">, callers: readonly Caller[], creation: RoomCreation): Promise<HeldSeats | MatchError> {
    let metadata: RoomMetadata;
    try {
      metadata = this.spec.metadata({ ...equalityFilters(req.filters), ...req.options });
    } catch (e) {
      return matchError("bad_options", e instanceof Error ? e.message.slice(0, 200) : "options refused");
    }
    if (!matchesFilters(metadata, req.filters)) return matchError("bad_options", "a room made with these options would not match the request's filters");
    const now = this.host.clock.now();
    const status: RoomStatus = {
      roomId: this.host.newRoomId(),
      clients: 0,
      bots: 0,
      reserved: 0,
      maxClients: this.host.capFor(creation.overrides),
      metadata,
      locked: false,
      private: req.private,
      createdAt: now,
      version: [0, 0],
      overrides: creation.key,
      refreshMs: 0,
    };
    if (callers.length > status.maxClients) return matchError("bad_request", `a group of ${callers.length} does not fit a room of ${status.maxClients}`);
    const e = this.directory.addCreating(status, now);
    const held = await this.reserveIn(e, callers, true, { metadata, private: req.private, creation });
    if (isMatchError(held)) {
      // The room was never made (or refused its first seats): it is not a room to steer to.
      if (this.directory.get(status.roomId) === e && e.inflight === 0 && e.status.version[0] === 0) this.directory.remove(status.roomId);
      return held;
    }
    this.counters.roomsCreated++;
    return { ...held, created: true };
  }

  /**
   * Asks the room of `e` to reserve a seat for each caller (all or none). The seats count as in
   * flight while the room answers, so requests that arrive meanwhile go elsewhere; the room's
   * answer (its status) replaces this side's view whatever it says. Returns one signed token
   * per caller, in order.
   */
  private async reserveIn(e: DirectoryEntry, callers: readonly Caller[], byId: boolean, create?: SeatRequest["create"]): Promise<HeldSeats | MatchError> {
    const roomId = e.status.roomId;
    const seats = callers.map((c) => ({ reservationId: this.host.newReservationId(), identity: c.identity, ...(c.claims ? { claims: c.claims } : {}) }));
    const req: SeatRequest = { roomId, seats, ttlMs: this.spec.reservationTtlMs, byId, ...(create ? { create } : {}) };
    e.inflight += seats.length;
    let answer;
    try {
      answer = await this.host.rooms.reserve(req);
    } catch (err) {
      return matchError("unavailable", `room ${roomId} did not answer: ${err instanceof Error ? err.message.slice(0, 120) : "error"}`, 500);
    } finally {
      e.inflight -= seats.length;
    }
    // A matchmaker disposed meanwhile (its object reset) decides nothing more: the seats the room
    // may hold now are given up when their lifetime ends.
    if (this.disposed) return matchError("unavailable", "the matchmaker restarted; retry", 500);
    if (answer.status) this.record(answer.status);
    if (!answer.ok) {
      this.counters.roomRefusals++;
      if (answer.code !== "not_found") return matchError(answer.code, answer.reason);
      // Not found without a status: the room does not exist (any more); with one it is private.
      if (!answer.status) this.forget(roomId);
      return matchError("not_found", `no room ${roomId}`);
    }
    const expiresAt = this.host.clock.now() + this.spec.reservationTtlMs;
    const tokens = await Promise.all(seats.map((s) => this.host.signSeat({ roomId, identity: s.identity, reservationId: s.reservationId })));
    this.counters.seated += seats.length;
    return { roomId, tokens, reservationIds: seats.map((s) => s.reservationId), expiresAt, created: false };
  }

  /** Has a room give back seats it holds unused (a party member left); the directory takes its answer. */
  private release(roomId: string, seats: SeatHold[]): void {
    const release = this.host.rooms.release;
    if (!release) return;
    release
      .call(this.host.rooms, { roomId, seats })
      .then((status) => {
        if (status && !this.disposed) this.record(status);
      })
      // An unreachable room keeps the seats until they expire: nothing else to do.
      .catch(() => {});
  }

  private record(status: RoomStatus): void {
    const now = this.host.clock.now();
    this.expireRooms(now);
    const r = this.directory.apply(status, now);
    if (r === "added" || r === "updated") this.host.store?.put(status);
    else if (r === "removed") this.host.store?.delete(status.roomId);
  }

  private forget(roomId: string): void {
    const e = this.directory.get(roomId);
    if (e && e.inflight === 0) {
      this.directory.remove(roomId);
      this.host.store?.delete(roomId);
    }
  }

  private checkFilterKeys(filters: MatchFilters): MatchError | null {
    for (const k in filters) {
      if (!this.spec.filterBy.includes(k)) return matchError("bad_filter", `${this.kind} rooms are not filtered by "${k}" (filterable: ${this.spec.filterBy.join(", ") || "none"})`);
    }
    return null;
  }

  // ---- bookkeeping ----------------------------------------------------------------------

  /** Drops rooms that stopped refreshing, at most every {@link EXPIRE_EVERY_MS}. */
  private expireRooms(now: number): void {
    if (now - this.expiredAt < EXPIRE_EVERY_MS) return;
    this.expiredAt = now;
    for (const id of this.directory.expire(now)) this.host.store?.delete(id);
  }


  private rateLimited(who: Caller, now: number): MatchError | null {
    const key = who.rateKey;
    if (key === undefined) return null;
    let b = this.limits.get(key);
    if (!b) {
      if (this.limits.size >= SWEEP_ABOVE) {
        for (const [k, v] of this.limits) if (v.waitMs(now, this.spec.requestBurst) === 0) this.limits.delete(k);
      }
      b = new TokenBucket(this.spec.requestsPerSec, this.spec.requestBurst, now);
      this.limits.set(key, b);
    }
    if (b.take(now)) return null;
    return matchError("rate_limited", "too many match requests; retry later", Math.max(100, b.waitMs(now)));
  }

  private count(op: string): void {
    this.counters.requests[op] = (this.counters.requests[op] ?? 0) + 1;
  }

  private refuse(err: MatchError): MatchError {
    this.counters.refused[err.code] = (this.counters.refused[err.code] ?? 0) + 1;
    return err;
  }
}

/** The equality filters of a request: a new room is made with them laid under its options. */
function equalityFilters(filters: MatchFilters): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in filters) if (typeof filters[k] !== "object") out[k] = filters[k];
  return out;
}

/** A placeholder for a room joined by id that this directory has not heard of. */
function unknownRoom(roomId: string): RoomStatus {
  return { roomId, clients: 0, bots: 0, reserved: 0, maxClients: Number.MAX_SAFE_INTEGER, metadata: {}, locked: false, private: true, createdAt: 0, version: [0, 0], overrides: "", refreshMs: 0 };
}
