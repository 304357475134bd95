/**
 * One meaning of room time: ms since the room's epoch, the clock FRAME `time` and the welcome's
 * `roomEpoch` count in. Everything the room tells its game (`ctx.now()`, `tick(now)`,
 * `applyInput`'s `receivedAt`, a bot brain's `next(now)`) is on that clock, so a time a client
 * sends back (from a frame) means the same instant to the game.
 */
import { BinaryWriter, PROTOCOL_VERSION, encodeHello, encodeInputs } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { FakeClock, createRoom, type GameDefinition } from "../src";
import { CounterGame, FakeConnection } from "./fakes";

const w = new BinaryWriter();
const hello = () => encodeHello(w.reset(), { version: PROTOCOL_VERSION, token: "", name: "p" }).toBytes();
const input = (seq: number, n: number) => encodeInputs(w.reset(), [{ seq, payload: new Uint8Array([n]) }]).toBytes();

describe("room time", () => {
  it("is ms since the room's epoch everywhere the game sees time, as in FRAME time", () => {
    const clock = new FakeClock(1_700_000_000_000);
    clock.advance(123);
    const game = new CounterGame();
    const botTimes: number[] = [];
    const def: GameDefinition = {
      kind: "counter",
      defaults: { tickMs: 50, syncIntervalMs: 50 },
      create: () => game,
      bots: { inputEveryMs: 50, create: () => ({ next: (now) => (botTimes.push(now), new Uint8Array([1])) }) },
    };
    const room = createRoom(def, { kind: "counter", roomId: "t", clock });
    expect(game.ctx.now()).toBe(0);

    const conn = new FakeConnection();
    const id = room.open(conn);
    room.message(id, hello());
    const welcome = conn.messages().find((m) => m.kind === "welcome")!;
    expect(welcome).toMatchObject({ roomEpoch: 1_700_000_000_123 });

    clock.advance(20);
    room.message(id, input(1, 5));
    clock.advance(30); // the first tick, 50 ms after the loop started
    expect(game.applied).toEqual([{ playerId: 1, n: 5, receivedAt: 20 }]);
    expect(game.ticks).toEqual([50]);
    expect(game.ctx.now()).toBe(50);
    const frame = conn.frames().at(-1)!;
    expect(frame.time).toBe(game.ticks[0]);

    room.setBots(1);
    clock.advance(100);
    expect(game.ticks).toEqual([50, 100, 150]);
    expect(botTimes.length).toBeGreaterThan(0);
    for (const t of botTimes) expect(t).toBeLessThanOrEqual(150);
    expect(Math.min(...botTimes)).toBeGreaterThanOrEqual(50);
    room.dispose();
  });
});
