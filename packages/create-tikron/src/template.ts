/**
 * The template a new project is made from, and the two copies around it: the build turns the
 * repository's starter into the package's `template/` (`packTemplate`), and the scaffold turns
 * `template/` into the user's project (`unpackTemplate`).
 *
 * Three things change on the way in; the scaffold undoes the second on the way out:
 * - what the starter's own `.gitignore` names (installs, builds, local wrangler state) is left out,
 *   so a template packed from a checkout someone has run never ships their `node_modules`;
 * - dotfiles at the top (`.gitignore`) are stored as `_gitignore`: `npm pack` drops `.gitignore`
 *   and `.npmrc` files wherever they are, so a template keeping the real names would lose them;
 * - blocks between `<!-- repository-only -->` and `<!-- /repository-only -->` in README.md are
 *   removed: they talk to a reader of the repository ("make a project instead of installing
 *   here"), which the project's own copy must not repeat.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What a stored top-level dotfile's name starts with instead of the dot. */
const STORED_DOT = "_";
const REPOSITORY_ONLY = /^<!-- repository-only -->\n[\s\S]*?^<!-- \/repository-only -->\n\n?/gm;

/**
 * The rule of one `.gitignore` file, for the forms a template's needs: `name` and `name/` match
 * at any depth, `dir/name` and `/name` only from the top. Patterns with wildcards, negation or
 * character classes are refused rather than half-understood.
 */
export function gitignoreRule(text: string): (path: string, isDirectory: boolean) => boolean {
  const patterns = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      if (/[*?[\]!\\]/.test(line)) throw new Error(`.gitignore pattern "${line}": wildcards, negation and classes are not supported in a template`);
      const body = line.replace(/^\/|\/$/g, "");
      return { body, directoryOnly: line.endsWith("/"), anchored: line.startsWith("/") || body.includes("/") };
    });
  return (path, isDirectory) =>
    patterns.some((p) => {
      if (p.directoryOnly && !isDirectory) return false;
      if (p.anchored) return path === p.body;
      return path === p.body || path.endsWith(`/${p.body}`);
    });
}

/** README text without its repository-only blocks; throws on an opened block that never closes. */
export function withoutRepositoryOnly(readme: string): string {
  const out = readme.replace(REPOSITORY_ONLY, "");
  if (out.includes("repository-only -->")) throw new Error("README.md: a <!-- repository-only --> block is not closed by <!-- /repository-only --> on its own line");
  return out;
}

/**
 * Copies the starter at `starterDir` into an empty or new `templateDir`: without what its
 * `.gitignore` names, with top-level dotfiles stored as `_name`, README without its
 * repository-only blocks. Throws (before copying) on a top-level file whose name already starts
 * with `_`, which the scaffold would turn into a dotfile.
 */
export function packTemplate(starterDir: string, templateDir: string): void {
  const ignored = gitignoreRule(readFileSync(join(starterDir, ".gitignore"), "utf8"));
  const clash = readdirSync(starterDir).find((name) => name.startsWith(STORED_DOT));
  if (clash) throw new Error(`${join(starterDir, clash)}: a top-level name starting with "${STORED_DOT}" would become a dotfile in the project`);
  copyTree(starterDir, templateDir, "", {
    skip: ignored,
    rename: (name, top) => (top && name.startsWith(".") ? STORED_DOT + name.slice(1) : name),
  });
  const readme = join(templateDir, "README.md");
  writeFileSync(readme, withoutRepositoryOnly(readFileSync(readme, "utf8")));
}

/** Copies a packed template into `projectDir` (created if missing), giving top-level `_name` files their dot back. */
export function unpackTemplate(templateDir: string, projectDir: string): void {
  copyTree(templateDir, projectDir, "", {
    skip: () => false,
    rename: (name, top) => (top && name.startsWith(STORED_DOT) ? `.${name.slice(STORED_DOT.length)}` : name),
  });
}

interface CopyRules {
  skip(path: string, isDirectory: boolean): boolean;
  rename(name: string, top: boolean): string;
}

function copyTree(from: string, to: string, relative: string, rules: CopyRules): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from).sort()) {
    const path = relative === "" ? name : `${relative}/${name}`;
    const source = join(from, name);
    const isDirectory = statSync(source).isDirectory();
    if (rules.skip(path, isDirectory)) continue;
    const target = join(to, rules.rename(name, relative === ""));
    if (isDirectory) copyTree(source, target, path, rules);
    else copyFileSync(source, target);
  }
}
