import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Game, GameDefinition } from "@tikron/core";
import { MemoryRecording, TestRoom } from "@tikron/core/testing";
import { replay } from "@tikron/core/replay";
import type { AnyGameTypes, InputOf } from "@tikron/protocol";
import { gameDefinitions } from "../src";
import { agarTypes, fpsTypes, movementTypes, tttTypes } from "../src/schemas";
import { play, replayed, roomOptions, steps } from "./support/replayHarness";

/** Each run is a short match (at most 24 steps, a few seconds of room time): 200 of them stay quick. */
const RUNS = 200;

const stick = fc.double({ min: -1.2, max: 1.2, noNaN: true });
const cases: [string, AnyGameTypes, fc.Arbitrary<unknown>][] = [
  ["agar", agarTypes, fc.record({ dx: stick, dy: stick, boost: fc.boolean() })],
  ["movement", movementTypes, fc.record({ dx: stick, dy: stick, sprint: fc.boolean() })],
  [
    "fps",
    fpsTypes,
    fc.oneof(
      fc.record({ kind: fc.constant("move"), dx: stick, dy: stick, dtMs: fc.integer({ min: 0, max: 120 }), aim: fc.double({ min: 0, max: 6.28, noNaN: true }) }),
      fc.record({ kind: fc.constant("shot"), time: fc.double({ min: 0, max: 4000, noNaN: true }), aim: fc.double({ min: 0, max: 6.28, noNaN: true }) }),
    ),
  ],
  ["ttt-json", tttTypes, fc.oneof(fc.record({ cell: fc.integer({ min: 0, max: 8 }) }), fc.constant({ rematch: true }))],
];

describe("a recorded match replays exactly (fast-check)", () => {
  for (const [kind, types, input] of cases) {
    const definition = gameDefinitions[kind]!;
    it(`${kind}: the replay's world equals the original's at every step and every player's frames are the same bytes`, async () => {
      await fc.assert(
        fc.asyncProperty(steps(input, types.json), fc.integer(), roomOptions(kind !== "ttt-json"), async (list, seed, overrides) => {
          const match = await play(definition, types, list as never as Parameters<typeof play>[2], seed, overrides);
          const again = await replayed(definition, match);
          expect(again.report.difference).toBeNull();
          expect(again.report.exact).toBe(true);
          expect(again.worlds).toEqual(match.worlds.map((w) => w.world));
          expect(again.messages).toEqual(match.messages);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

/** agar's definition with its game changed to read something a replay cannot give it again. */
function agarReading(what: "random" | "clock"): GameDefinition {
  const agar = gameDefinitions.agar!;
  return {
    ...agar,
    create: (options, params, seed) => {
      const game = agar.create(options, params, seed) as Game & { tick(now: number, dt: number): void };
      const tick = game.tick.bind(game);
      game.tick = (now, dt) => {
        // A cell nudged by the clock or an unseeded random: the world goes another way in a replay.
        const cell = (game as unknown as { cellOf(id: number): { x: number } | undefined }).cellOf(1);
        const nudge = 1 + (what === "random" ? Math.random() * 50 : Date.now() % 1000) / 20;
        // Towards the middle, so the world's edge never clamps it away.
        if (cell) cell.x += cell.x < 1000 ? nudge : -nudge;
        tick(now, dt);
      };
      return game;
    },
  };
}

describe("a game that cannot be replayed exactly is caught and named", () => {
  for (const what of ["random", "clock"] as const) {
    it(`agar reading ${what === "random" ? "Math.random" : "Date.now"} in tick: the first tick whose world differs is named`, async () => {
      const definition = agarReading(what);
      const recording = new MemoryRecording();
      const t = new TestRoom(definition, agarTypes, { recording, seed: 3 });
      const a = t.join("a");
      t.advance(200);
      a.input({ dx: 1, dy: 0, boost: false } as InputOf<typeof agarTypes>);
      // The clock moves on between the match and its replay (a fake clock does not, Date.now does).
      await new Promise((r) => setTimeout(r, 20));
      t.advance(1000);
      t.room.dispose();
      const report = await replay(definition, recording.log());
      expect(report.exact).toBe(false);
      expect(report.difference?.what).toBe("world");
      // Player 1's cell is nudged from its first tick: the first flush after it shows it.
      expect(report.difference?.tick).toBe(1);
      expect(report.message).toMatch(/^replay: the world differs at tick 1 .*agar is not replayed exactly/);
    });
  }

  it("the same game unchanged replays exactly from the same steps", async () => {
    const recording = new MemoryRecording();
    const t = new TestRoom(gameDefinitions.agar!, agarTypes, { recording, seed: 3 });
    const a = t.join("a");
    t.advance(200);
    a.input({ dx: 1, dy: 0, boost: false });
    t.advance(1000);
    t.room.dispose();
    expect((await replay(gameDefinitions.agar!, recording.log())).message).toMatch(/^replay: exact/);
  });
});
