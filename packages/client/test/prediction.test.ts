import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { MAX_PENDING_INPUTS, Predictor } from "../src/prediction";

interface P {
  x: number;
  y: number;
}
type Move = { dx: number; dy: number };

const move = (s: P, i: Move): P => ({ x: s.x + i.dx, y: s.y + i.dy });
const dist = (a: P, b: P) => Math.hypot(a.x - b.x, a.y - b.y);

const moveArb = fc.record({ dx: fc.integer({ min: -5, max: 5 }), dy: fc.integer({ min: -5, max: 5 }) });

/**
 * The server applies inputs in order, deterministically, and now and then sends a frame acking
 * everything it has applied so far; frames arrive while later inputs are still in flight.
 */
function run(
  inputs: Move[],
  ackPoints: boolean[],
  serverRule: (s: P, i: Move) => P,
  predictor: Predictor<P, Move>,
): { finalPredicted: P; errors: number[] } {
  let server: P = { x: 0, y: 0 };
  let applied = 0;
  const errors: number[] = [];
  const lag = 3; // inputs in flight between client and server
  inputs.forEach((input, i) => {
    predictor.push(i + 1, input);
    while (applied < i + 1 - lag) server = serverRule(server, inputs[applied++]);
    if (ackPoints[i % ackPoints.length]) {
      predictor.reconcile({ ...server }, applied);
      errors.push(predictor.lastError);
    }
  });
  while (applied < inputs.length) server = serverRule(server, inputs[applied++]);
  predictor.reconcile({ ...server }, applied);
  errors.push(predictor.lastError);
  return { finalPredicted: predictor.state!, errors };
}

describe("Predictor", () => {
  it("replay after an ack reproduces the authoritative result: zero prediction error", () => {
    fc.assert(
      fc.property(fc.array(moveArb, { minLength: 1, maxLength: 200 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }), (inputs, acks) => {
        const p = new Predictor<P, Move>({ applyInput: move, error: dist }, { x: 0, y: 0 });
        const { finalPredicted, errors } = run(inputs, acks, move, p);
        expect(errors.every((e) => e === 0)).toBe(true);
        expect(finalPredicted).toEqual(inputs.reduce(move, { x: 0, y: 0 }));
        expect(p.pending).toBe(0);
        expect(p.maxError).toBe(0);
      }),
    );
  });

  it("reports the error when the server disagrees (a wall the client does not know)", () => {
    const wall = (s: P, i: Move): P => ({ x: Math.min(10, s.x + i.dx), y: s.y + i.dy });
    const p = new Predictor<P, Move>({ applyInput: move, error: dist }, { x: 0, y: 0 });
    const inputs = Array.from({ length: 20 }, () => ({ dx: 2, dy: 0 }));
    const { finalPredicted } = run(inputs, [true], wall, p);
    expect(p.maxError).toBeGreaterThan(0);
    expect(finalPredicted.x).toBe(10); // reconciled to the server's truth
  });

  it("with clone, applyInput may mutate without touching the server's state", () => {
    const mutate = (s: P, i: Move): P => {
      s.x += i.dx;
      s.y += i.dy;
      return s;
    };
    const p = new Predictor<P, Move>({ applyInput: mutate, clone: (s) => ({ ...s }), error: dist }, { x: 0, y: 0 });
    p.push(1, { dx: 1, dy: 0 });
    p.push(2, { dx: 1, dy: 0 });
    p.push(3, { dx: 1, dy: 0 });
    const server = { x: 1, y: 0 };
    const s = p.reconcile(server, 1);
    expect(server).toEqual({ x: 1, y: 0 });
    expect(s).toEqual({ x: 3, y: 0 });
    expect(p.lastError).toBe(0);
    expect(p.pending).toBe(2);
  });

  it("reset drops stale inputs: nothing is replayed over the resynced state", () => {
    const p = new Predictor<P, Move>({ applyInput: move, error: dist }, { x: 0, y: 0 });
    for (let seq = 1; seq <= 5; seq++) p.push(seq, { dx: 1, dy: 0 });
    p.reset(2); // the server applied up to 2 before the drop; 3..5 are lost
    expect(p.pending).toBe(0);
    expect(p.state).toBeUndefined();
    expect(p.push(2, { dx: 9, dy: 9 })).toBeUndefined(); // at or below the ack: ignored
    expect(p.reconcile({ x: 2, y: 0 })).toEqual({ x: 2, y: 0 });
    p.push(6, { dx: 1, dy: 0 });
    expect(p.state).toEqual({ x: 3, y: 0 });
    expect(p.pending).toBe(1);
  });

  it("ignores unsent inputs and bounds the pending list", () => {
    const p = new Predictor<P, Move>({ applyInput: move }, { x: 0, y: 0 });
    p.push(-1, { dx: 100, dy: 0 });
    expect(p.state).toEqual({ x: 0, y: 0 });
    for (let seq = 1; seq <= MAX_PENDING_INPUTS + 6; seq++) p.push(seq, { dx: 1, dy: 0 });
    expect(p.pending).toBe(MAX_PENDING_INPUTS);
    // Inputs 1–6 were dropped, so an ack of 6 leaves every kept input to replay.
    expect(p.reconcile({ x: 0, y: 0 }, 6)).toEqual({ x: MAX_PENDING_INPUTS, y: 0 });
  });
});
