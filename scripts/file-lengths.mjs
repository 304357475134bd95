// Fails when a source file passes 500 lines without saying why in its opening comment: files are
// split by concept before that (AGENTS.md, "Files small enough to read in one sitting"). A file
// that must stay long says so in its first comment with the words "Long by design:" and its
// reason. Run by scripts/typecheck.sh (so in CI):
//   node scripts/file-lengths.mjs                  this repository
//   --root <dir>                                   another tree
// Not held to it: tests (`test/` folders, `*.test.ts`), fixtures and benches, generated files
// (`*.g.*`, `dist/`), declaration files, and what scripts/lib/importGraph.mjs skips
// (dependencies, build output, caches, the pinned toolchain).
import { readFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "./lib/importGraph.mjs";

const MAX_LINES = 500;
/** The words an opening comment gives its reason with. */
const REASON = "Long by design:";

const args = process.argv.slice(2);
const rootAt = args.indexOf("--root");
const ROOT = rootAt >= 0 ? resolve(args.splice(rootAt, 2)[1]) : resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Tests, fixtures, benches, generated files and the pinned toolchain: no source held to the rule. */
function exempt(rel) {
  return (
    /(^|\/)(test|tests|fixtures|__fixtures__|bench|toolchain)\//.test(rel) ||
    /\.(test|spec|bench)\.[mc]?[jt]sx?$/.test(rel) ||
    /\.g\.[mc]?[jt]sx?$/.test(rel)
  );
}

/** The file's opening comment (the lines before its first line of code), where a reason stands. */
function openingComment(text) {
  const m = /^(?:\s*(?:\/\/[^\n]*|\/\*[\s\S]*?\*\/|#![^\n]*))+/.exec(text);
  return m ? m[0] : "";
}

const long = [];
let held = 0;
for (const f of sourceFiles(ROOT)) {
  const rel = relative(ROOT, f).split(sep).join("/");
  if (exempt(rel)) continue;
  held++;
  const text = readFileSync(f, "utf8");
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines <= MAX_LINES) continue;
  const comment = openingComment(text);
  const at = comment.indexOf(REASON);
  const reason = at < 0 ? "" : comment.slice(at + REASON.length).replace(/[\s*/]+/g, " ").trim();
  if (reason.length < 20) long.push(`${rel}: ${lines} lines, over ${MAX_LINES} with no reason in its opening comment ("${REASON} …"): split it by concept, or say why it must be long`);
}
for (const l of long) console.error(l);
console.log(`files over ${MAX_LINES} lines without a reason: ${long.length} of ${held} source files`);
if (long.length > 0) process.exit(1);
