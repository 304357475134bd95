import { agarScenario } from "./agar";
import { fpsScenario } from "./fps";
import { movementScenario } from "./movement";
import type { AnyScenario, Scenario, ScenarioEntry, TextScenario } from "./scenario";
import { tttJsonScenario } from "./tttJson";

export type { AnyScenario, Scenario, ScenarioEntry, TextScenario, WelcomeInfo } from "./scenario";
export { isTextScenario } from "./scenario";
export { agarScenario, encodeAgarInput, AGAR_INPUT_BYTES, AgarFlag } from "./agar";
export { movementScenario } from "./movement";
export { fpsScenario, encodeFpsMove, encodeFpsShot } from "./fps";
export { tttJsonScenario } from "./tttJson";

/**
 * Every scenario the CLI knows. An unavailable entry has no implementation on purpose: a guessed
 * protocol would produce numbers nobody should trust.
 */
export const scenarios: readonly ScenarioEntry[] = [
  { name: "agar", available: true, scenario: agarScenario as Scenario },
  { name: "movement", available: true, scenario: movementScenario as Scenario },
  { name: "fps", available: true, scenario: fpsScenario as Scenario },
  { name: "ttt-json", available: true, scenario: tttJsonScenario as TextScenario },
];

/** The scenario called `name`; throws a message naming the reason when it is unavailable. */
export function getScenario(name: string): AnyScenario {
  const entry = scenarios.find((s) => s.name === name);
  if (!entry) throw new Error(`unknown scenario "${name}" (known: ${scenarios.map((s) => s.name).join(", ")})`);
  if (!entry.available) throw new Error(`scenario "${name}" is unavailable: ${entry.reason}`);
  return entry.scenario;
}
