// Fails when source files import each other in a cycle, anywhere in the tree: packages, apps,
// tools, tests, scripts, examples. Run by scripts/typecheck.sh (so in CI) with no arguments:
//   node scripts/import-cycles.mjs            the whole repository
//   node scripts/import-cycles.mjs <dir>...   only files under these folders
//   --root <dir>                              another workspace (its pnpm-workspace.yaml names the packages)
// Edges are static imports and re-exports (type-only ones included), side-effect imports and
// import("…") of a literal path, relative or naming a workspace package (`@tikron/x[/sub]`, read
// through its package.json `exports`). A cycle means two files each need the other: one of them
// holds the wrong concept.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const rootAt = args.indexOf("--root");
const ROOT = rootAt >= 0 ? resolve(args.splice(rootAt, 2)[1]) : resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Folders that hold no source of ours: dependencies, build output, caches, run results. */
const SKIP = new Set(["node_modules", "dist", ".git", ".wrangler", ".tmp", "test-artifacts", "results"]);
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SPECIFIERS = [
  /(?:^|[\n;])\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/g,
  /(?:^|[\n;])\s*import\s*["']([^"']+)["']/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (SOURCE.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

function asFile(base) {
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}.mts`, `${base}.js`, `${base}.mjs`, join(base, "index.ts")]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

/** Workspace packages by name: their folder and `exports` map (subpath → file). */
function workspacePackages() {
  const packages = new Map();
  const globs = [...readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8").matchAll(/^\s*-\s*["']?([^"'\n]+?)["']?\s*$/gm)].map((m) => m[1]);
  for (const glob of globs) {
    const parent = join(ROOT, glob.slice(0, -2));
    const dirs = !glob.endsWith("/*") ? [join(ROOT, glob)] : existsSync(parent) ? readdirSync(parent).map((d) => join(parent, d)) : [];
    for (const dir of dirs) {
      const manifest = join(dir, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8"));
      const exports = typeof pkg.exports === "string" ? { ".": pkg.exports } : (pkg.exports ?? {});
      const map = new Map();
      for (const [sub, target] of Object.entries(exports)) {
        const file = typeof target === "string" ? target : (target?.import ?? target?.default);
        if (typeof file === "string") map.set(sub, resolve(dir, file));
      }
      packages.set(pkg.name, map);
    }
  }
  return packages;
}

const packages = workspacePackages();

function resolveSpecifier(from, spec) {
  if (spec.startsWith(".")) return asFile(resolve(dirname(from), spec));
  const m = /^(@[^/]+\/[^/]+|[^@/][^/]*)(\/.*)?$/.exec(spec);
  const exports = m && packages.get(m[1]);
  return exports?.get(m[2] ? `.${m[2]}` : ".") ?? null;
}

const roots = args.length > 0 ? args.map((d) => resolve(d)) : [ROOT];
const files = roots.flatMap(sourceFiles);
const inScope = new Set(files);
const graph = new Map();
for (const f of files) {
  const text = readFileSync(f, "utf8");
  const deps = new Set();
  for (const re of SPECIFIERS) {
    for (const m of text.matchAll(re)) {
      const d = resolveSpecifier(f, m[1]);
      if (d && inScope.has(d)) deps.add(d);
    }
  }
  graph.set(f, [...deps]);
}

// Strongly connected components (Tarjan): every cycle lies inside one; each is reported once,
// with one of its loops spelled out.
let next = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function connect(v) {
  index.set(v, next);
  low.set(v, next++);
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v)) {
    if (!index.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) !== index.get(v)) return;
  const component = [];
  let w;
  do {
    w = stack.pop();
    onStack.delete(w);
    component.push(w);
  } while (w !== v);
  if (component.length > 1 || graph.get(v).includes(v)) components.push(component);
}
for (const f of files) if (!index.has(f)) connect(f);

/** A shortest loop from `start` back to itself inside `component` (breadth first). */
function loop(start, component) {
  const members = new Set(component);
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of graph.get(v)) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [w];
        for (let x = v; x !== null; x = prev.get(x)) path.unshift(x);
        return path;
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

const rel = (f) => relative(process.cwd(), f);
for (const c of components) {
  const start = [...c].sort()[0];
  console.error(`import cycle (${c.length} file${c.length > 1 ? "s" : ""}): ${loop(start, c).map(rel).join(" -> ")}`);
  if (c.length > 2) console.error(`  all files of this circle: ${c.map(rel).sort().join(", ")}`);
}
console.log(`import cycles: ${components.length} in ${files.length} files`);
if (components.length > 0) process.exit(1);
