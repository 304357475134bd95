/**
 * `@tikron/games/schemas` is what clients bundle (the demo page, the load tool): schemas, codecs
 * and the shared movement steps. It must not reach room code. This walks its static import graph
 * and checks every package it imports values from.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

/** `import … from "x"` / `export … from "x"` statements, with whether they are type-only and what they name. */
const IMPORT = /\b(import|export)\s+(type\s+)?([^;]*?)\s*from\s*"([^"]+)"/g;

interface PackageImport {
  file: string;
  specifier: string;
  names: string[];
}

/** Value imports from packages reachable from `entry`, following relative imports. */
function packageImports(entry: string): { files: string[]; imports: PackageImport[] } {
  const seen = new Set<string>();
  const imports: PackageImport[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      if (m[2]) continue; // `import type` / `export type`: erased, never bundled.
      const specifier = m[4]!;
      if (specifier.startsWith(".")) {
        queue.push(join(dirname(file), specifier.endsWith(".ts") ? specifier : `${specifier}.ts`));
        continue;
      }
      const clause = m[3]!;
      const braces = /\{([^}]*)\}/.exec(clause);
      // Names imported as values: inline `type X` members are erased too.
      const names = braces
        ? braces[1]!.split(",").map((s) => s.trim()).filter((s) => s !== "" && !s.startsWith("type "))
        : [clause.trim()];
      if (names.length > 0) imports.push({ file: file.slice(SRC.length + 1), specifier, names });
    }
  }
  return { files: [...seen].map((f) => f.slice(SRC.length + 1)).sort(), imports };
}

describe("@tikron/games/schemas import graph", () => {
  const { files, imports } = packageImports(join(SRC, "schemas.ts"));

  it("reaches the movement rules and hit geometry but no game room", () => {
    expect(files).toContain("fps/hitscan.ts");
    expect(files).toContain("agar/agarMotion.ts");
    expect(files).toContain("fps/fpsMotion.ts");
    expect(files.filter((f) => /Game\.ts$|gameDefinitions|lagHistory|moveBudget/.test(f))).toEqual([]);
  });

  it("imports values only from the protocol, and from the core at most the input-rejection helpers", () => {
    // `reject` / `isRejection` are moving to @tikron/protocol; until then they are the only
    // values the client-side graph may take from the core.
    const allowedFromCore = new Set(["reject", "isRejection"]);
    for (const imp of imports) {
      if (imp.specifier === "@tikron/protocol") continue;
      expect(imp.specifier, `${imp.file} imports ${imp.specifier}`).toBe("@tikron/core");
      for (const name of imp.names) expect(allowedFromCore.has(name), `${imp.file} imports ${name} from the core`).toBe(true);
    }
  });
});
