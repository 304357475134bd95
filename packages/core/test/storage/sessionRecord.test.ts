/**
 * What the room reports to the records hooks, as the D1 records rely on it: every close of the
 * session (including the one that ends it) and every input accounted for in tk:stats.
 */
import { BinaryWriter, encodeHello, encodeInputs, encodeLeave, PROTOCOL_VERSION } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { FakeClock, Room, type RoomSessionRecord } from "@tikron/core";
import { CounterGame, FakeConnection } from "../fakes";

const w = new BinaryWriter();

function setup() {
  const ended: RoomSessionRecord[] = [];
  const started: number[] = [];
  const clock = new FakeClock();
  const room = new Room({
    kind: "counter",
    roomId: "r1",
    game: new CounterGame(),
    clock,
    options: { cap: 1, reconnectWindowMs: 1_000 },
    hooks: { onSessionStart: (i) => started.push(i.startedAt), onSessionEnd: (r) => ended.push(r) },
  });
  const join = () => {
    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: "p" }).toBytes());
    return { conn, id };
  };
  return { room, clock, join, ended, started };
}

describe("session records from the room", () => {
  it("count the close of the leave that ends the session, and refusals", () => {
    const { room, clock, join, ended } = setup();
    const a = join();
    join(); // refused: room_full (cap 1)
    clock.advance(200);
    room.message(a.id, encodeLeave(w.reset()).toBytes());
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ peakCcu: 1, totalJoins: 1, refusals: 1, endedAt: ended[0]!.startedAt + 200 });
    expect(ended[0]!.closes).toEqual({ "1000": 1, "4002": 1 });
  });

  it("a session whose last player dropped ends when the reconnection window expires", () => {
    const { room, clock, join, ended } = setup();
    const a = join();
    room.closed(a.id, 1006);
    clock.advance(999);
    expect(ended).toHaveLength(0);
    clock.advance(2);
    expect(ended).toHaveLength(1);
    expect(ended[0]!.closes).toEqual({ "1006": 1 });
  });

  it("inputs queued by a player who leaves before the tick are counted as rejected (seat_freed)", () => {
    const { room, join } = setup();
    const a = join();
    room.message(a.id, encodeInputs(w.reset(), [{ seq: 1, payload: new Uint8Array([5]) }, { seq: 2, payload: new Uint8Array([6]) }]).toBytes());
    room.message(a.id, encodeLeave(w.reset()).toBytes());
    const s = room.snapshot();
    expect(s.inputs).toMatchObject({ received: 2, processed: 0, rejected: 2, rejectedByCode: { seat_freed: 2 } });
  });
});
