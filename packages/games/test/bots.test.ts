import { describe, expect, it } from "vitest";
import { FakeClock, createRoom, type Connection } from "@tikron/core";
import { BinaryWriter, JSON_KEEPALIVE, PROTOCOL_VERSION, encodeHello } from "@tikron/protocol";
import { gameDefinitions, tttBotMove, type AgarGame } from "../src";

class Sink implements Connection {
  sent: (Uint8Array | string)[] = [];
  closed: number | null = null;
  send(d: Uint8Array | string): void {
    this.sent.push(typeof d === "string" ? d : d.slice());
  }
  close(code: number): void {
    this.closed ??= code;
  }
  bufferedAmount(): number {
    return 0;
  }
}

function roomOf(kind: string, overrides: Record<string, number> = {}) {
  const clock = new FakeClock();
  const room = createRoom(gameDefinitions[kind]!, { kind, roomId: "b1", clock, overrides });
  return { clock, room };
}

function humanJoins(room: ReturnType<typeof roomOf>["room"], json = false): Sink {
  const conn = new Sink();
  const id = room.open(conn);
  if (json) room.message(id, JSON.stringify({ t: "hello", v: PROTOCOL_VERSION, token: "", name: "human" }));
  else room.message(id, encodeHello(new BinaryWriter(), { version: PROTOCOL_VERSION, token: "", name: "human" }).toBytes());
  return conn;
}

describe("bots", () => {
  for (const kind of ["agar", "movement", "fps"]) {
    it(`${kind}: bots join, send inputs the room applies, and are counted apart`, () => {
      const { clock, room } = roomOf(kind);
      humanJoins(room);
      expect(room.setBots(5)).toBe(5);
      clock.advance(2000);
      const s = room.snapshot();
      expect(s.bots.count).toBe(5);
      expect(s.ccu).toBe(6);
      // ~10 inputs/s each for 2 s; every one went through decodeInput and applyInput.
      expect(s.bots.inputs).toBeGreaterThanOrEqual(5 * 15);
      expect(s.inputs.received).toBe(s.bots.inputs);
      expect(s.inputs.rejected).toBe(0);
      expect(s.inputs.processed).toBe(s.bots.inputs);
      expect(room.setBots(2)).toBe(2);
      expect(room.snapshot().ccu).toBe(3);
    });
  }

  it("agar bots move their cells", () => {
    const { clock, room } = roomOf("agar");
    humanJoins(room);
    room.setBots(3);
    const game = (room as unknown as { game: AgarGame }).game;
    const positions = () => JSON.stringify([...(game as unknown as { cells: Map<number, { rec: { x: number; y: number } }> }).cells.values()].map((c) => [Math.round(c.rec.x), Math.round(c.rec.y)]));
    clock.advance(200);
    const a = positions();
    clock.advance(1000);
    expect(positions()).not.toBe(a);
  });

  it("50 bots do not use up the room's join admission: a human still gets in", () => {
    const { clock, room } = roomOf("agar", { bots: 50, cap: 100 });
    clock.advance(1);
    const human = humanJoins(room);
    expect(room.snapshot().bots.count).toBe(50);
    expect(room.snapshot().ccu).toBe(51);
    expect(human.closed).toBeNull();
  });

  it("a DEV_MODE bots=N room starts with N bots, and they take seats like anyone", () => {
    const { clock, room } = roomOf("agar", { bots: 4, cap: 3 });
    clock.advance(1);
    expect(room.snapshot().bots.count).toBe(3);
    expect(room.snapshot().refused.room_full).toBe(1);
  });

  it("bots leave a room no human has been in for five minutes, so its loop can stop", () => {
    const { clock, room } = roomOf("movement", { bots: 3 });
    clock.advance(1);
    expect(room.loopRunning).toBe(true);
    clock.advance(4 * 60_000);
    expect(room.botCount).toBe(3);
    clock.advance(61_000 + 100);
    expect(room.botCount).toBe(0);
    expect(room.loopRunning).toBe(false);
  });

  it("ttt: a bot opponent plays legal moves against a human through the JSON path", async () => {
    const settle = () => new Promise<void>((r) => setTimeout(r, 0));
    const { clock, room } = roomOf("ttt-json");
    const human = humanJoins(room, true);
    room.setBots(1);
    await settle();
    const views = () => human.sent.filter((d): d is string => typeof d === "string" && d !== JSON_KEEPALIVE).map((t) => JSON.parse(t)).filter((m) => m.t === "state" && m.state);
    expect(views().at(-1).state.status).toBe("playing");
    // X (the human, seated first) plays the top-left corner; the bot answers within its think time.
    room.message(1, JSON.stringify({ t: "input", seq: 1, data: { cell: 0 } }));
    await settle();
    clock.advance(1000);
    await settle();
    const board = views().at(-1).state.board as (string | null)[];
    expect(board.filter((c) => c === "O").length).toBe(1);
    expect(room.snapshot().inputs.rejected).toBe(0);
  });

  it("ttt bot move: wins, then blocks, then takes the centre", () => {
    const r = () => 0;
    expect(tttBotMove(["O", "O", null, "X", "X", null, null, null, null], "O", r)).toBe(2);
    expect(tttBotMove(["X", "X", null, null, "O", null, null, null, null], "O", r)).toBe(2);
    expect(tttBotMove([null, null, null, null, null, null, null, null, "X"], "O", r)).toBe(4);
  });
});
