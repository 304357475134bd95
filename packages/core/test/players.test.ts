/**
 * Who is joining, in the room core: the `Player` record the game gets in `join`, `reconnected`
 * and `restore` (identity, claims, join options), kept across reconnects, checkpoints and a
 * runtime restart's adoption; join options checked before any seat is taken; the game's own
 * admission, at once or async (counted against the cap while it decides, bounded in time).
 */
import { CloseCode, ErrorCode, defineGameTypes, defineJoinOptions, joinOption, jsonDialect, type PlayerOptionsOf } from "@tikron/protocol";
import { describe, expect, expectTypeOf, it } from "vitest";
import { refuseJoin, type AdmitVerdict, type Game, type GameContext, type GameDefinition, type JoiningPlayer, type Player, type RoomCheckpoint } from "../src";
import { TestRoom, type TestClient } from "../src/testing";

const probeOptions = defineJoinOptions({
  team: joinOption.oneOf(["red", "blue"]),
  level: joinOption.int(1, 99, { default: 1 }),
  skin: joinOption.text(8),
});

const probeTypes = defineGameTypes<{ n: number }, never, { seen: string[] }>()({ kind: "probe", json: jsonDialect, joinOptions: probeOptions });

type ProbeOptions = PlayerOptionsOf<typeof probeTypes>;

/**
 * A turn-based game that writes down what the room hands it: every `join`, `reconnected` and
 * `restore` with the player records; its `admit` answers what the test sets.
 */
class ProbeGame implements Game {
  readonly kind = "probe";
  readonly ticking = false;
  readonly sync = { mode: "json" as const, source: { viewFor: () => ({ seen: this.log }) } };
  readonly log: string[] = [];
  readonly joined: Player<ProbeOptions>[] = [];
  readonly reconnects: Player<ProbeOptions>[] = [];
  restored: Player<ProbeOptions>[] | null = null;
  asked: JoiningPlayer<ProbeOptions>[] = [];
  admit?: (p: JoiningPlayer<ProbeOptions>) => AdmitVerdict | Promise<AdmitVerdict>;
  refuseRestore = false;
  private ctx!: GameContext;
  init(ctx: GameContext): void {
    this.ctx = ctx;
  }
  join(player: Player<ProbeOptions>): void {
    this.joined.push(player);
    this.log.push(`join:${player.playerId}`);
    this.ctx.markChanged();
  }
  reconnected(player: Player<ProbeOptions>): void {
    this.reconnects.push(player);
  }
  leave(): void {}
  decodeInput(payload: unknown): { n: number } {
    return payload as { n: number };
  }
  applyInput(): void {}
  tick(): void {}
  checkpoint(): unknown {
    return { log: this.log.length };
  }
  restore(_state: unknown, players: readonly Player<ProbeOptions>[]): void {
    if (this.refuseRestore) throw new Error("no");
    this.restored = [...players];
  }
}

/** A probe room (cap `cap`) whose admission, when given, is `admit`. */
function probe(cap = 4, admit?: ProbeGame["admit"], overrides: Record<string, unknown> = {}): { room: TestRoom<typeof probeTypes, ProbeGame>; game: ProbeGame } {
  const game = new ProbeGame();
  if (admit) {
    game.admit = (p) => {
      game.asked.push(p);
      return admit(p);
    };
  }
  const definition: GameDefinition = { kind: "probe", defaults: { cap, ...overrides }, create: () => game, joinOptions: probeOptions };
  return { room: new TestRoom(definition, probeTypes), game };
}

/** A promise the test settles by hand. */
function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const closeOf = (c: TestClient<typeof probeTypes>) => c.closed;

describe("the Player record", () => {
  it("join gets one frozen record: id, name, the verified identity, its claims, and the checked options with their defaults", () => {
    const { room, game } = probe();
    const ann = room.join("ann", { identity: "user-1", claims: { name: "Ann B.", roles: ["mod"] }, joinOptions: { team: "red", skin: "fox" } });
    expect(ann.welcome).toBeDefined();
    expect(game.joined).toEqual([{ playerId: ann.playerId, name: "ann", identity: "user-1", claims: { name: "Ann B.", roles: ["mod"] }, options: { team: "red", skin: "fox", level: 1 } }]);
    expectTypeOf(game.joined[0]!.options).toEqualTypeOf<ProbeOptions>();
    expectTypeOf<ProbeOptions>().toEqualTypeOf<{ readonly level: number } & { readonly team?: "red" | "blue"; readonly skin?: string }>();
    const p = game.joined[0]!;
    expect(Object.isFrozen(p) && Object.isFrozen(p.claims) && Object.isFrozen(p.options) && Object.isFrozen(p.claims.roles)).toBe(true);
  });

  it("a join without a verified identity gets an anonymous one, a new one per seat, which binds nothing", () => {
    const { room, game } = probe();
    room.join("a");
    room.join("b");
    const [a, b] = game.joined;
    expect(a!.identity).toMatch(/^anon-[A-Za-z0-9_-]{16}$/);
    expect(b!.identity).toMatch(/^anon-/);
    expect(a!.identity).not.toBe(b!.identity);
    expect(a!.claims).toEqual({});
  });

  it("a reconnect hands the game the same record, whatever options the new hello carries (they are not checked again)", () => {
    const { room, game } = probe();
    const ann = room.join("ann", { identity: "user-1", claims: { name: "Ann" }, joinOptions: { team: "blue" } });
    ann.drop();
    ann.reconnect();
    expect(ann.welcome?.reconnected).toBe(true);
    expect(game.reconnects).toEqual([game.joined[0]]);
    expect(game.reconnects[0]).toBe(game.joined[0]);
    // A tab of the same identity whose page sends other (even refused) options takes the seat as it is.
    const again = room.join("ann", { identity: "user-1", joinOptions: { team: "pink" } as never });
    expect(again.welcome?.reconnected).toBe(true);
    expect(game.reconnects[1]).toBe(game.joined[0]);
    // An anonymous seat keeps its anonymous identity across a reconnect by token.
    const anon = room.join("x");
    anon.drop();
    anon.reconnect();
    expect(game.reconnects[2]!.identity).toBe(game.joined[1]!.identity);
  });

  it("a checkpoint keeps every seat's record: restore hands the game the players as they were, and join when the game cannot restore", () => {
    const { room, game } = probe();
    room.join("ann", { identity: "user-1", claims: { name: "Ann" }, joinOptions: { team: "red", level: 7 } });
    room.join("anon");
    const cp = JSON.parse(JSON.stringify(room.room.checkpoint())) as RoomCheckpoint;
    // What a seat carries beyond its id, token, name and bound identity is one part, empty parts left out.
    expect(cp.seats[0]!.player).toEqual({ claims: { name: "Ann" }, options: { team: "red", level: 7 } });
    expect(cp.seats[1]!.player).toEqual({ anonymous: game.joined[1]!.identity, options: { level: 1 } });
    const next = probe();
    expect(next.room.room.restoreCheckpoint(cp)).toBe(true);
    expect(next.game.restored).toEqual(game.joined);
    expect(next.game.joined).toEqual([]);
    const refusing = probe();
    refusing.game.refuseRestore = true;
    expect(refusing.room.room.restoreCheckpoint(cp)).toBe(true);
    expect(refusing.game.joined).toEqual(game.joined);
    // The restored seat's player reconnects (with its identity) as itself.
    const back = next.room.join("ann", { identity: "user-1" });
    expect(back.welcome?.reconnected).toBe(true);
    expect(next.game.reconnects).toEqual([game.joined[0]]);
  });

  it("a checkpoint from before records were kept restores seats with an anonymous identity and no claims or options", () => {
    const { room, game } = probe();
    const cp: RoomCheckpoint = { v: 1, kind: "probe", roomId: "test", savedAt: 0, seats: [{ playerId: 3, token: "t".repeat(32), name: "old", json: true, lastSeq: 0 }], game: {} };
    expect(room.room.restoreCheckpoint(cp)).toBe(true);
    expect(game.restored).toEqual([{ playerId: 3, name: "old", identity: expect.stringMatching(/^anon-/), claims: {}, options: {} }]);
  });

  it("a socket adopted after a restart (its seat ticket) comes back with its record", () => {
    const { room, game } = probe();
    const ann = room.join("ann", { identity: "user-1", claims: { name: "Ann" }, joinOptions: { skin: "owl" } });
    const ticket = room.room.seatTicket(ann.connId)!;
    expect(ticket.player).toEqual({ claims: { name: "Ann" }, options: { level: 1, skin: "owl" } });
    const next = probe();
    const conn = { send() {}, close() {}, bufferedAmount: () => 0 };
    next.room.room.adopt(conn, JSON.parse(JSON.stringify(ticket)));
    expect(next.game.joined).toEqual([game.joined[0]]);
  });
});

describe("join options are checked before a seat is taken", () => {
  for (const [options, field, words] of [
    [{ colour: "red" }, "colour", 'unknown join option "colour"'],
    [{ team: "green" }, "team", 'join option "team" must be one of "red", "blue"'],
    [{ level: 100 }, "level", 'join option "level" must be in 1..99, not 100'],
    [{ level: 2.5 }, "level", 'join option "level" must be a whole number'],
    [{ skin: "a-very-long-skin" }, "skin", 'join option "skin" must be at most 8 characters'],
  ] as const) {
    it(`${JSON.stringify(options)}: refused bad_request (4014) naming ${field}, no seat, nothing counted against the cap, counted`, () => {
      const { room, game } = probe(1);
      const bad = room.join("bad", { joinOptions: options as never });
      expect(bad.errors.at(-1)).toMatchObject({ code: ErrorCode.bad_request, name: "bad_request" });
      expect(bad.errors.at(-1)!.reason).toContain(words);
      expect(bad.closed).toMatchObject({ code: CloseCode.bad_request });
      expect(bad.closed!.reason).toContain(field);
      expect(game.joined).toEqual([]);
      expect(room.stats()).toMatchObject({ seats: 0, refused: { bad_options: 1 } });
      // The one seat is still free.
      expect(room.join("good").welcome).toBeDefined();
    });
  }

  it("options over 512 bytes of JSON, or not an object, are refused as a whole", () => {
    const { room } = probe();
    const big = room.join("big", { joinOptions: { skin: "x".repeat(600) } as never });
    expect(big.errors.at(-1)!.reason).toMatch(/over 512/);
    const notJson = room.join("raw");
    expect(notJson.welcome).toBeDefined();
    expect(room.stats().refused.bad_options).toBe(1);
  });

  it("a game that declares none refuses any", () => {
    const game = new ProbeGame();
    const room = new TestRoom({ kind: "probe", defaults: {}, create: () => game }, defineGameTypes<{ n: number }, never, { seen: string[] }>()({ kind: "probe", json: jsonDialect }));
    const c = room.join("c", { joinOptions: { team: "red" } as never });
    expect(c.closed).toMatchObject({ code: CloseCode.bad_request });
    expect(c.errors.at(-1)!.reason).toContain("this game takes none");
  });

  it("a reservation whose join is refused for its options is given up, not left holding a seat", () => {
    const { room } = probe(1);
    expect(room.room.reserveSeats({ roomId: "test", seats: [{ reservationId: "r1", identity: "user-9", claims: { name: "Nine" } }], ttlMs: 10_000, byId: false })).toMatchObject({ ok: true });
    expect(room.stats().reservations.pending).toBe(1);
    const conn = { sent: [] as unknown[], send(d: unknown) { this.sent.push(d); }, close() {}, bufferedAmount: () => 0 };
    const id = room.room.open(conn, "user-9", undefined, "r1");
    room.room.message(id, probeTypes.dialect.hello("", "nine", { team: "pink" }));
    expect(room.stats()).toMatchObject({ seats: 0, reservations: { pending: 0 } });
    expect(room.join("other").welcome).toBeDefined();
  });

  it("a seat taken with a reservation gets the claims the reservation was made with", () => {
    const { room, game } = probe(2);
    room.room.reserveSeats({ roomId: "test", seats: [{ reservationId: "r1", identity: "jwt:u9", claims: { name: "Nine" } }], ttlMs: 10_000, byId: false });
    const conn = { send() {}, close() {}, bufferedAmount: () => 0 };
    const id = room.room.open(conn, "jwt:u9", undefined, "r1");
    room.room.message(id, probeTypes.dialect.hello("", "nine", { team: "blue" }));
    expect(game.joined).toEqual([expect.objectContaining({ identity: "jwt:u9", claims: { name: "Nine" }, options: { team: "blue", level: 1 } })]);
  });
});

describe("the game's admission", () => {
  it("asks admit with the record the seat would get; a refusal ends the join join_refused (4024) with the game's code and reason, counted", () => {
    const { room, game } = probe(4, (p) => (p.options.team === "blue" ? refuseJoin("team_full", "blue is full", 2000) : undefined));
    const red = room.join("red", { identity: "u-red", joinOptions: { team: "red" } });
    expect(red.welcome).toBeDefined();
    const blue = room.join("blue", { identity: "u-blue", joinOptions: { team: "blue" } });
    expect(game.asked.map((p) => p.identity)).toEqual(["u-red", "u-blue"]);
    expect(blue.errors.at(-1)).toMatchObject({ name: "join_refused", reason: "team_full: blue is full", retryAfterMs: 2000 });
    expect(blue.closed).toEqual({ code: CloseCode.join_refused, reason: "retry in 2000 ms: team_full: blue is full" });
    expect(room.stats()).toMatchObject({ seats: 1, refused: { join_refused: 1 }, admissions: { asked: 2, admitted: 1, waiting: 0 } });
    // Reconnects and bots are not asked again.
    red.drop();
    red.reconnect();
    expect(game.asked).toHaveLength(2);
  });

  it("an async admission holds a seat against the cap while it decides: concurrent hellos never seat past the cap", async () => {
    const answers: ReturnType<typeof deferred<AdmitVerdict>>[] = [];
    const { room, game } = probe(2, () => {
      const d = deferred<AdmitVerdict>();
      answers.push(d);
      return d.promise;
    });
    const a = room.join("a");
    const b = room.join("b");
    const c = room.join("c");
    // Two seats are being decided on: the third hello finds the room full, and so does a matchmaker.
    expect(c.closed).toMatchObject({ code: CloseCode.room_full });
    expect(room.room.reserveSeats({ roomId: "test", seats: [{ reservationId: "r", identity: "x" }], ttlMs: 1000, byId: false })).toMatchObject({ ok: false, code: "room_full" });
    expect(room.stats()).toMatchObject({ seats: 0, admissions: { waiting: 2 } });
    expect(a.welcome).toBeUndefined();
    answers[0]!.resolve(undefined);
    answers[1]!.resolve(true);
    await room.settle();
    expect(a.welcome).toBeDefined();
    expect(b.welcome).toBeDefined();
    expect(game.joined).toHaveLength(2);
    expect(room.stats()).toMatchObject({ seats: 2, admissions: { asked: 2, admitted: 2, waiting: 0 } });
  });

  it("an admission that runs out of time refuses admission_failed, closed join_throttled with a wait; the seat is free again", async () => {
    const { room, game } = probe(1, () => new Promise<AdmitVerdict>(() => {}), { admissionTimeoutMs: 2000 });
    const slow = room.join("slow");
    room.advance(1999);
    expect(slow.closed).toBeNull();
    room.advance(1);
    expect(slow.errors.at(-1)).toMatchObject({ code: ErrorCode.admission_failed, name: "admission_failed", retryAfterMs: 1000 });
    expect(slow.closed).toMatchObject({ code: CloseCode.join_throttled, reason: "retry in 1000 ms: the game did not decide in time; retry" });
    expect(room.stats()).toMatchObject({ seats: 0, refused: { admission_timeout: 1 }, admissions: { waiting: 0 } });
    expect(game.joined).toEqual([]);
  });

  it("an admission that throws, rejects or answers no verdict refuses admission_failed and is counted as an internal error", async () => {
    for (const admit of [
      () => {
        throw new Error("db down");
      },
      () => Promise.reject(new Error("db down")),
      () => ({ nonsense: true }) as unknown as AdmitVerdict,
    ]) {
      const { room } = probe(2, admit);
      const c = room.join("c");
      await room.settle();
      expect(c.errors.at(-1)).toMatchObject({ name: "admission_failed" });
      expect(c.closed).toMatchObject({ code: CloseCode.join_throttled });
      expect(room.stats()).toMatchObject({ seats: 0, refused: { admission_failed: 1 }, errors: { internal: 1 } });
    }
  });

  it("a socket that closes while the game decides stops counting at once, and its answer seats nobody", async () => {
    let answer: ReturnType<typeof deferred<AdmitVerdict>> | null = null;
    const { room, game } = probe(1, () => (answer = deferred<AdmitVerdict>()).promise);
    const gone = room.join("gone");
    gone.drop();
    expect(room.stats().admissions.waiting).toBe(0);
    answer!.resolve(undefined);
    await room.settle();
    expect(game.joined).toEqual([]);
    expect(room.stats().seats).toBe(0);
  });

  it("a second hello of one identity while its first is decided on replaces the first (4005): one identity, one seat", async () => {
    const answers: ReturnType<typeof deferred<AdmitVerdict>>[] = [];
    const { room, game } = probe(4, () => {
      const d = deferred<AdmitVerdict>();
      answers.push(d);
      return d.promise;
    });
    const first = room.join("one", { identity: "user-1" });
    const second = room.join("two", { identity: "user-1" });
    expect(first.closed).toMatchObject({ code: CloseCode.replaced });
    expect(room.stats().admissions.waiting).toBe(1);
    for (const d of answers) d.resolve(undefined);
    await room.settle();
    expect(game.joined.map((p) => p.name)).toEqual(["two"]);
    expect(second.welcome).toBeDefined();
  });

  it("a join admitted after the room was locked meanwhile is refused room_locked", async () => {
    let answer: ReturnType<typeof deferred<AdmitVerdict>> | null = null;
    const { room } = probe(2, () => (answer = deferred<AdmitVerdict>()).promise);
    const late = room.join("late");
    room.room.setLocked(true);
    answer!.resolve(undefined);
    await room.settle();
    expect(late.closed).toMatchObject({ code: CloseCode.room_locked });
  });
});

describe("the cap under concurrent hellos, async admissions, reservations and closes (fast-check)", () => {
  it("seats, reservations and joins being decided never pass the cap, whatever the order", async () => {
    const fc = await import("fast-check");
    type Step =
      | { t: "hello"; identity: number | null }
      | { t: "answer"; i: number; admit: boolean }
      | { t: "close"; i: number }
      | { t: "reserve"; n: number }
      | { t: "time"; ms: number };
    const step = fc.oneof(
      fc.record({ t: fc.constant("hello" as const), identity: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }) }),
      fc.record({ t: fc.constant("answer" as const), i: fc.nat(20), admit: fc.boolean() }),
      fc.record({ t: fc.constant("close" as const), i: fc.nat(20) }),
      fc.record({ t: fc.constant("reserve" as const), n: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ t: fc.constant("time" as const), ms: fc.constantFrom(100, 1000, 3000) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(step, { maxLength: 40 }), async (cap, steps) => {
        const answers: ReturnType<typeof deferred<AdmitVerdict>>[] = [];
        const { room } = probe(cap, () => {
          const d = deferred<AdmitVerdict>();
          answers.push(d);
          return d.promise;
        }, { admissionTimeoutMs: 2000, reconnectWindowMs: 1000, joinRatePerSec: 1000, joinBurst: 1000, identityJoinRatePerSec: 1000, identityJoinBurst: 1000 });
        const clients: TestClient<typeof probeTypes>[] = [];
        let reservations = 0;
        for (const s of steps) {
          if (s.t === "hello") clients.push(room.join("p", s.identity === null ? {} : { identity: `user-${s.identity}` }));
          else if (s.t === "answer") answers[s.i % Math.max(1, answers.length)]?.resolve(s.admit ? undefined : refuseJoin("no"));
          else if (s.t === "close") clients[s.i % Math.max(1, clients.length)]?.drop();
          else if (s.t === "reserve") {
            const seats = Array.from({ length: s.n }, () => ({ reservationId: `r${++reservations}`, identity: `res-${reservations}` }));
            room.room.reserveSeats({ roomId: "test", seats, ttlMs: 1500, byId: false });
          } else room.advance(s.ms);
          await room.settle();
          const st = room.stats();
          expect(st.seats + st.reservations.pending + st.admissions.waiting).toBeLessThanOrEqual(cap);
          expect(st.ccu).toBeLessThanOrEqual(cap);
        }
      }),
      { numRuns: 150 },
    );
  });
});
