/**
 * A scenario written the way a game developer would write one, against the public API only:
 * strafes left and right in the agar room with the game's declared input, counts the state
 * frames whose events it sees, and brings its own threshold.
 */
import { agarInputs, type AgarInput } from "@tikron/games/schemas";
import { inputMaxBytes, type BinaryWriter } from "@tikron/protocol";
import { defineScenario, type Rng } from "../../src/index";

interface Strafer {
  input: AgarInput;
  n: number;
}

export default defineScenario<Strafer>({
  name: "strafer",
  roomKind: "agar",
  defaultRate: 10,
  maxPayloadBytes: inputMaxBytes(agarInputs),
  counters: ["strafes"],
  thresholds: ["scenario.strafes>=4"],
  createPlayer: () => ({ input: { dx: 1, dy: 0, boost: false }, n: 0 }),
  writeInput(p: Strafer, _rng: Rng, w: BinaryWriter, counters: Record<string, number>): void {
    // Turn around every 10 inputs.
    if (++p.n % 10 === 0) {
      p.input.dx = -p.input.dx;
      counters.strafes = (counters.strafes ?? 0) + 1;
    }
    agarInputs.write(w, p.input);
  },
});
