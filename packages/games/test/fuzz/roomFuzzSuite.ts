/**
 * The room fuzz properties, shared by the CI budget (`roomFuzz.test.ts`, unit project) and the
 * long run (`roomFuzz.fuzz.test.ts`, `npm run fuzz`). Budgets come from the environment:
 * - `TIKRON_FUZZ_RUNS`: cases per property in the long run (default 100000);
 * - `TIKRON_FUZZ_CI_RUNS`: cases per property in the unit project (default 3000);
 * - `TIKRON_FUZZ_SEED`: replay a reported failure (fast-check prints seed and path).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeClientMessage, decodeJsonClientMessage, isDecodeError, isRejection, readInput } from "@tikron/protocol";
import { agarInputs } from "../../src/agar/agarInput";
import { fpsInputs } from "../../src/fps/fpsInput";
import { hostileFrame } from "./hostileFrames";
import { runTwinScenario, scenarioArb } from "./roomTwin";

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

/** fast-check parameters for a budget, honouring `TIKRON_FUZZ_SEED`. */
function params(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env.TIKRON_FUZZ_SEED;
  return { numRuns, ...(seed ? { seed: Number(seed) } : {}) };
}

/** Cases per property for a budget name. */
export function fuzzRuns(budget: "long" | "ci"): number {
  return budget === "long" ? envInt("TIKRON_FUZZ_RUNS", 100_000) : envInt("TIKRON_FUZZ_CI_RUNS", 3_000);
}

/** Declares the fuzz properties with `numRuns` cases each. */
export function defineRoomFuzz(numRuns: number, timeoutMs: number): void {
  describe(`room fuzz (${numRuns} cases per property)`, () => {
    it("decoders never throw and refuse anything they cannot fully account for", () => {
      fc.assert(
        fc.property(hostileFrame, (frame) => {
          if (typeof frame === "string") {
            const m = decodeJsonClientMessage(frame);
            if (!isDecodeError(m)) expect(typeof m.t).toBe("string");
            return;
          }
          const m = decodeClientMessage(frame);
          if (isDecodeError(m)) return;
          if (m.kind === "input") {
            for (const e of m.inputs) {
              expect(Number.isInteger(e.seq) && e.seq >= 0 && e.seq <= 0xffffffff).toBe(true);
              // Whatever the declared readers take is within its declared ranges; the rest is refused with a reason.
              const steer = readInput(agarInputs, e.payload);
              if (isRejection(steer)) expect(steer.reason).toMatch(/^input/);
              else {
                for (const v of [steer.dx, steer.dy]) expect(v >= -1 && v <= 1).toBe(true);
                expect(typeof steer.boost).toBe("boolean");
              }
              const fps = readInput(fpsInputs, e.payload);
              if (isRejection(fps)) expect(fps.reason).toMatch(/^input/);
              else if (fps.kind === "shot") expect(fps.time >= 0 && fps.time <= 2 ** 32).toBe(true);
              else expect(fps.dtMs >= 0 && fps.dtMs <= 100 && fps.aim >= 0 && fps.aim < 2 * Math.PI).toBe(true);
            }
          }
          if (m.kind === "ping") expect(Number.isFinite(m.clientTime)).toBe(true);
        }),
        params(numRuns),
      );
    }, timeoutMs);

    it("hostile clients cannot crash the room, break its invariants or change what honest players see", () => {
      let framesToHonest = 0;
      fc.assert(
        fc.property(scenarioArb, (s) => {
          framesToHonest += runTwinScenario(s).framesToHonest;
        }),
        params(numRuns),
      );
      // The property is vacuous if honest players never received anything to compare.
      expect(framesToHonest).toBeGreaterThan(numRuns);
    }, timeoutMs);
  });
}
