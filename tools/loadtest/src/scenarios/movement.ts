import { movementInputs, type MovementInput } from "@tikron/games/schemas";
import { inputMaxBytes, type BinaryWriter } from "@tikron/protocol";
import type { Rng } from "./rng";
import { defineScenario } from "./scenario";
import { randomHeading, wander, type Heading } from "./steering";

/** Share of inputs with the sprint bit set. */
const SPRINT_PROBABILITY = 0.1;

interface MovementPlayer {
  heading: Heading;
  input: MovementInput;
}

/** Random-walk steering in the movement room (everyone sees everyone: fan-out cost). */
export const movementScenario = defineScenario<MovementPlayer>({
  name: "movement",
  roomKind: "movement",
  defaultRate: 20,
  maxPayloadBytes: inputMaxBytes(movementInputs),
  counters: [],
  createPlayer: (rng: Rng) => ({ heading: randomHeading(rng), input: { dx: 1, dy: 0, sprint: false } }),
  writeInput(p: MovementPlayer, rng: Rng, w: BinaryWriter): void {
    wander(p.heading, rng);
    p.input.dx = Math.cos(p.heading.angle);
    p.input.dy = Math.sin(p.heading.angle);
    p.input.sprint = rng.next() < SPRINT_PROBABILITY;
    movementInputs.write(w, p.input);
  },
});
