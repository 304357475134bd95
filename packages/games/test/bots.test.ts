import { describe, expect, it } from "vitest";
import { TestRoom } from "@tikron/core/testing";
import type { AnyGameTypes } from "@tikron/protocol";
import { gameDefinitions, tttBotMove, type AgarGame } from "../src";
import { agarTypes, fpsTypes, movementTypes, tttTypes } from "../src/schemas";

const typesOf: Record<string, AnyGameTypes> = { agar: agarTypes, movement: movementTypes, fps: fpsTypes };

function roomOf(kind: string, overrides: Record<string, number> = {}) {
  const t = new TestRoom(gameDefinitions[kind]!, typesOf[kind]!, { overrides });
  return { t, room: t.room };
}

describe("bots", () => {
  for (const kind of ["agar", "movement", "fps"]) {
    it(`${kind}: bots join, send inputs the room applies, and are counted apart`, () => {
      const { t, room } = roomOf(kind);
      t.join("human");
      expect(room.setBots(5)).toBe(5);
      t.advance(2000);
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
    const { t, room } = roomOf("agar");
    t.join("human");
    room.setBots(3);
    const game = t.game as AgarGame;
    const positions = () => JSON.stringify([...(game as unknown as { cells: Map<number, { rec: { x: number; y: number } }> }).cells.values()].map((c) => [Math.round(c.rec.x), Math.round(c.rec.y)]));
    t.advance(200);
    const a = positions();
    t.advance(1000);
    expect(positions()).not.toBe(a);
  });

  it("50 bots do not use up the room's join admission: a human still gets in", () => {
    const { t, room } = roomOf("agar", { bots: 50, cap: 100 });
    t.advance(1);
    const human = t.join("human");
    expect(room.snapshot().bots.count).toBe(50);
    expect(room.snapshot().ccu).toBe(51);
    expect(human.closed).toBeNull();
  });

  it("a DEV_MODE bots=N room starts with N bots, and they take seats like anyone", () => {
    const { t, room } = roomOf("agar", { bots: 4, cap: 3 });
    t.advance(1);
    expect(room.snapshot().bots.count).toBe(3);
    expect(room.snapshot().refused.room_full).toBe(1);
  });

  it("bots leave a room no human has been in for five minutes, so its loop can stop", () => {
    const { t, room } = roomOf("movement", { bots: 3 });
    t.advance(1);
    expect(room.loopRunning).toBe(true);
    t.advance(4 * 60_000);
    expect(room.botCount).toBe(3);
    t.advance(61_000 + 100);
    expect(room.botCount).toBe(0);
    expect(room.loopRunning).toBe(false);
  });

  it("ttt: a bot opponent plays legal moves against a human through the JSON path", async () => {
    const t = new TestRoom(gameDefinitions["ttt-json"]!, tttTypes);
    const human = t.join("human");
    t.room.setBots(1);
    await t.settle();
    expect(human.state.status).toBe("playing");
    // X (the human, seated first) plays the top-left corner; the bot answers within its think time.
    human.input({ cell: 0 });
    await t.settle();
    t.advance(1000);
    await t.settle();
    expect(human.state.board.filter((c) => c === "O").length).toBe(1);
    expect(t.stats().inputs.rejected).toBe(0);
  });

  it("ttt bot move: wins, then blocks, then takes the centre", () => {
    const r = () => 0;
    expect(tttBotMove(["O", "O", null, "X", "X", null, null, null, null], "O", r)).toBe(2);
    expect(tttBotMove(["X", "X", null, null, "O", null, null, null, null], "O", r)).toBe(2);
    expect(tttBotMove([null, null, null, null, null, null, null, null, "X"], "O", r)).toBe(4);
  });
});
