/**
 * The demo and the SDK keep their module graphs acyclic (type-only imports included): a cycle
 * means two files each need the other to be read, so neither has one home. Renderers declare
 * the scene they draw instead of importing the session that draws them.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const RELATIVE = /\b(?:import|export)\s+(?:type\s+)?[^;]*?from\s*"(\.[^"]+)"/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

function resolveImport(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  if (base.endsWith(".ts")) return base;
  return existsSync(`${base}.ts`) ? `${base}.ts` : join(base, "index.ts");
}

/** Every cycle found by a depth-first walk, as file paths relative to the repository. */
function cyclesUnder(dir: string): string[][] {
  const graph = new Map<string, string[]>();
  for (const f of tsFiles(dir)) graph.set(f, [...readFileSync(f, "utf8").matchAll(RELATIVE)].map((m) => resolveImport(f, m[1]!)));
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (u: string): void => {
    state.set(u, 1);
    stack.push(u);
    for (const v of graph.get(u) ?? []) {
      if (state.get(v) === 1) found.push([...stack.slice(stack.indexOf(v)), v].map((p) => p.slice(ROOT.length + 1)));
      else if (!state.has(v)) visit(v);
    }
    stack.pop();
    state.set(u, 2);
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

describe("import cycles", () => {
  it.each(["apps/web/src", "packages/client/src"])("%s has none", (dir) => {
    expect(cyclesUnder(join(ROOT, dir))).toEqual([]);
  });

  it("reports a type-only session ⇄ renderer pair (the walk itself works)", () => {
    const dir = mkdtempSync(join(ROOT, "apps/web/test/.cycle-"));
    try {
      writeFileSync(join(dir, "session.ts"), 'import { draw } from "./renderer";\nexport class Session {}\n');
      writeFileSync(join(dir, "renderer.ts"), 'import type { Session } from "./session";\nexport function draw(s: Session): void {}\n');
      expect(cyclesUnder(dir)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
