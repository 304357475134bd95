// Fails when source files import each other in a cycle, anywhere in the tree: packages, apps,
// tools, tests, scripts, examples. Run by scripts/typecheck.sh (so in CI) with no arguments:
//   node scripts/import-cycles.mjs            the whole repository
//   node scripts/import-cycles.mjs <dir>...   only files under these folders
//   --root <dir>                              another workspace (its pnpm-workspace.yaml names the packages)
// Edges are static imports and re-exports (type-only ones included), side-effect imports and
// import("…") of a literal path, relative or naming a workspace package (`@tikron/x[/sub]`, read
// through its package.json `exports`): scripts/lib/importGraph.mjs. A cycle means two files each
// need the other: one of them holds the wrong concept.
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { circles, importGraph } from "./lib/importGraph.mjs";

const args = process.argv.slice(2);
const rootAt = args.indexOf("--root");
const ROOT = rootAt >= 0 ? resolve(args.splice(rootAt, 2)[1]) : resolve(dirname(fileURLToPath(import.meta.url)), "..");
const roots = args.length > 0 ? args.map((d) => resolve(d)) : [ROOT];
const { files, graph } = importGraph(ROOT, roots);
// Every cycle lies inside one strongly connected component; each is reported once, with one of
// its loops spelled out.
const components = circles(graph);

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
