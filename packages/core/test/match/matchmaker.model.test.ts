/**
 * The matchmaker and real rooms under random concurrent steps (fast-check commands): match
 * requests whose seat requests reach their rooms in any order (or fail), joins with and without
 * reservations, leaves, drops, time passing, status reports delivered late, locks, private
 * rooms, queues, parties (made, joined, watched, left, started into a room or the queue, members
 * going idle) and matchmaker restarts. After every step the invariants the matchmaker promises
 * are checked against the rooms themselves (the truth), not against the matchmaker's view.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryWriter, CloseCode, PROTOCOL_VERSION, encodeHello, encodeLeave, isMatchError, matchesFilters, type MatchFilters, type MatchMode } from "@tikron/protocol";
import { FakeClock, Room } from "../../src";
import { Matchmaker, NO_OVERRIDES, PARTY_MEMBER_IDLE_MS, resolveMatchmaking, type DirectoryStore, type PartyRecord, type PartyStore, type ReservedSeat, type RoomStatus, type SeatAnswer, type SeatRequest } from "../../src/match";
import { CounterGame, FakeConnection } from "../fakes";
import { PartyModel, settle } from "./modelParties";

const CAP = 4;
const TTL = 1000;
const GROUP = 3;
const FILTERS: MatchFilters[] = [{}, { mode: "a" }, { mode: "b" }];

interface PendingCall {
  req: SeatRequest;
  resolve(a: SeatAnswer): void;
  reject(e: Error): void;
}
interface Made {
  roomId: string;
  reservationId: string;
  identity: string;
  madeAt: number;
  used: boolean;
  /** Given back by the matchmaker (a party member left). */
  released: boolean;
  /** The seat request that made it (all of a request's seats are made at once). */
  request: number;
}

interface Answered {
  identity: string;
  seat: ReservedSeat;
  joined: boolean;
}
interface Client {
  roomId: string;
  connId: number;
  conn: FakeConnection;
  open: boolean;
}

const w = new BinaryWriter();
const hello = () => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: "p" }).toBytes();

/** The world: the matchmaker, the rooms it can reach, and what the test knows happened. */
class World {
  readonly clock = new FakeClock();
  readonly rooms = new Map<string, { room: Room; game: CounterGame }>();
  /** Rooms whose latest change has not been reported to the matchmaker yet. */
  readonly dirty = new Set<string>();
  readonly calls: PendingCall[] = [];
  /** Every port call ever made, by caller identity: what each request tried. */
  readonly tried = new Map<string, Set<string>>();
  readonly made: Made[] = [];
  readonly answered: Answered[] = [];
  readonly clients: Client[] = [];
  readonly queued = new Map<string, string>();
  readonly stored = new Map<string, RoomStatus>();
  readonly storedParties = new Map<string, PartyRecord>();
  readonly parties = new PartyModel(this, CAP, FILTERS);
  private requests = 0;
  readonly violations: string[] = [];
  private nextId = 0;
  private generation = 0;
  mm: Matchmaker;

  constructor() {
    this.mm = this.makeMatchmaker();
  }

  /** A fresh number for an identity, a room id or a reservation id. */
  id(): number {
    return this.nextId++;
  }

  makeMatchmaker(): Matchmaker {
    const generation = ++this.generation;
    const live = () => generation === this.generation;
    const store: DirectoryStore = {
      load: async () => [...this.stored.values()],
      // A reset object writes nothing more: only the live matchmaker reaches storage.
      put: (s) => void (live() && this.stored.set(s.roomId, s)),
      delete: (id) => void (live() && this.stored.delete(id)),
    };
    const partyStore: PartyStore = {
      load: async () => [...this.storedParties.values()].map((p) => structuredClone(p)),
      put: (p) => void (live() && this.storedParties.set(p.code, structuredClone(p))),
      delete: (code) => void (live() && this.storedParties.delete(code)),
    };
    const spec = resolveMatchmaking({ filterBy: ["mode"], reservationTtlMs: TTL, queue: { groupSize: GROUP, ratingWindow: { initial: 100, widenPerSec: 200, max: 1000 }, timeoutMs: 5000 } });
    return new Matchmaker("counter", spec, {
      clock: this.clock,
      store,
      partyStore,
      rooms: { reserve: (req) => this.reserve(req), release: async (req) => this.release(req.roomId, req.seats) },
      newRoomId: () => `room${this.nextId++}`,
      newPartyCode: () => `P${String(this.nextId++).padStart(9, "0")}`,
      newReservationId: () => `res-${String(this.nextId++).padStart(16, "0")}`,
      signSeat: async (s) => `${s.roomId}|${s.identity}|${s.reservationId}`,
      capFor: () => CAP,
    });
  }

  /** The port: a seat request waits until a step delivers it (any order), or fails it. */
  private reserve(req: SeatRequest): Promise<SeatAnswer> {
    for (const s of req.seats) {
      let t = this.tried.get(s.identity);
      if (!t) this.tried.set(s.identity, (t = new Set()));
      t.add(req.roomId);
    }
    // A queue group's room is private and always new: only joinOrCreate's public rooms are checked.
    if (req.create && !req.create.private && this.requestMode.get(req.seats[0]!.identity) === "joinOrCreate") this.checkCreation(req);
    return new Promise((resolve, reject) => this.calls.push({ req, resolve, reject }));
  }

  /**
   * The creation invariant: no room is created while a live room that matches had a free seat for
   * every seat asked (a player's one, a party's all), the matchmaker had been told so (its last
   * report delivered), no seat request to it was in flight, and this request had not been refused
   * by it already (racing explains those).
   */
  private checkCreation(req: SeatRequest): void {
    const identity = req.seats[0]!.identity;
    const filters = this.requestFilters.get(identity) ?? {};
    for (const [id, { room }] of this.rooms) {
      const s = room.status();
      if (s.private || s.locked || s.overrides !== "" || !matchesFilters(s.metadata, filters)) continue;
      // An empty room has left the directory (like a disposed room); it is not a room to fill.
      if (s.clients + s.reserved === 0 || s.clients + s.reserved + req.seats.length > s.maxClients || this.dirty.has(id)) continue;
      if (this.calls.some((c) => c.req.roomId === id) || this.tried.get(identity)?.has(id)) continue;
      this.violations.push(`created ${req.roomId} for ${identity} while ${id} had a free seat (${s.clients}+${s.reserved}/${s.maxClients})`);
    }
  }

  readonly requestFilters = new Map<string, MatchFilters>();
  readonly requestMode = new Map<string, MatchMode>();

  deliver(i: number, fail: boolean): void {
    if (this.calls.length === 0) return;
    const [call] = this.calls.splice(i % this.calls.length, 1);
    const { req } = call!;
    if (fail) return call!.reject(new Error("unreachable"));
    let r = this.rooms.get(req.roomId);
    if (!r && req.create) {
      const game = new CounterGame();
      const roomId = req.roomId;
      const room = new Room({
        kind: "counter",
        roomId,
        game,
        clock: this.clock,
        options: { cap: CAP, reconnectWindowMs: 2000, tickMs: 50 },
        listing: { metadata: req.create.metadata, private: req.create.private, overrides: req.create.creation.key },
        hooks: { onStatusChange: () => this.dirty.add(roomId) },
      });
      r = { room, game };
      this.rooms.set(roomId, r);
    }
    if (!r) return call!.resolve({ ok: false, code: "not_found", reason: "no room" });
    const answer = r.room.reserveSeats(req);
    const request = this.requests++;
    if (answer.ok) for (const s of req.seats) this.made.push({ roomId: req.roomId, reservationId: s.reservationId, identity: s.identity, madeAt: this.clock.now(), used: false, released: false, request });
    call!.resolve(answer);
  }

  /** The port's release: the room gives the seats back at once (what it answers is its status). */
  private release(roomId: string, seats: { reservationId: string; identity: string }[]): RoomStatus | null {
    const r = this.rooms.get(roomId);
    if (!r) return null;
    const pending = new Set(r.room.pendingReservations().map((p) => p.id));
    for (const s of seats) {
      const m = this.made.find((x) => x.reservationId === s.reservationId);
      if (m && pending.has(s.reservationId)) m.released = true;
    }
    return r.room.releaseSeats(seats);
  }

  reportAll(): void {
    for (const id of [...this.dirty]) {
      this.dirty.delete(id);
      const r = this.rooms.get(id);
      if (r) this.mm.report(r.room.status());
    }
  }

  match(mode: MatchMode, f: number): void {
    const identity = `p${this.nextId++}`;
    const filters = FILTERS[f % FILTERS.length]!;
    this.requestFilters.set(identity, filters);
    this.requestMode.set(identity, mode);
    void this.mm.match({ mode, filters, options: {}, private: false }, { identity, verified: true }).then((out) => {
      if (isMatchError(out)) return;
      // A seat always lands in a room that matches the request's filters.
      const s = this.rooms.get(out.roomId)?.room.status();
      if (!s || !matchesFilters(s.metadata, filters)) this.violations.push(`${identity} seated in ${out.roomId}, which does not match ${JSON.stringify(filters)}`);
      this.answered.push({ identity, seat: out, joined: false });
    });
  }

  joinById(roomIndex: number): void {
    const ids = [...this.rooms.keys()];
    if (ids.length === 0) return;
    const identity = `p${this.nextId++}`;
    void this.mm.joinById(ids[roomIndex % ids.length]!, { identity, verified: true }).then((out) => {
      if (!isMatchError(out)) this.answered.push({ identity, seat: out, joined: false });
    });
  }

  queue(rating: number): void {
    const identity = `p${this.nextId++}`;
    const queueId = `q${this.nextId++}`;
    this.queued.set(queueId, identity);
    void this.mm.queueFor({ rating, queueId }, { identity, verified: true }).then((out) => {
      this.queued.delete(queueId);
      if (isMatchError(out)) return;
      if (out.group !== GROUP) this.violations.push(`queue group of ${out.group}, not ${GROUP}`);
      this.answered.push({ identity, seat: out, joined: false });
    });
  }

  cancel(i: number): void {
    const ids = [...this.queued.keys()];
    if (ids.length > 0) this.mm.cancel(ids[i % ids.length]!, { identity: this.queued.get(ids[i % ids.length]!)!, verified: true });
  }

  /** A client joins with a seat it was answered: welcomed exactly while the reservation is held. */
  joinWithSeat(i: number): void {
    const open = this.answered.filter((a) => !a.joined);
    if (open.length === 0) return;
    const a = open[i % open.length]!;
    a.joined = true;
    const [roomId, identity, reservationId] = a.seat.token.split("|") as [string, string, string];
    const r = this.rooms.get(roomId)!;
    const made = this.made.find((m) => m.reservationId === reservationId);
    const conn = new FakeConnection();
    const connId = r.room.open(conn, identity, undefined, reservationId);
    r.room.message(connId, hello());
    const welcomed = conn.messages().some((m) => m.kind === "welcome");
    const held = made !== undefined && !made.used && !made.released && this.clock.now() < made.madeAt + TTL;
    if (welcomed !== held) this.violations.push(`join with ${reservationId} (made ${made?.madeAt}, now ${this.clock.now()}): welcomed ${welcomed}, expected ${held}`);
    if (!welcomed && conn.closedWith?.code !== CloseCode.reservation_invalid) this.violations.push(`refused join closed ${conn.closedWith?.code}`);
    if (made && welcomed) made.used = true;
    if (welcomed) this.clients.push({ roomId, connId, conn, open: true });
  }

  /** A client without a reservation joins a room directly: welcomed exactly when a seat is free. */
  joinDirect(roomIndex: number): void {
    const ids = [...this.rooms.keys()];
    if (ids.length === 0) return;
    const roomId = ids[roomIndex % ids.length]!;
    const r = this.rooms.get(roomId)!;
    const before = r.room.status();
    const conn = new FakeConnection();
    const connId = r.room.open(conn);
    r.room.message(connId, hello());
    const welcomed = conn.messages().some((m) => m.kind === "welcome");
    const free = !before.locked && before.clients + before.reserved < before.maxClients;
    if (welcomed !== free) this.violations.push(`direct join into ${roomId} (${before.clients}+${before.reserved}/${before.maxClients}, locked ${before.locked}): welcomed ${welcomed}`);
    if (welcomed) this.clients.push({ roomId, connId, conn, open: true });
  }

  leave(i: number, drop: boolean): void {
    const open = this.clients.filter((c) => c.open);
    if (open.length === 0) return;
    const c = open[i % open.length]!;
    c.open = false;
    const room = this.rooms.get(c.roomId)!.room;
    if (drop) room.closed(c.connId, 1006);
    else room.message(c.connId, encodeLeave(w.reset()).toBytes());
  }

  setLock(roomIndex: number, locked: boolean, priv: boolean): void {
    const ids = [...this.rooms.keys()];
    if (ids.length === 0) return;
    const g = this.rooms.get(ids[roomIndex % ids.length]!)!.game;
    if (locked) g.ctx.lock();
    else g.ctx.unlock();
    g.ctx.setPrivate(priv);
  }

  async restart(): Promise<void> {
    this.mm.dispose();
    this.mm = this.makeMatchmaker();
    this.parties.restarted();
    await this.mm.load();
  }

  /** The invariants, against the rooms' own state. */
  check(): void {
    const now = this.clock.now();
    for (const [id, { room }] of this.rooms) {
      const s = room.status();
      if (s.clients + s.reserved > s.maxClients) this.violations.push(`${id}: ${s.clients} seated + ${s.reserved} reserved > cap ${s.maxClients}`);
      // Every pending reservation is one made less than its lifetime ago and not used yet.
      const live = this.made.filter((m) => m.roomId === id && !m.used && now < m.madeAt + TTL).length;
      if (s.reserved > live) this.violations.push(`${id}: ${s.reserved} reservations pending, only ${live} made within ${TTL} ms and unused`);
    }
    // Restarts lose no room: every live room whose last report arrived is in the directory.
    const known = new Set(this.mm.rooms().map((e) => e.status.roomId));
    for (const [id, { room }] of this.rooms) {
      const s = room.status();
      if (!this.dirty.has(id) && s.clients + s.reserved > 0 && !known.has(id)) this.violations.push(`${id} (${s.clients}+${s.reserved}) is missing from the directory`);
    }
    const listed = this.mm.list({});
    if (isMatchError(listed)) throw new Error(listed.reason);
    for (const l of listed) {
      if (this.dirty.has(l.roomId)) continue;
      const s = this.rooms.get(l.roomId)?.room.status();
      if (s && (s.private || s.locked)) this.violations.push(`${l.roomId} listed while ${s.private ? "private" : "locked"}`);
    }
  }
}


/** One step, as data (so a failing case prints readably), and how the world takes it. */
type Step =
  | { t: "match"; mode: MatchMode; f: number }
  | { t: "deliver"; i: number; fail: boolean }
  | { t: "joinSeat"; i: number }
  | { t: "joinDirect"; i: number }
  | { t: "joinById"; i: number }
  | { t: "leave"; i: number; drop: boolean }
  | { t: "report" }
  | { t: "advance"; ms: number }
  | { t: "lock"; i: number; locked: boolean; priv: boolean }
  | { t: "queue"; rating: number }
  | { t: "cancel"; i: number }
  | { t: "restart" }
  | { t: "partyCreate"; rating: number }
  | { t: "partyJoin"; i: number; rating: number }
  | { t: "partyStart"; i: number; j: number; mode: MatchMode | "queue"; f: number }
  | { t: "partyWatch"; i: number; j: number }
  | { t: "partyLeave"; i: number; j: number }
  | { t: "idle" };

async function take(w: World, s: Step): Promise<void> {
  switch (s.t) {
    case "match":
      return w.match(s.mode, s.f);
    case "deliver":
      return w.deliver(s.i, s.fail);
    case "joinSeat":
      return w.joinWithSeat(s.i);
    case "joinDirect":
      return w.joinDirect(s.i);
    case "joinById":
      return w.joinById(s.i);
    case "leave":
      return w.leave(s.i, s.drop);
    case "report":
      return w.reportAll();
    case "advance":
      return w.clock.advance(s.ms);
    case "lock":
      return w.setLock(s.i, s.locked, s.priv);
    case "queue":
      return w.queue(s.rating);
    case "cancel":
      return w.cancel(s.i);
    case "restart":
      return w.restart();
    case "partyCreate":
      return w.parties.create(s.rating);
    case "partyJoin":
      return w.parties.join(s.i, s.rating);
    case "partyStart":
      return w.parties.start(s.i, s.j, s.mode, s.f);
    case "partyWatch":
      return w.parties.watch(s.i, s.j);
    case "partyLeave":
      return w.parties.leave(s.i, s.j);
    case "idle":
      // Half a member's idle time (every reservation lapses): a member quiet through two of these is dropped.
      return w.clock.advance(PARTY_MEMBER_IDLE_MS / 2 + 1);
  }
}

/** Every kind of step, and how often each comes in a run of the original mix (weights). */
const STEPS: Record<Step["t"], [number, fc.Arbitrary<Step>]> = {
  match: [6, fc.record({ t: fc.constant("match" as const), mode: fc.constantFrom<MatchMode>("joinOrCreate", "joinOrCreate", "join", "create"), f: fc.nat(2) })],
  deliver: [8, fc.record({ t: fc.constant("deliver" as const), i: fc.nat(9), fail: fc.nat(9).map((n) => n === 0) })],
  joinSeat: [5, fc.record({ t: fc.constant("joinSeat" as const), i: fc.nat(9) })],
  joinDirect: [1, fc.record({ t: fc.constant("joinDirect" as const), i: fc.nat(9) })],
  joinById: [1, fc.record({ t: fc.constant("joinById" as const), i: fc.nat(9) })],
  leave: [2, fc.record({ t: fc.constant("leave" as const), i: fc.nat(9), drop: fc.boolean() })],
  report: [3, fc.constant({ t: "report" as const })],
  advance: [2, fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 1500 }) })],
  lock: [1, fc.record({ t: fc.constant("lock" as const), i: fc.nat(9), locked: fc.boolean(), priv: fc.boolean() })],
  queue: [2, fc.record({ t: fc.constant("queue" as const), rating: fc.integer({ min: 900, max: 1300 }) })],
  cancel: [1, fc.record({ t: fc.constant("cancel" as const), i: fc.nat(9) })],
  restart: [1, fc.constant({ t: "restart" as const })],
  partyCreate: [1, fc.record({ t: fc.constant("partyCreate" as const), rating: fc.integer({ min: 900, max: 1300 }) })],
  partyJoin: [1, fc.record({ t: fc.constant("partyJoin" as const), i: fc.nat(3), rating: fc.integer({ min: 900, max: 1300 }) })],
  // Mostly the leader (the first member the test knows of); sometimes another, who is refused.
  partyStart: [1, fc.record({ t: fc.constant("partyStart" as const), i: fc.nat(3), j: fc.constantFrom(0, 0, 0, 1), mode: fc.constantFrom<MatchMode | "queue">("joinOrCreate", "joinOrCreate", "join", "create", "queue"), f: fc.nat(2) })],
  partyWatch: [1, fc.record({ t: fc.constant("partyWatch" as const), i: fc.nat(3), j: fc.nat(3) })],
  partyLeave: [1, fc.record({ t: fc.constant("partyLeave" as const), i: fc.nat(3), j: fc.nat(3) })],
  idle: [1, fc.constant({ t: "idle" as const })],
};

/** A mix of steps: every kind, at its weight unless `weights` says otherwise (0 leaves a kind out). */
function steps(weights: Partial<Record<Step["t"], number>> = {}): fc.Arbitrary<Step[]> {
  const kinds = (Object.keys(STEPS) as Step["t"][]).map((t) => ({ weight: weights[t] ?? STEPS[t][0], arbitrary: STEPS[t][1] })).filter((k) => k.weight > 0);
  return fc.array(fc.oneof(...kinds), { minLength: 30, maxLength: 150 });
}

/** Runs steps against a fresh world, checking every invariant after each. */
async function run(list: Step[]): Promise<void> {
  const world = new World();
  await world.mm.load();
  for (const s of list) {
    await take(world, s);
    await settle();
    world.check();
    world.parties.check();
    if (world.violations.length > 0) break;
  }
  world.mm.dispose();
  expect(world.violations).toEqual([]);
}

describe("matchmaker + rooms under random concurrent steps", () => {
  it("never over-fills a room, frees every unused reservation in its lifetime, creates rooms only when none had a seat, never lists private or locked rooms, loses no room across restarts, groups by the declared size", async () => {
    await fc.assert(fc.asyncProperty(steps(), run), { numRuns: 300 });
  });

  it("parties: made, joined, watched, left and started among solo players, members going idle, seats expiring and restarts, a party is seated in one room at once or not at all, never over its cap, and a member who leaves gives back only its own seat", async () => {
    const partyMix = { partyCreate: 4, partyJoin: 8, partyStart: 5, partyWatch: 5, partyLeave: 2, idle: 1, match: 3, queue: 2, joinDirect: 0, joinById: 0, lock: 0, cancel: 0 };
    await fc.assert(fc.asyncProperty(steps(partyMix), run), { numRuns: 200 });
  });

  it("parties: a start refused while the party's first is in flight leaves that one's filters, so the first makes a room of its own mode rather than take one of another", async () => {
    const world = new World();
    await world.mm.load();
    const list: Step[] = [
      { t: "partyCreate", rating: 900 },
      { t: "match", mode: "joinOrCreate", f: 1 }, // a solo player's mode "a" room, being made
      { t: "partyStart", i: 0, j: 0, mode: "joinOrCreate", f: 1 }, // the party asks that room
      { t: "partyStart", i: 0, j: 0, mode: "joinOrCreate", f: 0 }, // refused: the party is matching
      { t: "match", mode: "joinOrCreate", f: 2 }, // a mode "b" room
      { t: "deliver", i: 2, fail: false },
      { t: "report" },
      { t: "deliver", i: 1, fail: false }, // the "a" room does not exist yet: the party makes its own
    ];
    for (const s of list) {
      await take(world, s);
      await settle();
      world.check();
      world.parties.check();
    }
    const leader = [...world.parties.parties[0]!.members.values()][0]!;
    const made = world.calls.filter((c) => c.req.create && c.req.seats[0]!.identity === leader);
    expect(made.map((c) => c.req.create!.metadata)).toEqual([{ mode: "a" }]);
    world.deliver(world.calls.indexOf(made[0]!), false);
    await settle();
    world.parties.check();
    world.mm.dispose();
    expect(world.violations).toEqual([]);
    expect([...world.parties.partyRooms.values()].map((rooms) => [...rooms].map((id) => world.rooms.get(id)!.room.status().metadata))).toEqual([[{ mode: "a" }]]);
  });

  it("fills rooms in order: sequential joinOrCreate requests with seats used at once open one room per CAP players", async () => {
    const world = new World();
    for (let i = 0; i < 3 * CAP + 1; i++) {
      world.match("joinOrCreate", 0);
      await settle();
      world.deliver(0, false);
      await settle();
      world.joinWithSeat(0);
      world.reportAll();
      await settle();
    }
    expect(world.violations).toEqual([]);
    expect([...world.rooms.values()].map((r) => r.room.status().clients)).toEqual([CAP, CAP, CAP, 1]);
    expect(NO_OVERRIDES.key).toBe("");
    world.mm.dispose();
  });
});
