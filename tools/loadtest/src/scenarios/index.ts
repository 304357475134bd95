import { agarScenario } from "./agar";
import { fpsScenario } from "./fps";
import { movementScenario } from "./movement";
import type { Scenario, ScenarioEntry } from "./scenario";

export type { Scenario, ScenarioEntry, WelcomeInfo } from "./scenario";
export { agarScenario, encodeAgarInput, AGAR_INPUT_BYTES, AgarFlag } from "./agar";
export { movementScenario } from "./movement";
export { fpsScenario, encodeFpsMove, encodeFpsShot } from "./fps";

/**
 * Every scenario the CLI knows. An unavailable entry has no implementation on purpose: a guessed
 * protocol would produce numbers nobody should trust.
 */
export const scenarios: readonly ScenarioEntry[] = [
  { name: "agar", available: true, scenario: agarScenario as Scenario },
  { name: "movement", available: true, scenario: movementScenario as Scenario },
  { name: "fps", available: true, scenario: fpsScenario as Scenario },
  {
    name: "ttt-json",
    available: false,
    reason: "turn-based JSON text mode (2 seats, moves only on your turn) is not driven by the generator yet",
  },
];

/** The scenario called `name`; throws a message naming the reason when it is unavailable. */
export function getScenario(name: string): Scenario {
  const entry = scenarios.find((s) => s.name === name);
  if (!entry) throw new Error(`unknown scenario "${name}" (known: ${scenarios.map((s) => s.name).join(", ")})`);
  if (!entry.available) throw new Error(`scenario "${name}" is unavailable: ${entry.reason}`);
  return entry.scenario;
}
