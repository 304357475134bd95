import { describe, expect, it } from "vitest";
import { BinaryWriter, CloseCode, PROTOCOL_VERSION, encodeHello, encodeInputs } from "@tikron/protocol";
import { FakeClock, KEEP_SOON_MS, Room, type Clock, type RoomOptions } from "../src";
import { CounterGame, FakeConnection } from "./fakes";

const w = new BinaryWriter();
const hello = (token = "") => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token, name: "p" }).toBytes();

function makeRoom(opts: Partial<RoomOptions> = {}) {
  const clock = new FakeClock();
  const game = new CounterGame();
  const room = new Room({ kind: "counter", roomId: "r1", game, clock, options: { reconnectWindowMs: 5000, ...opts } });
  const join = (token = "", identity?: string) => {
    const conn = new FakeConnection();
    const id = room.open(conn, identity);
    room.message(id, hello(token));
    const welcome = conn.messages().find((m) => m.kind === "welcome") as any;
    return { conn, id, welcome };
  };
  return { clock, game, room, join };
}

describe("room checkpoints", () => {
  it("every seat comes back held: same player id and token, its last seq, and a fresh entity", () => {
    const a = makeRoom();
    const p1 = a.join();
    const p2 = a.join("", "ticket-bob");
    a.room.message(p1.id, encodeInputs(w.reset(), [{ seq: 7, payload: new Uint8Array([3]) }]).toBytes());
    a.clock.advance(50);
    const cp = JSON.parse(JSON.stringify(a.room.checkpoint()));

    const b = makeRoom();
    expect(b.room.restoreCheckpoint(cp)).toBe(true);
    expect(b.room.seatCount).toBe(2);
    expect(b.room.connectedCount).toBe(0);
    expect(b.game.events).toEqual(["join:1", "disconnected:1", "join:2", "disconnected:2"]);
    const back1 = b.join(p1.welcome.token);
    expect(back1.welcome).toMatchObject({ reconnected: true, playerId: p1.welcome.playerId, token: p1.welcome.token, lastSeq: 7 });
    // A ticketed seat comes back to its identity, whatever token the hello carries.
    const back2 = b.join("", "ticket-bob");
    expect(back2.welcome).toMatchObject({ reconnected: true, playerId: p2.welcome.playerId });
    // New players get fresh ids above the restored ones.
    expect(b.join().welcome.playerId).toBe(3);
    expect(b.room.snapshot().restoredSeats).toBe(2);
  });

  it("restored seats nobody reclaims are freed when the reconnection window runs out", () => {
    const a = makeRoom();
    a.join();
    const b = makeRoom({ reconnectWindowMs: 1000 });
    b.room.restoreCheckpoint(a.room.checkpoint());
    b.clock.advance(1001);
    expect(b.room.seatCount).toBe(0);
    expect(b.game.events.at(-1)).toBe("leave:1");
  });

  it("refuses what is not a checkpoint of this room, changing nothing", () => {
    const a = makeRoom();
    a.join();
    const cp = a.room.checkpoint();
    const b = makeRoom();
    expect(b.room.restoreCheckpoint({ ...cp, roomId: "other" })).toBe(false);
    expect(b.room.restoreCheckpoint({ ...cp, seats: [{ playerId: 1, token: "" }] })).toBe(false);
    expect(b.room.restoreCheckpoint({ ...cp, seats: [cp.seats[0], cp.seats[0]] })).toBe(false);
    expect(b.room.restoreCheckpoint("junk")).toBe(false);
    expect(b.room.seatCount).toBe(0);
    expect(b.room.restoreCheckpoint(cp)).toBe(true);
    expect(b.room.restoreCheckpoint(cp)).toBe(false); // only into an empty room
  });

  it("tells the host when a checkpoint is due: not soon for the periodic one, soon when the last seat is freed", () => {
    const clock = new FakeClock();
    const due: boolean[] = [];
    const room = new Room({ kind: "counter", roomId: "r1", game: new CounterGame(), clock, hooks: { onCheckpointDue: (soon) => due.push(soon) } });
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, hello());
    // A seat taken is kept by its own record (onSeatRecord), not by a checkpoint.
    expect(due).toEqual([]);
    clock.advance(200 * 50);
    expect(due.length).toBeGreaterThanOrEqual(1);
    expect(due.every((s) => !s)).toBe(true);
    room.message(id, new Uint8Array([0x05])); // leave frees the seat
    expect(conn.closedWith?.code).toBe(CloseCode.normal);
    expect(due.at(-1)).toBe(true);
  });

  it("hands the host each new seat's record before its welcome is sent, and a freed seat's end", () => {
    const clock = new FakeClock();
    const log: string[] = [];
    const records: unknown[] = [];
    const room = new Room({
      kind: "counter",
      roomId: "r1",
      game: new CounterGame(),
      clock,
      hooks: {
        onSeatRecord: (playerId, record) => {
          log.push(`record:${playerId}:${record ? "kept" : "gone"}`);
          records.push(record);
        },
      },
    });
    const conn = new FakeConnection();
    const send = conn.send.bind(conn);
    conn.send = (data) => {
      log.push("send");
      send(data);
    };
    const id = room.open(conn, "ticket-ann");
    room.message(id, hello());
    const welcome = conn.messages().find((m) => m.kind === "welcome") as any;
    expect(log[0]).toBe("record:1:kept");
    expect(log[1]).toBe("send");
    expect(records[0]).toEqual({ playerId: 1, token: welcome.token, name: "p", json: false, identity: "ticket-ann", lastSeq: 0 });
    // A reconnect to the same seat writes nothing new.
    const again = new FakeConnection();
    room.message(room.open(again, "ticket-ann"), hello(welcome.token));
    expect(log.filter((l) => l.startsWith("record"))).toEqual(["record:1:kept"]);
    room.kick(1);
    expect(log.at(-1)).toBe("record:1:gone");
    expect(records.at(-1)).toBeNull();
  });
});

/** A counter game whose totals are its checkpoint, and which records when it was asked. */
class SavingCounter extends CounterGame {
  saves = 0;
  checkpoint(): unknown {
    this.saves++;
    return { totals: [...this.totals] };
  }
}

/** A counter that marks a change a player would lose (`ctx.keepSoon`) on the ticks it is told to. */
class ScoringCounter extends SavingCounter {
  scoreOn = new Set<number>();
  private tickNo = 0;
  override tick(now: number): void {
    super.tick(now);
    if (this.scoreOn.has(++this.tickNo)) this.ctx.keepSoon();
  }
}

/** `clock` with every timer firing `lateMs` late: a loop on one runtime thread shared by many busy rooms. */
function starved(clock: FakeClock, lateMs: number): Clock {
  return { now: () => clock.now(), setTimer: (fn, ms) => clock.setTimer(fn, ms + lateMs), clearTimer: (h) => clock.clearTimer(h), nextTask: (fn) => clock.nextTask(fn) };
}

describe("a ticking room's periodic checkpoint (checkpointMs)", () => {
  function watchedRoom(opts: Partial<RoomOptions>, game: SavingCounter = new SavingCounter(), lateMs = 0) {
    const clock = new FakeClock();
    const log: string[] = [];
    const at: number[] = [];
    const beginFlush = game.encoder.beginFlush.bind(game.encoder);
    game.encoder.beginFlush = () => {
      log.push("flush");
      beginFlush();
    };
    const onCheckpointDue = (soon: boolean) => {
      log.push(soon ? "soon" : "periodic");
      if (!soon) at.push(clock.now());
    };
    const room = new Room({ kind: "counter", roomId: "r1", game, clock: lateMs > 0 ? starved(clock, lateMs) : clock, options: opts, hooks: { onCheckpointDue } });
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, hello());
    log.length = 0;
    return { clock, game, room, log, at, id };
  }

  it("comes every checkpointMs rounded up to whole flushes, each right after a flush; the first at the first flush", () => {
    // 50 ms ticks, a flush every 2 ticks (100 ms): 250 ms rounds up to 3 flushes, 300 ms.
    const { clock, log } = watchedRoom({ tickMs: 50, syncIntervalMs: 100, checkpointMs: 250 });
    clock.advance(1200);
    expect(log.filter((e) => e === "periodic")).toHaveLength(4);
    for (const [i, e] of log.entries()) if (e === "periodic") expect(log[i - 1]).toBe("flush");
    expect(log.slice(0, 7)).toEqual(["flush", "periodic", "flush", "flush", "flush", "periodic", "flush"]);
  });

  it("comes every checkpointMs of room time when the loop's timers are starved (ticks late, not 20 a second)", () => {
    // Every timer 600 ms late: the loop ticks about every 650 ms. Counted in ticks, 1 s at 50 ms
    // ticks is 20 of them, 13 s here: a restart in between found no world kept (restart-1000).
    const { clock, at } = watchedRoom({ tickMs: 50, syncIntervalMs: 50, checkpointMs: 1000 }, new SavingCounter(), 600);
    const start = clock.now();
    clock.advance(14_000);
    expect(at.length).toBeGreaterThanOrEqual(10);
    expect(at[0]! - start).toBeLessThan(1000);
    for (let i = 1; i < at.length; i++) {
      expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(1000);
      // The first flush at least 1 s after the last: never a tick late more than once.
      expect(at[i]! - at[i - 1]!).toBeLessThan(1000 + 700);
    }
  });

  it(`comes ${KEEP_SOON_MS} ms after the last once the game marks a change a player would lose (keepSoon)`, () => {
    const game = new ScoringCounter();
    const { clock, at } = watchedRoom({ tickMs: 50, syncIntervalMs: 50, checkpointMs: 1000 }, game);
    const start = clock.now();
    // The first flush's, then one a second while nothing is marked: at 50, 1050, 2050 ms.
    clock.advance(2100);
    expect(at.map((t) => t - start)).toEqual([50, 1050, 2050]);
    // Tick 44 (2200 ms) marks a change: kept at the first flush 200 ms after the last (2250
    // ms), not at 3050; then a second after that again.
    game.scoreOn.add(44);
    clock.advance(1200);
    expect(at.slice(3).map((t) => t - start)).toEqual([2050 + KEEP_SOON_MS, 2050 + KEEP_SOON_MS + 1000]);
  });

  it("keepSoonMs sets how soon a marked change is kept; 0 brings nothing forward (checkpoints every checkpointMs only)", () => {
    const later = new ScoringCounter();
    const slow = watchedRoom({ tickMs: 50, syncIntervalMs: 50, checkpointMs: 1000, keepSoonMs: 400 }, later);
    const start = slow.clock.now();
    slow.clock.advance(2100);
    later.scoreOn.add(44);
    slow.clock.advance(1400);
    expect(slow.at.slice(3).map((t) => t - start)).toEqual([2050 + 400, 2050 + 400 + 1000]);

    const never = new ScoringCounter();
    const off = watchedRoom({ tickMs: 50, syncIntervalMs: 50, checkpointMs: 1000, keepSoonMs: 0 }, never);
    const from = off.clock.now();
    for (let t = 1; t < 70; t++) never.scoreOn.add(t);
    off.clock.advance(3100);
    expect(off.at.map((t) => t - from)).toEqual([50, 1050, 2050, 3050]);
  });

  it("carries the world of a ticking game; 0 turns it off: no periodic checkpoint, seats only", () => {
    const on = watchedRoom({ checkpointMs: 5000 });
    expect(on.room.checkpoint().game).toEqual({ totals: [[1, 0]] });
    on.clock.advance(5000);
    expect(on.log.filter((e) => e === "periodic")).toHaveLength(1);

    const off = watchedRoom({ checkpointMs: 0 });
    off.clock.advance(60_000);
    expect(off.log).not.toContain("periodic");
    const cp = off.room.checkpoint();
    expect(cp.game).toBeUndefined();
    expect(off.game.saves).toBe(0);
    expect(cp.seats.map((seat) => seat.playerId)).toEqual([1]);
  });

  it("asks soon when the last socket drops (the loop stops: what an idle object's eviction follows)", () => {
    const { room, log, id, clock } = watchedRoom({});
    clock.advance(100);
    log.length = 0;
    room.closed(id, 1006);
    expect(room.loopRunning).toBe(false);
    expect(room.seatCount).toBe(1);
    expect(log).toEqual(["soon"]);
  });
});
