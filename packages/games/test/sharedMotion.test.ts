/**
 * The movement rules the rooms run and the clients predict with are one function per game
 * (`stepAgarCell`, `stepShooter`). These properties drive the real rooms with random inputs and
 * check (1) bit for bit that the room lands where the shared step predicts from the input as the
 * client's `quantizeInput` says the room reads it, and (2) that both land where the room's
 * movement did before the rule was shared (the `legacy*` oracles below are that code, kept
 * verbatim as the naive twin, fed the stick as the old decoders bounded it: scaled to length 1
 * when longer), to float rounding: the length bound moved from the decoder into the step.
 */
import { testPlayer } from "@tikron/core/testing";
import { BinaryWriter, isRejection, quantizeInput, readInput } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgarGame } from "../src/agar/agarGame";
import { AGAR_RULES, speedFor } from "../src/agar/agarRules";
import { FPS_RULES } from "../src/fps/fpsRules";
import { FpsGame } from "../src/fps/fpsGame";
import { agarInputs, fpsInputs, stepAgarCell, stepShooter, type AgarCellState, type FpsMove, type ShooterBody } from "../src/schemas";

const w = new BinaryWriter();

/** The agar room's tick movement before `stepAgarCell` existed. */
function legacyAgarStep(rec: AgarCellState, dx: number, dy: number, boost: boolean, dtMs: number, size: number): void {
  const dt = dtMs / 1000;
  const boosting = boost && rec.r > AGAR_RULES.startRadius;
  const v = speedFor(rec.r, boosting) * dt;
  rec.x = clamp(rec.x + dx * v, rec.r, size - rec.r);
  rec.y = clamp(rec.y + dy * v, rec.r, size - rec.r);
  if (boosting) rec.r = Math.max(AGAR_RULES.startRadius, rec.r - AGAR_RULES.boostBurn * dt);
}

/** The fps room's move before `stepShooter` existed (the hp check sat in front of it). */
function legacyShooterMove(rec: ShooterBody, dx: number, dy: number, dtMs: number, world: number): void {
  if (rec.hp === 0) return;
  const step = (FPS_RULES.moveSpeed * dtMs) / 1000;
  rec.x += dx * step;
  rec.y += dy * step;
  const lo = FPS_RULES.playerRadius;
  const hi = world - FPS_RULES.playerRadius;
  rec.x = rec.x < lo ? lo : rec.x > hi ? hi : rec.x;
  rec.y = rec.y < lo ? lo : rec.y > hi ? hi : rec.y;
}

/** The old decoders' bound: a stick longer than 1 scaled to length 1. */
function unitBounded(dx: number, dy: number): [number, number] {
  const mag = Math.hypot(dx, dy);
  return mag > 1 ? [dx / mag, dy / mag] : [dx, dy];
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/**
 * A fraction in [0, 1]. Built from integers: `fc.double` favours 0, 1 and subnormals, which would
 * leave most generated moves (near) axis-aligned or still and let a wrong rule slip through.
 */
const fraction = fc.integer({ min: 0, max: 10_000 }).map((k) => k / 10_000);
/** A stick inside the unit disc (angle, throttle), as clients send it. */
const stick = fc.record({ angle: fraction.map((f) => f * 2 * Math.PI), mag: fraction });

describe("agar: the room's movement is stepAgarCell", () => {
  it("matches the shared step and the pre-sharing rule bit for bit (walls, boost, any tick length)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 4000 }),
        fraction.map((f) => AGAR_RULES.startRadius + f * 70),
        fraction,
        fraction,
        fc.array(fc.record({ stick, boost: fc.boolean(), dtMs: fc.integer({ min: 1, max: 120 }) }), { minLength: 1, maxLength: 60 }),
        (world, r0, fx, fy, steps) => {
          const game = new AgarGame({ world, orbs: 0, seed: 1 });
          game.join(testPlayer(1, "a"));
          const rec = game.cellOf(1) as AgarCellState;
          rec.r = r0;
          rec.x = r0 + fx * (world - 2 * r0);
          rec.y = r0 + fy * (world - 2 * r0);
          let predicted: AgarCellState = { x: rec.x, y: rec.y, r: rec.r };
          const legacy: AgarCellState = { ...predicted };
          let t = 0;
          for (const s of steps) {
            const sent = { dx: Math.cos(s.stick.angle) * s.stick.mag, dy: Math.sin(s.stick.angle) * s.stick.mag, boost: s.boost };
            const seen = readInput(agarInputs, agarInputs.encode(sent, w));
            if (isRejection(seen)) throw new Error(`refused: ${seen.reason}`);
            game.applyInput(1, seen);
            game.tick((t += s.dtMs), s.dtMs);
            // What the demo's prediction does: the input as quantizeInput says the room reads it,
            // stepped into a fresh state per input, never the decoder's record.
            const mine = quantizeInput(agarInputs, sent);
            expect(mine).toEqual(seen);
            predicted = stepAgarCell(predicted, mine, s.dtMs, world, { x: 0, y: 0, r: 0 });
            const [lx, ly] = unitBounded(seen.dx, seen.dy);
            legacyAgarStep(legacy, lx, ly, seen.boost, s.dtMs, world);
            expect(rec.x).toBe(predicted.x);
            expect(rec.y).toBe(predicted.y);
            expect(rec.r).toBe(predicted.r);
            expect(legacy.x).toBeCloseTo(rec.x, 6);
            expect(legacy.y).toBeCloseTo(rec.y, 6);
            expect(legacy.r).toBe(rec.r);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("stepping in place equals stepping into a fresh state", () => {
    fc.assert(
      fc.property(fraction.map((f) => 20 + f * 380), stick, fc.boolean(), fc.integer({ min: 0, max: 200 }), (r, s, boost, dtMs) => {
        const input = { dx: Math.cos(s.angle) * s.mag, dy: Math.sin(s.angle) * s.mag, boost };
        const state = { x: 1000, y: 1000, r };
        const fresh = stepAgarCell(state, input, dtMs, 4000, { x: 0, y: 0, r: 0 });
        expect(state).toEqual({ x: 1000, y: 1000, r });
        expect(stepAgarCell(state, input, dtMs, 4000, state)).toEqual(fresh);
      }),
    );
  });
});

describe("fps: the room's movement is stepShooter", () => {
  it("matches the shared step and the pre-sharing rule bit for bit (walls, death, any step length)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 2400 }),
        fraction,
        fraction,
        fc.array(fc.record({ stick, dtMs: fc.integer({ min: 0, max: FPS_RULES.maxStepMs }), dead: fc.boolean() }), { minLength: 1, maxLength: 60 }),
        (world, fx, fy, moves) => {
          const span = world - 2 * FPS_RULES.playerRadius;
          const spawn = { x: FPS_RULES.playerRadius + fx * span, y: FPS_RULES.playerRadius + fy * span };
          const game = new FpsGame({ world, seed: 1, spawnPoint: () => spawn });
          game.join(testPlayer(1, "a"));
          const rec = game.playerOf(1) as ShooterBody;
          let predicted: ShooterBody = { x: rec.x, y: rec.y, hp: rec.hp };
          const legacy: ShooterBody = { ...predicted };
          let at = 0;
          for (const m of moves) {
            const sent: FpsMove = { kind: "move", dx: Math.cos(m.stick.angle) * m.stick.mag, dy: Math.sin(m.stick.angle) * m.stick.mag, dtMs: m.dtMs, aim: 0 };
            const seen = readInput(fpsInputs, fpsInputs.encode(sent, w));
            if (isRejection(seen) || seen.kind !== "move") throw new Error("refused");
            const mine = quantizeInput(fpsInputs, sent) as FpsMove;
            expect(mine).toEqual(seen);
            const hp = m.dead ? 0 : FPS_RULES.maxHp;
            rec.hp = predicted.hp = legacy.hp = hp;
            // Spaced so the speed budget never refuses an honest move.
            at += 200;
            expect(game.applyInput(1, seen, at)).toBeUndefined();
            predicted = stepShooter(predicted, mine, mine.dtMs, world, { x: 0, y: 0, hp: 0 });
            const [lx, ly] = unitBounded(seen.dx, seen.dy);
            legacyShooterMove(legacy, lx, ly, seen.dtMs, world);
            expect(rec.x).toBe(predicted.x);
            expect(rec.y).toBe(predicted.y);
            expect(predicted.hp).toBe(hp);
            expect(legacy.x).toBeCloseTo(rec.x, 6);
            expect(legacy.y).toBeCloseTo(rec.y, 6);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
