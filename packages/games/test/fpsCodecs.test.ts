import { BinaryWriter, DecodeError, FrameWriter, isDecodeError, writeEvent } from "@tikron/protocol";
import { handWrittenFpsEvent } from "./support/fpsEventsBefore";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeFpsInput,
  encodeFpsMove,
  encodeFpsShot,
  fpsEvents,
  type FpsEvent,
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

const coordinate = fc.oneof(fc.double({ min: -10, max: 4200, noNaN: true }), fc.integer({ min: 0, max: 4095 }));
const playerId = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const fpsEvent: fc.Arbitrary<FpsEvent> = fc.oneof(
  fc.record({ kind: fc.constant("tracer" as const), shooter: playerId, hit: playerId, x0: coordinate, y0: coordinate, x1: coordinate, y1: coordinate }),
  fc.record({ kind: fc.constant("kill" as const), killer: playerId, victim: playerId }),
);

describe("fps events, declared in the schema", () => {
  it("take exactly the bytes of the hand-written codec they replaced, the same after the tag", () =>
    fc.assert(
      fc.property(fpsEvent, (e) => {
        const declared = writeEvent(new FrameWriter(), fpsEvents, e).toBytes();
        const before = handWrittenFpsEvent(e);
        expect(declared.length).toBe(before.length);
        expect(Array.from(declared.subarray(1))).toEqual(Array.from(before.subarray(1)));
      }),
      { numRuns: 2000 },
    ));

  it("round-trip tracers to 1/32 unit within the world and kills exactly", () =>
    fc.assert(
      fc.property(fpsEvent, (e) => {
        const out = fpsEvents.decode(writeEvent(new FrameWriter(), fpsEvents, e).toBytes());
        if (isDecodeError(out)) throw out;
        if (e.kind === "kill" || out.kind === "kill") {
          expect(out).toEqual(e);
          return;
        }
        const clamp = (v: number): number => Math.min(4095.9375, Math.max(0, v));
        for (const k of ["x0", "y0", "x1", "y1"] as const) expect(Math.abs(out[k] - clamp(e[k]))).toBeLessThanOrEqual(1 / 32);
        expect([out.shooter, out.hit]).toEqual([e.shooter, e.hit]);
      }),
    ));

  it("answer garbage with a DecodeError, never a throw", () => {
    for (const bytes of [[7], [0, 1], [1, 1, 1, 0], []]) expect(fpsEvents.decode(new Uint8Array(bytes))).toBeInstanceOf(DecodeError);
  });
});
