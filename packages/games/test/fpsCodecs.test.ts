import { BinaryWriter, isDecodeError } from "@tikron/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeFpsEvent,
  decodeFpsInput,
  encodeFpsKill,
  encodeFpsMove,
  encodeFpsShot,
  encodeFpsTracer,
  FPS_MOVE_BYTES,
  FPS_SHOT_BYTES,
  FpsInputKind,
} from "../src/schemas";

const w = new BinaryWriter();
const angleStep = (2 * Math.PI) / 65536;

function angleDiff(a: number, b: number): number {
  const d = Math.abs(a - b) % (2 * Math.PI);
  return Math.min(d, 2 * Math.PI - d);
}

describe("fps input codec", () => {
  it("round-trips moves and shots", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 100 }),
        fc.double({ min: -20, max: 20, noNaN: true }),
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        (dir, mag, dtMs, aim, time) => {
          const move = encodeFpsMove(w, { dx: Math.cos(dir) * mag, dy: Math.sin(dir) * mag, dtMs, aim });
          expect(move.length).toBe(FPS_MOVE_BYTES);
          const m = decodeFpsInput(move);
          if (!("kind" in m) || m.kind !== "move") throw new Error(JSON.stringify(m));
          expect(m.dx).toBeCloseTo(Math.cos(dir) * mag, 5);
          expect(m.dy).toBeCloseTo(Math.sin(dir) * mag, 5);
          expect(m.dtMs).toBe(dtMs);
          expect(angleDiff(m.aim, aim)).toBeLessThanOrEqual(angleStep / 2 + 1e-9);
          const shot = encodeFpsShot(w, { time, aim });
          expect(shot.length).toBe(FPS_SHOT_BYTES);
          const s = decodeFpsInput(shot);
          if (!("kind" in s) || s.kind !== "shot") throw new Error(JSON.stringify(s));
          expect(s.time).toBe(time);
          expect(angleDiff(s.aim, aim)).toBeLessThanOrEqual(angleStep / 2 + 1e-9);
        },
      ),
    );
  });

  it.each([
    ["NaN direction", () => new BinaryWriter().u8(FpsInputKind.Move).f32(NaN).f32(0).u8(16).u16(0).toBytes()],
    ["infinite direction", () => new BinaryWriter().u8(FpsInputKind.Move).f32(0).f32(-Infinity).u8(16).u16(0).toBytes()],
    ["magnitude over 1", () => encodeFpsMove(w, { dx: 1.2, dy: 0, dtMs: 16, aim: 0 })],
    ["step over 100 ms", () => encodeFpsMove(w, { dx: 1, dy: 0, dtMs: 101, aim: 0 })],
    ["NaN shot time", () => encodeFpsShot(w, { time: NaN, aim: 0 })],
    ["infinite shot time", () => encodeFpsShot(w, { time: Infinity, aim: 0 })],
    ["negative shot time", () => encodeFpsShot(w, { time: -1, aim: 0 })],
    ["absurd shot time", () => encodeFpsShot(w, { time: 2 ** 33, aim: 0 })],
    ["short move", () => encodeFpsMove(w, { dx: 0, dy: 0, dtMs: 0, aim: 0 }).subarray(0, 8)],
    ["long shot", () => new BinaryWriter().bytes(encodeFpsShot(w, { time: 1, aim: 0 })).u8(0).toBytes()],
    ["unknown kind", () => new Uint8Array([9, 0, 0])],
    ["empty", () => new Uint8Array(0)],
  ])("refuses %s as bad_input", (_name, make) => {
    expect(decodeFpsInput(make())).toMatchObject({ rejected: true, code: "bad_input" });
  });

  it("clamps a magnitude a hair over 1 (float error) to 1", () => {
    const m = decodeFpsInput(encodeFpsMove(w, { dx: 1.005, dy: 0, dtMs: 10, aim: 0 }));
    expect(m).toMatchObject({ kind: "move", dx: 1, dy: 0 });
  });

  it("refuses non-binary payloads", () => {
    expect(decodeFpsInput({ kind: "move" })).toMatchObject({ rejected: true, code: "bad_input" });
  });
});

describe("fps event codec", () => {
  it("round-trips tracers to 1/32 unit and kills exactly", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1e6 }),
        fc.integer({ min: 0, max: 1e6 }),
        fc.array(fc.double({ min: 0, max: 4095.9, noNaN: true }), { minLength: 4, maxLength: 4 }),
        (shooter, hit, [x0, y0, x1, y1]) => {
          const bytes = encodeFpsTracer(w, { shooter, hit, x0: x0!, y0: y0!, x1: x1!, y1: y1! });
          expect(bytes.length).toBeLessThanOrEqual(1 + 3 + 3 + 8);
          const e = decodeFpsEvent(bytes);
          if (isDecodeError(e) || e.kind !== "tracer") throw new Error(String(e));
          expect(e.shooter).toBe(shooter);
          expect(e.hit).toBe(hit);
          for (const [a, b] of [[e.x0, x0], [e.y0, y0], [e.x1, x1], [e.y1, y1]] as const) expect(Math.abs(a - b!)).toBeLessThanOrEqual(1 / 32);
        },
      ),
    );
    expect(decodeFpsEvent(encodeFpsKill(w, { killer: 3, victim: 300 }))).toEqual({ kind: "kill", killer: 3, victim: 300 });
  });

  it("answers garbage with a DecodeError, never a throw", () => {
    expect(isDecodeError(decodeFpsEvent(new Uint8Array([7])))).toBe(true);
    expect(isDecodeError(decodeFpsEvent(new Uint8Array([1, 1])))).toBe(true);
    expect(isDecodeError(decodeFpsEvent(new Uint8Array([2, 1, 1, 0])))).toBe(true);
    expect(isDecodeError(decodeFpsEvent(new Uint8Array([])))).toBe(true);
  });
});
