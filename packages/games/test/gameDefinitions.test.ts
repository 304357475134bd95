import { defaultRoomOptions, type Game, type RoomOptions } from "@tikron/core";
import { BinaryWriter } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { gameDefinitions } from "../src/gameDefinitions";
import { FpsGame } from "../src/fps/fpsGame";
import { encodeAgarInput, encodeFpsMove, encodeMovementInput, FPS_PRESETS, fpsSchema, movementSchema, agarSchema } from "../src/schemas";
import { settle, TestRoom } from "./support/roomHarness";

const w = new BinaryWriter();

function create(kind: string, params = {}): { game: Game; options: Partial<RoomOptions> } {
  const def = gameDefinitions[kind]!;
  return { game: def.create({ ...defaultRoomOptions, ...def.defaults }, params), options: def.defaults };
}

describe("gameDefinitions", () => {
  it("hosts the four kinds under their own names with their defaults", () => {
    expect(Object.keys(gameDefinitions).sort()).toEqual(["agar", "fps", "movement", "ttt-json"]);
    for (const [name, def] of Object.entries(gameDefinitions)) expect(def.kind).toBe(name);
    expect(gameDefinitions.movement!.defaults).toMatchObject({ cap: 64, tickMs: 50, syncIntervalMs: 50 });
    expect(gameDefinitions.fps!.defaults).toMatchObject({ cap: 100, queueInputs: true, ...FPS_PRESETS.hz30 });
    expect(gameDefinitions["ttt-json"]!.defaults).toMatchObject({ cap: 2 });
    for (const kind of Object.keys(gameDefinitions)) {
      const { game } = create(kind);
      expect(game.kind).toBe(kind);
      expect(game.sync.mode).toBe(kind === "ttt-json" ? "json" : "binary");
      expect(game.ticking).toBe(kind !== "ttt-json");
    }
  });

  it("passes DEV_MODE params and the tick length through to the fps room", () => {
    const def = gameDefinitions.fps!;
    const game = def.create({ ...defaultRoomOptions, ...FPS_PRESETS.hz60, cap: 10 }, { world: 1000, aoi: 400 }) as FpsGame;
    expect(game.config).toMatchObject({ world: 1000, aoiRadius: 400, tickMs: 16, slots: 10 });
    expect(game.world.tiers.tiers).toEqual([
      { radius: 200, every: 1 },
      { radius: 400, every: 4 },
    ]);
  });

  it.each([
    ["agar", agarSchema, () => encodeAgarInput(w, { dx: 1, dy: 0, boost: false })],
    ["movement", movementSchema, () => encodeMovementInput(w, { dx: 1, dy: 0, sprint: false })],
    ["fps", fpsSchema, () => encodeFpsMove(w, { dx: 1, dy: 0, dtMs: 33, aim: 0 })],
  ] as const)("%s: two players join, play, and state arrives and decodes", (kind, schema, input) => {
    const { game, options } = create(kind);
    const t = new TestRoom(game, options);
    const a = t.joinBinary("a");
    const b = t.joinBinary("b");
    expect(a.welcome!.schemaHash).toBe(schema.hash);
    for (let i = 0; i < 10; i++) {
      a.send(input());
      b.send(input());
      t.clock.advance(50);
    }
    expect(a.view(schema as never).size).toBeGreaterThan(0);
    // The newest ack (a later idle frame carries none).
    expect(Math.max(...a.frames().map((f) => f.ackSeq))).toBe(10);
    expect(t.room.snapshot().inputs).toMatchObject({ received: 20, processed: 20, rejected: 0 });
  });

  it("ttt-json: two players join, play, and state arrives", async () => {
    const { game, options } = create("ttt-json");
    const t = new TestRoom(game, options);
    const x = t.joinJson("x");
    const o = t.joinJson("o");
    await settle();
    x.send({ cell: 4 });
    await settle();
    expect(o.state().board[4]).toBe("X");
    expect(x.all().at(-1)).toMatchObject({ t: "state", ack: 1 });
  });
});
