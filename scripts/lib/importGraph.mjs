// The repository's import graph, read from source text alone (nothing is run or compiled): which
// source file imports which, for scripts/import-cycles.mjs and scripts/import-direction.mjs.
// Edges are static imports and re-exports (type-only ones included), side-effect imports and
// import("…") of a literal path, relative or naming a workspace package (`@tikron/x[/sub]`, read
// through its package.json `exports`).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Folders that hold no source of ours: dependencies, build output, caches, run results. */
export const SKIP = new Set(["node_modules", "dist", ".git", ".wrangler", ".tmp", "test-artifacts", "results"]);
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SPECIFIERS = [
  /(?:^|[\n;])\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/g,
  /(?:^|[\n;])\s*import\s*["']([^"']+)["']/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

/** Per git work tree: the absolute paths it ignores (folders end with "/"); empty outside git. */
const ignoredByGit = new Map();

/**
 * Whether git ignores `p` (a generated copy such as create-tikron's template, written by a build
 * and listed in .gitignore, is not our source).
 */
function gitIgnores(p, isDir) {
  const abs = resolve(p);
  let top = [...ignoredByGit.keys()].find((t) => abs.startsWith(t + "/"));
  if (top === undefined) {
    try {
      top = execFileSync("git", ["-C", isDir ? abs : dirname(abs), "rev-parse", "--show-toplevel"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return false;
    }
    const listed = execFileSync("git", ["-C", top, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory"], { encoding: "utf8", maxBuffer: 64 << 20 });
    ignoredByGit.set(top, new Set(listed.split("\n").filter(Boolean).map((l) => resolve(top, l) + (l.endsWith("/") ? "/" : ""))));
  }
  return ignoredByGit.get(top).has(abs + (isDir ? "/" : ""));
}

/** Every source file under `dir` (declaration files, the folders in {@link SKIP} and what git ignores left out). */
export function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (gitIgnores(p, statSync(p).isDirectory())) continue;
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
export function workspacePackages(root) {
  const packages = new Map();
  const globs = [...readFileSync(join(root, "pnpm-workspace.yaml"), "utf8").matchAll(/^\s*-\s*["']?([^"'\n]+?)["']?\s*$/gm)].map((m) => m[1]);
  for (const glob of globs) {
    const parent = join(root, glob.slice(0, -2));
    const dirs = !glob.endsWith("/*") ? [join(root, glob)] : existsSync(parent) ? readdirSync(parent).map((d) => join(parent, d)) : [];
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
      packages.set(pkg.name, { dir, exports: map });
    }
  }
  return packages;
}

/**
 * The graph of the source files under `roots` (absolute folders) of the workspace at `root`:
 * `graph` maps each file to the files it imports among them.
 */
export function importGraph(root, roots = [root]) {
  const packages = workspacePackages(root);
  const resolveSpecifier = (from, spec) => {
    if (spec.startsWith(".")) return asFile(resolve(dirname(from), spec));
    const m = /^(@[^/]+\/[^/]+|[^@/][^/]*)(\/.*)?$/.exec(spec);
    const pkg = m && packages.get(m[1]);
    return pkg?.exports.get(m[2] ? `.${m[2]}` : ".") ?? null;
  };
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
  return { files, graph, packages };
}

/** Strongly connected components of `graph` (Tarjan) with more than one node or a self-loop. */
export function circles(graph) {
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
    for (const w of graph.get(v) ?? []) {
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
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
  }
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return components;
}
