import { BinaryWriter, DecodeError, FrameWriter, isDecodeError, isRejection, quantizeInput, readInput, writeEvent } from "@tikron/protocol";
import { handWrittenFpsEvent } from "./support/fpsEventsBefore";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FPS_MAX_SHOT_TIME, STICK_STEP, fpsEvents, fpsInputs, type FpsEvent, type FpsInput } from "../src/schemas";

const w = new BinaryWriter();
const angleStep = (2 * Math.PI) / 65536;
const MOVE = 0;
const SHOT = 1;

function angleDiff(a: number, b: number): number {
  const d = Math.abs(a - b) % (2 * Math.PI);
  return Math.min(d, 2 * Math.PI - d);
}

describe("fps declared inputs", () => {
  it("round-trip moves (6 bytes) and shots (11 bytes) within their steps, as the prediction's quantizeInput says", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 100 }),
        fc.double({ min: -20, max: 20, noNaN: true }),
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        (dir, mag, dtMs, aim, time) => {
          const sent: FpsInput = { kind: "move", dx: Math.cos(dir) * mag, dy: Math.sin(dir) * mag, dtMs, aim };
          const move = fpsInputs.encode(sent, w);
          expect(move.length).toBe(6);
          const m = readInput(fpsInputs, move);
          if (isRejection(m) || m.kind !== "move") throw new Error(JSON.stringify(m));
          expect(m).toEqual(quantizeInput(fpsInputs, sent));
          expect(Math.abs(m.dx - Math.cos(dir) * mag)).toBeLessThanOrEqual(STICK_STEP / 2 + 1e-12);
          expect(Math.abs(m.dy - Math.sin(dir) * mag)).toBeLessThanOrEqual(STICK_STEP / 2 + 1e-12);
          expect(m.dtMs).toBe(dtMs);
          expect(angleDiff(m.aim, aim)).toBeLessThanOrEqual(angleStep / 2 + 1e-9);
          const shot = fpsInputs.encode({ kind: "shot", time, aim }, w);
          expect(shot.length).toBe(11);
          const s = readInput(fpsInputs, shot);
          if (isRejection(s) || s.kind !== "shot") throw new Error(JSON.stringify(s));
          expect(s.time).toBe(time);
          expect(angleDiff(s.aim, aim)).toBeLessThanOrEqual(angleStep / 2 + 1e-9);
        },
      ),
    );
  });

  const shotBytes = (time: number) => new BinaryWriter().u8(SHOT).f64(time).u16(0).toBytes();
  it.each([
    ["a step over 100 ms", () => new Uint8Array([MOVE, 127, 127, 101, 0, 0]), "input move.dtMs: level 101 is past the last of 101 (quant(0,100,1))"],
    ["a stick axis past its range", () => new Uint8Array([MOVE, 255, 127, 16, 0, 0]), "input move.dx: level 255 is past the last of 255 (quant(-1,1,0.007874015748031496))"],
    ["a NaN shot time", () => shotBytes(NaN), "input shot.time: NaN is not a finite number"],
    ["an infinite shot time", () => shotBytes(Infinity), "input shot.time: Infinity is not a finite number"],
    ["a negative shot time", () => shotBytes(-1), "input shot.time: -1 is outside 0..4294967296"],
    ["an absurd shot time", () => shotBytes(2 ** 33), "input shot.time: 8589934592 is outside 0..4294967296"],
    ["a short move", () => fpsInputs.encode({ kind: "move", dx: 0, dy: 0, dtMs: 0, aim: 0 }, w).subarray(0, 5), "input move.aim: truncated"],
    ["a long shot", () => new BinaryWriter().bytes(fpsInputs.encode({ kind: "shot", time: 1, aim: 0 }, w)).u8(0).toBytes(), "input: 12 bytes where the declaration reads 11"],
    ["an unknown kind", () => new Uint8Array([9, 0, 0]), "input: unknown kind 9"],
    ["an empty payload", () => new Uint8Array(0), "input: empty (no kind)"],
  ])("refuses %s as bad_input, naming the field", (_name, make, reason) => {
    expect(readInput(fpsInputs, make())).toEqual({ rejected: true, code: "bad_input", reason });
  });

  it("the SDK's side refuses what it cannot send (a NaN aim, an undeclared kind) and clamps the rest", () => {
    expect(() => fpsInputs.encode({ kind: "move", dx: 1, dy: 0, dtMs: 16, aim: NaN }, w)).toThrow("input move.aim: NaN is not a finite number");
    expect(() => fpsInputs.encode({ kind: "jump" } as unknown as FpsInput, w)).toThrow("input kind jump is not declared");
    expect(quantizeInput(fpsInputs, { kind: "move", dx: 1.2, dy: -3, dtMs: 250, aim: 0 })).toEqual({ kind: "move", dx: 1, dy: -1, dtMs: 100, aim: 0 });
    expect(quantizeInput(fpsInputs, { kind: "shot", time: FPS_MAX_SHOT_TIME * 2, aim: 0 })).toEqual({ kind: "shot", time: FPS_MAX_SHOT_TIME, aim: 0 });
  });

  it("refuses non-binary payloads", () => {
    expect(readInput(fpsInputs, { kind: "move" })).toMatchObject({ rejected: true, code: "bad_input", reason: "input must be bytes" });
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
