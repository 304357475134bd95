/** The scenario registry: the built-in scenarios by name, and scenario files loaded by path. */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { agarScenario } from "./agar";
import { fpsScenario } from "./fps";
import { movementScenario } from "./movement";
import { defineScenario, type AnyScenario, type Scenario, type ScenarioEntry, type TextScenario } from "./scenario";
import { tttJsonScenario } from "./tttJson";

export type { AnyScenario, Scenario, ScenarioEntry, TextScenario, WelcomeInfo } from "./scenario";
export { isTextScenario, defineScenario } from "./scenario";
export { agarScenario } from "./agar";
export { movementScenario } from "./movement";
export { fpsScenario } from "./fps";
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

/** Scenarios loaded from files in this thread, by name (see {@link loadScenarioFile}). */
const loaded = new Map<string, AnyScenario>();

/** True when `--scenario` names a file rather than a built-in scenario. */
export function isScenarioPath(nameOrPath: string): boolean {
  return /[\\/]/.test(nameOrPath) || /\.[cm]?[jt]s$/.test(nameOrPath);
}

/**
 * Imports a scenario module (its default export, or an export named `scenario`), checks it with
 * {@link defineScenario} and registers it under its name for this thread. Returns the scenario
 * and the absolute path (recorded in the config so worker threads load the same file).
 */
export async function loadScenarioFile(path: string): Promise<{ scenario: AnyScenario; file: string }> {
  const file = isAbsolute(path) ? path : resolve(process.cwd(), path);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`cannot load scenario file ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const s = (mod.default ?? mod.scenario) as AnyScenario | undefined;
  if (!s) throw new Error(`scenario file ${file} has no default export (export default defineScenario({...}))`);
  if (s.wire !== "json") defineScenario(s as Scenario);
  if (scenarios.some((e) => e.name === s.name)) throw new Error(`scenario file ${file}: name "${s.name}" is a built-in scenario's; pick another`);
  loaded.set(s.name, s);
  return { scenario: s, file };
}

/** The scenario called `name`; throws a message naming the reason when it is unavailable. */
export function getScenario(name: string): AnyScenario {
  const own = loaded.get(name);
  if (own) return own;
  const entry = scenarios.find((s) => s.name === name);
  if (!entry) throw new Error(`unknown scenario "${name}" (known: ${[...scenarios.map((s) => s.name), ...loaded.keys()].join(", ")}; or a path to a scenario file)`);
  if (!entry.available) throw new Error(`scenario "${name}" is unavailable: ${entry.reason}`);
  return entry.scenario;
}
