/**
 * Each published package compiles alone against its siblings' built declarations
 * (`tsconfig.build.json` `paths`). A specifier missing there resolves to the sibling's sources
 * instead, under this package's `lib` and `types`, and the pack fails far from the cause (or,
 * worse, builds the sibling's code into this package). This check names the missing entry.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PUBLISHED_PACKAGES } from "../lib/packages";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** The `@tikron/*` specifiers a package's sources import that its build config does not map. */
function unmappedSpecifiers(name: string): string[] {
  const dir = join(ROOT, "packages", name);
  // tsconfig files here carry `//` comments on their own lines only.
  const config = JSON.parse(readFileSync(join(dir, "tsconfig.build.json"), "utf8").replace(/^\s*\/\/.*$/gm, "")) as { compilerOptions: { paths?: Record<string, string[]> } };
  const mapped = new Set(Object.keys(config.compilerOptions.paths ?? {}));
  const used = new Set<string>();
  for (const file of sourceFiles(join(dir, "src"))) {
    for (const m of readFileSync(file, "utf8").matchAll(/from "(@tikron\/[a-z-]+(?:\/[a-z-]+)*)"/g)) used.add(m[1]!);
  }
  return [...used].filter((s) => !mapped.has(s) && s !== `@tikron/${name}`).sort();
}

describe("package builds", () => {
  it.each(PUBLISHED_PACKAGES.filter((n) => n !== "create-tikron"))("%s maps every @tikron specifier it imports to built declarations", (name) => {
    expect(unmappedSpecifiers(name)).toEqual([]);
  });
});
