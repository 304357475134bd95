/**
 * The page predicts with the rooms' own movement steps (`stepAgarCell`, `stepShooter` from
 * `@tikron/games/schemas`). These tests run the prediction the way the page does, on inputs as
 * `quantizeInput` says the room reads them, against the room's real simulation fed the bytes
 * the page sends; the packages' own property tests cover the step itself.
 */
import { describe, expect, it } from "vitest";
import { BinaryWriter, isRejection, quantizeInput, readInput } from "@tikron/protocol";
import { AgarGame } from "../../../../packages/games/src/agar/agarGame";
import { FpsGame } from "../../../../packages/games/src/fps/fpsGame";
import {
  AGAR_RULES,
  FPS_RULES,
  agarInputs,
  fpsInputs,
  stepAgarCell,
  stepShooter,
  type AgarCellState as CellState,
  type AgarInput,
  type FpsMove,
  type ShooterBody as ShooterState,
} from "@tikron/games/schemas";
import { MoveAccumulator, type ShooterMove } from "../../src/moveAccumulator";

const w = new BinaryWriter();

describe("agar prediction rule", () => {
  it("moves a cell exactly like the room's tick, walls and boost included", () => {
    const world = 1000;
    const game = new AgarGame({ world, orbs: 0, seed: 3 });
    game.join({ playerId: 1, name: "a", identity: "test-1", claims: {}, options: {} });
    const rec = game.cellOf(1) as CellState;
    rec.x = 500;
    rec.y = 30;
    rec.r = 36;
    let predicted: CellState = { x: rec.x, y: rec.y, r: rec.r };
    const inputs: AgarInput[] = [
      { dx: 1, dy: 0, boost: false },
      { dx: 0.6, dy: -0.8, boost: false },
      { dx: -0.70710678, dy: 0.70710678, boost: true },
      { dx: 0, dy: -1, boost: true },
      { dx: 0.3, dy: 0.1, boost: false },
    ];
    let touchedWall = false;
    for (let i = 0; i < 40; i++) {
      const input = inputs[i % inputs.length]!;
      const seen = readInput(agarInputs, agarInputs.encode(input, w));
      if (isRejection(seen)) throw new Error(seen.reason);
      game.applyInput(1, seen);
      game.tick(i * 50, 50);
      predicted = stepAgarCell(predicted, quantizeInput(agarInputs, input), 50, world, { x: 0, y: 0, r: 0 });
      expect(predicted.x).toBe(rec.x);
      expect(predicted.y).toBe(rec.y);
      expect(predicted.r).toBe(rec.r);
      if (rec.y === rec.r) touchedWall = true;
    }
    // The run covered the clamp at the wall and boost burning mass.
    expect(touchedWall).toBe(true);
    expect(rec.r).toBeLessThan(36);
    expect(rec.r).toBeGreaterThan(AGAR_RULES.startRadius);
  });
});

describe("fps prediction rule", () => {
  it("applies moves exactly like the room", () => {
    const world = 600;
    const game = new FpsGame({ world, seed: 1, spawnPoint: () => ({ x: 30, y: 300 }) });
    game.join({ playerId: 1, name: "a", identity: "test-1", claims: {}, options: {} });
    let predicted: ShooterState = { x: 30, y: 300, hp: 100 };
    const moves: FpsMove[] = [
      { kind: "move", dx: -1, dy: 0, dtMs: 33, aim: 1 },
      { kind: "move", dx: 0.6, dy: 0.8, dtMs: 17, aim: 2 },
      { kind: "move", dx: 0.2, dy: -0.1, dtMs: 100, aim: 0 },
      { kind: "move", dx: 0, dy: 0, dtMs: 0, aim: 4 },
    ];
    let at = 0;
    for (let i = 0; i < 30; i++) {
      const move = moves[i % moves.length]!;
      const seen = readInput(fpsInputs, fpsInputs.encode(move, w));
      if (isRejection(seen) || seen.kind !== "move") throw new Error("rejected");
      at += 100;
      expect(game.applyInput(1, seen, at)).toBeUndefined();
      const mine = quantizeInput(fpsInputs, move) as FpsMove;
      predicted = stepShooter(predicted, mine, mine.dtMs, world, { x: 0, y: 0, hp: 0 });
      const rec = game.playerOf(1)!;
      expect(predicted.x).toBe(rec.x);
      expect(predicted.y).toBe(rec.y);
    }
    expect(game.playerOf(1)!.x).toBeGreaterThanOrEqual(FPS_RULES.playerRadius);
  });

  it("does not move the dead", () => {
    const s = { x: 40, y: 40, hp: 0 };
    expect(stepShooter(s, { dx: 1, dy: 0 }, 50, 600, { x: 0, y: 0, hp: 1 })).toEqual(s);
  });
});

describe("MoveAccumulator", () => {
  it("sends exactly the movement the frames showed, in whole milliseconds", () => {
    const acc = new MoveAccumulator();
    const out: ShooterMove = { dx: 0, dy: 0, dtMs: 0 };
    let shownX = 0;
    let sentX = 0;
    let sentY = 0;
    const frames = [16.7, 16.6, 16.8, 33.1, 8.2, 16.7];
    for (let i = 0; i < 60; i++) {
      const ms = frames[i % frames.length]!;
      const stick = i % 20 < 10 ? [1, 0] : [0.6, -0.8];
      acc.addFrame(stick[0]!, stick[1]!, ms);
      shownX += (stick[0]! * ms * FPS_RULES.moveSpeed) / 1000;
      if (i % 2 === 1) {
        while (acc.take(out)) {
          expect(Number.isInteger(out.dtMs)).toBe(true);
          expect(out.dtMs).toBeLessThanOrEqual(FPS_RULES.maxStepMs);
          expect(Math.hypot(out.dx, out.dy)).toBeLessThanOrEqual(1 + 1e-12);
          sentX += (out.dx * out.dtMs * FPS_RULES.moveSpeed) / 1000;
          sentY += (out.dy * out.dtMs * FPS_RULES.moveSpeed) / 1000;
        }
      }
    }
    // What is shown = what was sent + what is still pending.
    expect(sentX + acc.pendingX()).toBeCloseTo(shownX, 6);
    expect(acc.pendingMs).toBeLessThan(1);
    expect(sentY).toBeLessThan(0);
  });

  it("drops time spent standing still and caps frame hitches", () => {
    const acc = new MoveAccumulator();
    const out: ShooterMove = { dx: 0, dy: 0, dtMs: 0 };
    acc.addFrame(0, 0, 5000);
    expect(acc.take(out)).toBe(false);
    expect(acc.pendingMs).toBe(0);
    acc.addFrame(1, 0, 5000);
    expect(acc.take(out)).toBe(true);
    expect(out).toEqual({ dx: 1, dy: 0, dtMs: 100 });
    expect(acc.take(out)).toBe(false);
  });
});
