import { describe, expect, it } from "vitest";
import { BinaryWriter, CloseCode, PROTOCOL_VERSION, encodeHello, encodeInputs } from "@tikron/protocol";
import { FakeClock, Room, type RoomOptions } from "../src";
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

describe("a ticking room's periodic checkpoint (checkpointMs)", () => {
  function watchedRoom(opts: Partial<RoomOptions>) {
    const clock = new FakeClock();
    const game = new SavingCounter();
    const log: string[] = [];
    const beginFlush = game.encoder.beginFlush.bind(game.encoder);
    game.encoder.beginFlush = () => {
      log.push("flush");
      beginFlush();
    };
    const room = new Room({ kind: "counter", roomId: "r1", game, clock, options: opts, hooks: { onCheckpointDue: (soon) => log.push(soon ? "soon" : "periodic") } });
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, hello());
    log.length = 0;
    return { clock, game, room, log, id };
  }

  it("comes every checkpointMs rounded up to whole flushes, each right after a flush", () => {
    // 50 ms ticks, a flush every 2 ticks (100 ms): 250 ms rounds up to 3 flushes, 300 ms.
    const { clock, log } = watchedRoom({ tickMs: 50, syncIntervalMs: 100, checkpointMs: 250 });
    clock.advance(1200);
    expect(log.filter((e) => e === "periodic")).toHaveLength(4);
    for (const [i, e] of log.entries()) if (e === "periodic") expect(log[i - 1]).toBe("flush");
    expect(log.slice(0, 7)).toEqual(["flush", "flush", "flush", "periodic", "flush", "flush", "flush"]);
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
