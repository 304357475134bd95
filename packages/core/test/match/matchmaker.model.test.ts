/**
 * The matchmaker and real rooms under random concurrent steps (fast-check commands): match
 * requests whose seat requests reach their rooms in any order (or fail), joins with and without
 * reservations, leaves, drops, time passing, status reports delivered late, locks, private
 * rooms, queues and matchmaker restarts. After every step the invariants the matchmaker promises
 * are checked against the rooms themselves (the truth), not against the matchmaker's view.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryWriter, CloseCode, PROTOCOL_VERSION, encodeHello, encodeLeave, isMatchError, matchesFilters, type MatchFilters, type MatchMode } from "@tikron/protocol";
import { FakeClock, Room } from "../../src";
import { Matchmaker, NO_OVERRIDES, resolveMatchmaking, type DirectoryStore, type ReservedSeat, type RoomStatus, type SeatAnswer, type SeatRequest } from "../../src/match";
import { CounterGame, FakeConnection } from "../fakes";

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
  readonly violations: string[] = [];
  private nextId = 0;
  private generation = 0;
  mm: Matchmaker;

  constructor() {
    this.mm = this.makeMatchmaker();
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
    const spec = resolveMatchmaking({ filterBy: ["mode"], reservationTtlMs: TTL, queue: { groupSize: GROUP, ratingWindow: { initial: 100, widenPerSec: 200, max: 1000 }, timeoutMs: 5000 } });
    return new Matchmaker("counter", spec, {
      clock: this.clock,
      store,
      rooms: { reserve: (req) => this.reserve(req) },
      newRoomId: () => `room${this.nextId++}`,
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
    if (req.create && req.seats.length === 1 && this.requestMode.get(req.seats[0]!.identity) === "joinOrCreate") this.checkCreation(req);
    return new Promise((resolve, reject) => this.calls.push({ req, resolve, reject }));
  }

  /**
   * The creation invariant: no room is created while a live room that matches had a free seat, the
   * matchmaker had been told so (its last report delivered), no seat request to it was in
   * flight, and this request had not been refused by it already (racing explains those).
   */
  private checkCreation(req: SeatRequest): void {
    const identity = req.seats[0]!.identity;
    const filters = this.requestFilters.get(identity) ?? {};
    for (const [id, { room }] of this.rooms) {
      const s = room.status();
      if (s.private || s.locked || s.overrides !== "" || !matchesFilters(s.metadata, filters)) continue;
      // An empty room has left the directory (like a disposed room); it is not a room to fill.
      if (s.clients + s.reserved === 0 || s.clients + s.reserved >= s.maxClients || this.dirty.has(id)) continue;
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
    if (answer.ok) for (const s of req.seats) this.made.push({ roomId: req.roomId, reservationId: s.reservationId, identity: s.identity, madeAt: this.clock.now(), used: false });
    call!.resolve(answer);
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
    const held = made !== undefined && !made.used && this.clock.now() < made.madeAt + TTL;
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

/** Lets every promise chain the last step started run to its end (no timers involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await Promise.resolve();
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
  | { t: "restart" };

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
  }
}

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant("match" as const), mode: fc.constantFrom<MatchMode>("joinOrCreate", "joinOrCreate", "join", "create"), f: fc.nat(2) }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant("deliver" as const), i: fc.nat(9), fail: fc.nat(9).map((n) => n === 0) }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant("joinSeat" as const), i: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("joinDirect" as const), i: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("joinById" as const), i: fc.nat(9) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("leave" as const), i: fc.nat(9), drop: fc.boolean() }) },
  { weight: 3, arbitrary: fc.constant({ t: "report" as const }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 1500 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("lock" as const), i: fc.nat(9), locked: fc.boolean(), priv: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("queue" as const), rating: fc.integer({ min: 900, max: 1300 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("cancel" as const), i: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.constant({ t: "restart" as const }) },
);

describe("matchmaker + rooms under random concurrent steps", () => {
  it("never over-fills a room, frees every unused reservation in its lifetime, creates rooms only when none had a seat, never lists private or locked rooms, loses no room across restarts, groups by the declared size", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 30, maxLength: 150 }), async (steps) => {
        const world = new World();
        await world.mm.load();
        for (const s of steps) {
          await take(world, s);
          await settle();
          world.check();
          if (world.violations.length > 0) break;
        }
        world.mm.dispose();
        expect(world.violations).toEqual([]);
      }),
      { numRuns: 300 },
    );
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
