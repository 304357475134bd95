import type { Rng } from "../rng";
import { encodeAgarInput } from "./agar";
import type { Scenario } from "./scenario";
import { randomHeading, wander, type Heading } from "./steering";

/** The movement room's input is byte-for-byte agar's: f32 dx, f32 dy, u8 flags (bit0 = sprint). */
export const MOVEMENT_INPUT_BYTES = 9;

/** Share of inputs with the sprint bit set. */
const SPRINT_PROBABILITY = 0.1;

/** Random-walk steering in the movement room (everyone sees everyone: fan-out cost). */
export const movementScenario: Scenario<Heading> = {
  name: "movement",
  roomKind: "movement",
  defaultRate: 20,
  maxPayloadBytes: MOVEMENT_INPUT_BYTES,
  counters: [],
  createPlayer: (rng: Rng) => randomHeading(rng),
  writeInput(h: Heading, rng: Rng, out: DataView, offset: number): number {
    wander(h, rng);
    return encodeAgarInput(out, offset, Math.cos(h.angle), Math.sin(h.angle), rng.next() < SPRINT_PROBABILITY ? 1 : 0);
  },
};
