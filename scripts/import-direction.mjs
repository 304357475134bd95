// Fails when an import runs back up: across folders against AGENTS.md's table ("Folders and their
// one-way dependencies": each folder's "may import" column), or inside a package between its own
// parts (the folders and files right under its `src/`), where two parts that import each other,
// directly or round a loop, leave no floor order between them. Run by scripts/typecheck.sh (so in
// CI) beside import-cycles.mjs, which finds loops of files; this one finds loops of parts, a loop
// of files being one too.
//   node scripts/import-direction.mjs                  this repository
//   --root <dir>                                       another workspace (pnpm-workspace.yaml, AGENTS.md)
// Read as farm-studio draws the house: tests, fixtures and benches are no source of a folder (their
// imports are not held to the table); a folder's own files import each other freely.
import { readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { circles, importGraph } from "./lib/importGraph.mjs";

const args = process.argv.slice(2);
const rootAt = args.indexOf("--root");
const ROOT = rootAt >= 0 ? resolve(args.splice(rootAt, 2)[1]) : resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Loops of parts inside a package that stood when this check came (each a package's parts, as
 * the paths under it): reported while they stand, and a failure once one is gone or grows, so
 * the list only shrinks. Issue 35 takes the core's apart (the host contract no longer importing
 * the room's internals, replay and the room factory on floors of their own).
 */
const KNOWN_LOOPS = [
  "packages/core/src/{gameDefinition, host, replay, room, roomFactory}",
  "packages/games/src/{clientTypes, fps, ttt}",
];

/** A file that is no source of its folder: tests, fixtures, benches, declarations. */
function isSource(rel) {
  return !/(^|\/)(test|tests|fixtures|bench|__fixtures__)\//.test(rel) && !/\.(test|spec|bench)\.[mc]?tsx?$/.test(rel);
}

/**
 * AGENTS.md's folders with what each may import, read from the table: folder → the names its
 * "may import" cell gives (`core`, `games/schemas`, `apps/web`; "*" for `@tikron/*`). A name in
 * parentheses counts too (admin's "protocol's admin shapes, types only").
 */
function folderRules() {
  const text = readFileSync(join(ROOT, "AGENTS.md"), "utf8");
  const at = text.indexOf("one-way dependencies");
  if (at < 0) throw new Error('AGENTS.md has no "Folders and their one-way dependencies" table');
  const rows = [];
  for (const line of text.slice(at).split("\n").slice(1)) {
    if (rows.length > 0 && !line.startsWith("|")) break;
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    const folder = /^`([^`]+)`$/.exec(cells[0] ?? "");
    if (folder && cells.length >= 4) rows.push({ folder: folder[1].replace(/\/$/, ""), mayImport: cells[cells.length - 1] });
  }
  if (rows.length === 0) throw new Error("AGENTS.md's dependency table has no rows");
  const byName = new Map(rows.map((r) => [basename(r.folder), r.folder]));
  const rules = new Map();
  for (const { folder, mayImport } of rows) {
    const allowed = new Set();
    if (/@tikron\/\*/.test(mayImport)) allowed.add("*");
    for (const m of mayImport.matchAll(/(?<![\w/.-])([a-z][\w-]*)(?:\/([\w-]+))?(?![\w-])/g)) {
      // `apps/web` names the folder; `games/schemas` an entry of a package.
      if (m[2] && rows.some((r) => r.folder === `${m[1]}/${m[2]}`)) allowed.add(m[2]);
      else if (byName.has(m[1])) allowed.add(m[2] ? `${m[1]}/${m[2]}` : m[1]);
    }
    rules.set(folder, allowed);
  }
  return { rules, byName };
}

const { files, graph, packages } = importGraph(ROOT);
const { rules, byName } = folderRules();
const folders = [...rules.keys()].sort((a, b) => b.length - a.length);
const rel = (f) => relative(ROOT, f).split(sep).join("/");
const folderOf = (f) => folders.find((d) => rel(f) === d || rel(f).startsWith(`${d}/`)) ?? null;
/** Package folder → its `exports` (subpath → file), for `core/testing`-style names. */
const exportsOf = new Map([...packages.values()].map((p) => [rel(p.dir), p.exports]));

/**
 * What `folder` stands above: the folders and entries its rule names, and what each named folder
 * stands above in turn (an entry, `games/schemas`, grants itself alone).
 */
function below(folder, seen = new Set()) {
  for (const name of rules.get(folder) ?? []) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (name === "*") for (const f of folders) if (f.startsWith("packages/")) below(f, seen.add(basename(f)));
    if (byName.has(name)) below(byName.get(name), seen);
  }
  return seen;
}
const floorsBelow = new Map(folders.map((f) => [f, below(f)]));

/** Whether `folder` stands above `target`, a file of folder `to`. */
function allowed(folder, to, target) {
  const grants = floorsBelow.get(folder);
  const name = basename(to);
  if (grants.has(name)) return true;
  for (const [sub, file] of exportsOf.get(to) ?? []) {
    if (sub === "." || !grants.has(`${name}/${sub.slice(2)}`)) continue;
    // An entry that is a folder's index stands for the folder; any other for its file alone.
    if (target === file || (/^index\.[mc]?tsx?$/.test(basename(file)) && target.startsWith(dirname(file) + sep))) return true;
  }
  return false;
}

const problems = [];
// Across folders: every import of a source file into another folder of the table.
for (const f of files) {
  const from = folderOf(f);
  if (!from || !isSource(rel(f).slice(from.length + 1))) continue;
  for (const d of graph.get(f)) {
    const to = folderOf(d);
    if (!to || to === from || !isSource(rel(d).slice(to.length + 1)) || allowed(from, to, d)) continue;
    problems.push(`import runs back up: ${rel(f)} -> ${rel(d)} (AGENTS.md: ${from} may import ${[...rules.get(from)].join(", ") || "nothing of the workspace"})`);
  }
}

// Inside a package: the graph of its parts (the entries right under src/), loops found as circles.
const known = new Set();
for (const dir of exportsOf.keys()) {
  const src = `${dir}/src/`;
  // A file beside a folder of its name (room.ts beside room/) is that folder's part.
  const partOf = (f) => (rel(f).startsWith(src) ? src + rel(f).slice(src.length).split("/")[0].replace(/\.[mc]?tsx?$/, "") : null);
  const parts = new Map();
  const edges = new Map();
  for (const f of files) {
    const p = partOf(f);
    if (!p || !isSource(rel(f))) continue;
    if (!parts.has(p)) parts.set(p, []);
    for (const d of graph.get(f)) {
      const q = partOf(d);
      if (q && q !== p) {
        parts.get(p).push(q);
        edges.set(`${p} -> ${q}`, `${rel(f)} -> ${rel(d)}`);
      }
    }
  }
  for (const loop of circles(parts)) {
    const name = `${src}{${loop.map((p) => p.slice(src.length)).sort().join(", ")}}`;
    if (KNOWN_LOOPS.includes(name)) {
      known.add(name);
      continue;
    }
    const members = new Set(loop);
    const inside = [...edges].filter(([edge]) => edge.split(" -> ").every((p) => members.has(p)));
    problems.push(`parts that import each other inside ${dir} (an import runs back up): ${name}\n  ${inside.map(([, example]) => example).join("\n  ")}`);
  }
}
for (const name of KNOWN_LOOPS) {
  if (!known.has(name) && exportsOf.has(name.slice(0, name.indexOf("/src/")))) problems.push(`no longer a loop as listed: ${name} (take it out of KNOWN_LOOPS in scripts/import-direction.mjs, or name what it is now)`);
}

for (const p of problems) console.error(p);
console.log(`imports running back up: ${problems.length} in ${files.length} files (known loops inside packages, listed to shrink: ${known.size})`);
if (problems.length > 0) process.exit(1);
