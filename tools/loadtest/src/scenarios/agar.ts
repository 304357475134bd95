import { agarInputs, type AgarInput } from "@tikron/games/schemas";
import { inputMaxBytes, type BinaryWriter } from "@tikron/protocol";
import type { Rng } from "./rng";
import { defineScenario } from "./scenario";
import { randomHeading, wander, type Heading } from "./steering";

/** Share of inputs with the boost bit set. */
const BOOST_PROBABILITY = 0.05;

/** A wandering agar player; `input` is rewritten in place for every send (no allocation). */
export interface SteeringPlayer {
  heading: Heading;
  input: AgarInput;
}

/** Random-walk steering with the agar room's declared input. */
export const agarScenario = defineScenario<SteeringPlayer>({
  name: "agar",
  roomKind: "agar",
  defaultRate: 20,
  maxPayloadBytes: inputMaxBytes(agarInputs),
  counters: [],
  createPlayer: (rng: Rng) => ({ heading: randomHeading(rng), input: { dx: 1, dy: 0, boost: false } }),
  writeInput(p: SteeringPlayer, rng: Rng, w: BinaryWriter): void {
    wander(p.heading, rng);
    p.input.dx = Math.cos(p.heading.angle);
    p.input.dy = Math.sin(p.heading.angle);
    p.input.boost = rng.next() < BOOST_PROBABILITY;
    agarInputs.write(w, p.input);
  },
});
