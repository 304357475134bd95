import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The folder of the golden files (this one). */
export const GOLDEN_DIR = import.meta.dirname;

/** The scenarios recorded, one file each (`<name>.json`), besides `client-messages.json`. */
export const GOLDEN_NAMES = ["agar", "movement", "fps", "dots", "ttt-json"] as const;

/** A golden file's text: JSON, one message per line, so a diff shows which message changed. */
export function goldenText(value: unknown): string {
  if (Array.isArray(value)) return `[\n${value.map((v) => JSON.stringify(v)).join(",\n")}\n]\n`;
  const { messages, ...head } = value as { messages: unknown[] };
  const body = messages.map((m) => "    " + JSON.stringify(m)).join(",\n");
  return JSON.stringify({ ...head, messages: "@@" }, null, 2).replace('"@@"', `[\n${body}\n  ]`) + "\n";
}

/** A golden file as committed. */
export function readGolden(name: string): string {
  return readFileSync(join(GOLDEN_DIR, `${name}.json`), "utf8");
}
