import { defaultRoomOptions, type Game } from "@tikron/core";
import { TestRoom } from "@tikron/core/testing";
import type { AnyGameTypes } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { gameDefinitions } from "../src/gameDefinitions";
import { FpsGame } from "../src/fps/fpsGame";
import { agarTypes, FPS_PRESETS, fpsTypes, movementTypes, tttTypes } from "../src/schemas";

function create(kind: string, params = {}): Game {
  const def = gameDefinitions[kind]!;
  return def.create({ ...defaultRoomOptions, ...def.defaults }, params, 1);
}

describe("gameDefinitions", () => {
  it("hosts the four kinds under their own names with their defaults", () => {
    expect(Object.keys(gameDefinitions).sort()).toEqual(["agar", "fps", "movement", "ttt-json"]);
    for (const [name, def] of Object.entries(gameDefinitions)) expect(def.kind).toBe(name);
    expect(gameDefinitions.movement!.defaults).toMatchObject({ cap: 64, tickMs: 50, syncIntervalMs: 50 });
    expect(gameDefinitions.fps!.defaults).toMatchObject({ cap: 100, queueInputs: true, ...FPS_PRESETS.hz30 });
    expect(gameDefinitions["ttt-json"]!.defaults).toMatchObject({ cap: 2 });
    for (const kind of Object.keys(gameDefinitions)) {
      const game = create(kind);
      expect(game.kind).toBe(kind);
      expect(game.sync.mode).toBe(kind === "ttt-json" ? "json" : "binary");
      expect(game.ticking).toBe(kind !== "ttt-json");
    }
  });

  it("passes DEV_MODE params and the tick length through to the fps room", () => {
    const def = gameDefinitions.fps!;
    const game = def.create({ ...defaultRoomOptions, ...FPS_PRESETS.hz60, cap: 10 }, { world: 1000, aoi: 400 }, 1) as FpsGame;
    expect(game.config).toMatchObject({ world: 1000, aoiRadius: 400, tickMs: 16, slots: 10 });
    expect(game.world.tiers.tiers).toEqual([
      { radius: 200, every: 1 },
      { radius: 400, every: 4 },
    ]);
  });

  // Each kind's client declaration (what a page connects with) speaks to the room its definition makes.
  it.each([
    ["agar", agarTypes, { dx: 1, dy: 0, boost: false }],
    ["movement", movementTypes, { dx: 1, dy: 0, sprint: false }],
    ["fps", fpsTypes, { kind: "move", dx: 1, dy: 0, dtMs: 33, aim: 0 }],
  ] as [string, AnyGameTypes, unknown][])("%s: two players join, play, and state arrives and decodes", (kind, types, input) => {
    const t = new TestRoom(gameDefinitions[kind]!, types);
    const a = t.join("a");
    const b = t.join("b");
    expect(a.welcome!.schemaHash).toBe(types.schema!.hash);
    for (let i = 0; i < 10; i++) {
      a.input(input);
      b.input(input);
      t.advance(50);
    }
    expect((a.state as { size: number }).size).toBeGreaterThan(0);
    // The newest ack (a later idle frame carries none).
    expect(a.ackSeq).toBe(10);
    expect(t.stats().inputs).toMatchObject({ received: 20, processed: 20, rejected: 0 });
  });

  it("ttt-json: two players join, play, and state arrives", async () => {
    const t = new TestRoom(gameDefinitions["ttt-json"]!, tttTypes);
    const x = t.join("x");
    const o = t.join("o");
    await t.settle();
    x.input({ cell: 4 });
    await t.settle();
    expect(o.state.board[4]).toBe("X");
    expect(x.messages.at(-1)).toMatchObject({ kind: "frame", ackSeq: 1, hasState: true });
  });
});
