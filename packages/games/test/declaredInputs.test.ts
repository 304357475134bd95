/**
 * The built-in games' declared inputs: what each costs on the wire against the hand-written codecs
 * they replaced (a game moves to a declaration only if its bytes per input do not grow), the
 * stick's one length rule, and the schema hash covering the declaration.
 */
import { BinaryWriter, defineSchema, inputMaxBytes, quantizeInput } from "@tikron/protocol";
import { describe, expect, it } from "vitest";
import { agarInputs, agarSchema, fpsInputs, movementInputs, STICK_STEP, stickScale } from "../src/schemas";

const w = new BinaryWriter(32);

describe("bytes per input, declared against the hand-written codecs they replaced", () => {
  // The codecs before: agar and movement `f32 dx, f32 dy, u8 flags` (9 bytes); fps move
  // `u8 kind, f32 dx, f32 dy, u8 dtMs, u16 aim` (12), shot `u8 kind, f64 time, u16 aim` (11).
  it("agar: 3 bytes, not more than the 9 it was", () => {
    const bytes = agarInputs.encode({ dx: 0.6, dy: -0.8, boost: true }, w).length;
    expect(bytes).toBe(3);
    expect(bytes).toBeLessThanOrEqual(9);
    expect(inputMaxBytes(agarInputs)).toBe(3);
  });

  it("movement: 3 bytes (was 9)", () => {
    expect(movementInputs.encode({ dx: -1, dy: 1, sprint: false }, w).length).toBe(3);
    expect(inputMaxBytes(movementInputs)).toBe(3);
  });

  it("fps: a move 6 bytes (was 12), a shot 11 (was 11)", () => {
    expect(fpsInputs.encode({ kind: "move", dx: 1, dy: 0, dtMs: 33, aim: 2 }, w).length).toBe(6);
    expect(fpsInputs.encode({ kind: "shot", time: 60_000.25, aim: 2 }, w).length).toBe(11);
    expect(inputMaxBytes(fpsInputs)).toBe(11);
  });
});

describe("the stick", () => {
  it("carries 0 and ±1 exactly, every other value within half a step", () => {
    for (const v of [-1, 0, 1]) expect(quantizeInput(agarInputs, { dx: v, dy: v, boost: false })).toEqual({ dx: v, dy: v, boost: false });
    for (let k = 0; k <= 1000; k++) {
      const v = -1 + k / 500;
      expect(Math.abs(quantizeInput(agarInputs, { dx: v, dy: 0, boost: false }).dx - v)).toBeLessThanOrEqual(STICK_STEP / 2 + 1e-12);
    }
  });

  it("is scaled to length 1 when longer (a diagonal), left alone otherwise", () => {
    expect(stickScale(1, 1)).toBeCloseTo(Math.SQRT1_2, 12);
    const d = quantizeInput(agarInputs, { dx: Math.SQRT1_2, dy: Math.SQRT1_2, boost: false });
    expect(Math.hypot(d.dx, d.dy)).toBeGreaterThan(1);
    expect(Math.hypot(d.dx, d.dy) * stickScale(d.dx, d.dy)).toBeCloseTo(1, 12);
    expect(stickScale(0.6, 0.5)).toBe(1);
    expect(stickScale(0, 0)).toBe(1);
  });
});

describe("the schema hash covers the declared inputs", () => {
  it("so a client built against other inputs refuses the room at the welcome", () => {
    const sameTypes = defineSchema(agarSchema.decl);
    const otherInputs = defineSchema(agarSchema.decl, { inputs: movementInputs });
    expect(sameTypes.hash).not.toBe(agarSchema.hash);
    expect(otherInputs.hash).not.toBe(agarSchema.hash);
    expect(defineSchema(agarSchema.decl, { inputs: agarInputs }).hash).toBe(agarSchema.hash);
  });
});
