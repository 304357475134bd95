// Fails when relative imports (type-only ones included) form a cycle inside any given folder.
// Usage: node scripts/import-cycles.mjs <dir>...   (run by scripts/typecheck.sh for packages/*/src)
// A cycle means two files each need the other: one of them holds the wrong concept.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+["'](\.{1,2}\/[^"']+)["']/g;

function tsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

function resolveImport(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, join(base, "index.ts")]) if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

let total = 0;
for (const dir of process.argv.slice(2)) {
  const files = tsFiles(resolve(dir));
  const graph = new Map(files.map((f) => [f, [...readFileSync(f, "utf8").matchAll(IMPORT)].map((m) => resolveImport(f, m[1])).filter(Boolean)]));
  const state = new Map();
  const stack = [];
  const visit = (f) => {
    state.set(f, 1);
    stack.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 1) {
        total++;
        console.error(`import cycle: ${[...stack.slice(stack.indexOf(d)), d].map((x) => relative(process.cwd(), x)).join(" -> ")}`);
      } else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of files) if (!state.has(f)) visit(f);
}
if (total > 0) process.exit(1);
