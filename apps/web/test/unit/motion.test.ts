/**
 * The page predicts with its own copy of each game's movement rule; these tests hold that copy
 * to the room's real simulation, so a rules change on the server side fails here first.
 */
import { describe, expect, it } from "vitest";
import { BinaryWriter } from "@tikron/protocol";
import { AgarGame } from "../../../../packages/games/src/agar/agarGame";
import { AGAR_RULES, speedFor } from "../../../../packages/games/src/agar/agarRules";
import { FPS_RULES } from "../../../../packages/games/src/fps/fpsRules";
import { ShooterGame } from "../../../../packages/games/src/fps/shooterGame";
import { decodeAgarInput, decodeFpsInput, encodeAgarInput, encodeFpsMove, type AgarInput, type FpsMove } from "@tikron/games/schemas";
import { cellSpeed, stepCell, type CellState } from "../../src/agarMotion";
import { applyMove, MoveAccumulator, type ShooterMove, type ShooterState } from "../../src/fpsMotion";

const w = new BinaryWriter();

describe("agar prediction rule", () => {
  it("uses the room's speed curve", () => {
    for (const r of [20, 21.5, 40, 133, 400]) {
      expect(cellSpeed(r, false)).toBeCloseTo(speedFor(r, false), 9);
      expect(cellSpeed(r, true)).toBeCloseTo(speedFor(r, true), 9);
    }
  });

  it("moves a cell exactly like the room's tick, walls and boost included", () => {
    const world = 1000;
    const game = new AgarGame({ world, orbs: 0, seed: 3 });
    game.join(1, "a");
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
      const seen = decodeAgarInput(encodeAgarInput(w, inputs[i % inputs.length]!));
      if (!("dx" in seen)) throw new Error("rejected");
      game.applyInput(1, seen);
      game.tick(i * 50, 50);
      predicted = stepCell(predicted, { ...seen, dtMs: 50 }, world);
      expect(predicted.x).toBeCloseTo(rec.x, 9);
      expect(predicted.y).toBeCloseTo(rec.y, 9);
      expect(predicted.r).toBeCloseTo(rec.r, 9);
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
    const game = new ShooterGame({ world, seed: 1, spawnPoint: () => ({ x: 30, y: 300 }) });
    game.join(1, "a");
    let predicted: ShooterState = { x: 30, y: 300, hp: 100 };
    const moves: Omit<FpsMove, "kind">[] = [
      { dx: -1, dy: 0, dtMs: 33, aim: 1 },
      { dx: 0.6, dy: 0.8, dtMs: 17, aim: 2 },
      { dx: 0.2, dy: -0.1, dtMs: 100, aim: 0 },
      { dx: 0, dy: 0, dtMs: 0, aim: 4 },
    ];
    let at = 0;
    for (let i = 0; i < 30; i++) {
      const seen = decodeFpsInput(encodeFpsMove(w, moves[i % moves.length]!));
      if (!("kind" in seen) || seen.kind !== "move") throw new Error("rejected");
      at += 100;
      expect(game.applyInput(1, seen, at)).toBeUndefined();
      predicted = applyMove(predicted, seen, world);
      const rec = game.playerOf(1)!;
      expect(predicted.x).toBeCloseTo(rec.x, 9);
      expect(predicted.y).toBeCloseTo(rec.y, 9);
    }
    expect(game.playerOf(1)!.x).toBeGreaterThanOrEqual(FPS_RULES.playerRadius);
  });

  it("does not move the dead", () => {
    const s = { x: 10, y: 10, hp: 0 };
    expect(applyMove(s, { dx: 1, dy: 0, dtMs: 50 })).toBe(s);
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
