/**
 * Ticketed joins: the gateway hands the room the ticket's player id as the socket's identity,
 * and the room binds one seat to it. These tests pin the room-side rules the ticket relies on.
 */
import { BinaryWriter, CloseCode, encodeHello, encodeLeave, PROTOCOL_VERSION, type ServerMessage } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { FakeClock, Room, type SeatTicket } from "@tikron/core";
import { CounterGame, FakeConnection } from "../../core/test/fakes";

const w = new BinaryWriter();
const hello = (token = "") => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token, name: "p" }).toBytes();
type Welcome = Extract<ServerMessage, { kind: "welcome" }>;

function setup() {
  const seated: SeatTicket[] = [];
  const room = new Room({
    kind: "counter",
    roomId: "r1",
    game: new CounterGame(),
    clock: new FakeClock(),
    options: { cap: 5, joinBurst: 100, reconnectWindowMs: 10_000 },
    hooks: { onSeated: (_id, t) => seated.push(t) },
  });
  const join = (identity?: string, token = "") => {
    const conn = new FakeConnection();
    const id = room.open(conn, identity);
    room.message(id, hello(token));
    const welcome = conn.messages().find((m): m is Welcome => m.kind === "welcome");
    return { conn, id, welcome };
  };
  return { room, join, seated };
}

describe("seats bound to a verified identity", () => {
  it("a second socket of the same player takes over the seat instead of taking another", () => {
    const { room, join } = setup();
    const a = join("alice");
    const again = join("alice");
    expect(room.seatCount).toBe(1);
    expect(again.welcome?.playerId).toBe(a.welcome?.playerId);
    expect(again.welcome?.reconnected).toBe(true);
    expect(a.conn.closedWith?.code).toBe(CloseCode.replaced);
  });

  it("one ticket cannot fill the room", () => {
    const { room, join } = setup();
    for (let i = 0; i < 20; i++) join("mallory");
    expect(room.seatCount).toBe(1);
    const others = ["a", "b", "c", "d"].map((p) => join(p));
    expect(others.every((o) => o.welcome && !o.welcome.reconnected)).toBe(true);
    expect(room.seatCount).toBe(5);
  });

  it("a token alone, or another identity's socket, cannot take a ticketed seat", () => {
    const { room, join } = setup();
    const a = join("alice");
    const token = a.welcome!.token;
    const thief = join(undefined, token);
    expect(thief.welcome?.playerId).not.toBe(a.welcome?.playerId);
    const bob = join("bob", token);
    expect(bob.welcome?.playerId).not.toBe(a.welcome?.playerId);
    expect(bob.welcome?.reconnected).toBe(false);
    expect(a.conn.closedWith).toBeNull();
    expect(room.seatCount).toBe(3);
  });

  it("unticketed seats still resume by token; a left player rejoins with a fresh seat", () => {
    const { room, join } = setup();
    const anon = join();
    room.closed(anon.id, 1006);
    const back = join(undefined, anon.welcome!.token);
    expect(back.welcome).toMatchObject({ playerId: anon.welcome!.playerId, reconnected: true });

    const a = join("alice");
    room.message(a.id, encodeLeave(w.reset()).toBytes());
    const again = join("alice");
    expect(again.welcome).toMatchObject({ reconnected: false });
    expect(again.welcome!.playerId).not.toBe(a.welcome!.playerId);
    expect(room.seatCount).toBe(2);
  });

  it("the seat ticket carries the identity, so a rebuilt room keeps the binding", () => {
    const { join, seated } = setup();
    join("alice");
    expect(seated.at(-1)).toMatchObject({ identity: "alice" });
    const ticket = seated.at(-1)!;

    const rebuilt = new Room({ kind: "counter", roomId: "r1", game: new CounterGame(), clock: new FakeClock(), options: { cap: 5 } });
    rebuilt.adopt(new FakeConnection(), ticket);
    const conn = new FakeConnection();
    const id = rebuilt.open(conn, "alice");
    rebuilt.message(id, hello());
    expect(conn.messages().find((m): m is Welcome => m.kind === "welcome")).toMatchObject({ playerId: ticket.playerId, reconnected: true });
    expect(rebuilt.seatCount).toBe(1);
  });
});
