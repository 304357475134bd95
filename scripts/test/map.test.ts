/**
 * AGENTS.md is the one-page map of the repository and `docs/architecture/` holds what it points
 * at; files move, and a map that names what is gone sends the reader nowhere. This keeps it
 * honest: AGENTS.md stays one page (≤ 400 lines); every repository path it, README.md and
 * `docs/architecture/*.md` name (in backticks, in links, or written out from a top-level folder)
 * exists; every guide in `docs/` and `docs/architecture/` is linked from README.md or AGENTS.md;
 * README's layout lists every top-level part and every guide; and every `AGENTS.md "Section"`
 * cited anywhere in the tree is a heading of AGENTS.md or a row of its "Sections that moved".
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MAX_MAP_LINES = 400;

/**
 * Files linked before they exist, written by changes landing beside the one that linked them.
 * A path here that exists fails the test, so the list empties itself once they land.
 */
const PENDING = new Set<string>([]);

/** Extensions that make a bare name in backticks a file the map claims exists. */
const FILE_EXTENSIONS = /\.(ts|tsx|mjs|cjs|js|json|jsonc|md|cs|csproj|sql|sh|svg|html|css|yaml)$/;

/** The repository's files (tracked, or new and not ignored) and the folders holding them. */
interface Tree {
  readonly files: ReadonlySet<string>;
  readonly dirs: ReadonlySet<string>;
  /** Every file and folder path, for suffix and glob lookups. */
  readonly all: readonly string[];
  /** Top-level names (folders and files). */
  readonly top: ReadonlySet<string>;
}

function treeOf(paths: readonly string[]): Tree {
  const files = new Set(paths);
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let i = p.indexOf("/"); i !== -1; i = p.indexOf("/", i + 1)) dirs.add(p.slice(0, i));
  }
  const top = new Set([...paths].map((p) => p.split("/")[0]!));
  return { files, dirs, all: [...files, ...dirs], top };
}

function repositoryTree(): Tree {
  const r = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ls-files failed: ${r.stderr}`);
  // A file deleted but not yet committed is still in the index: keep only what is on disk.
  return treeOf(r.stdout.split("\0").filter((p) => p !== "" && existsSync(join(ROOT, p))));
}

/** A glob of `*` (within a segment) and `**` (any folders) as a whole-path pattern. */
function globPattern(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith("**/", i)) {
      re += "(?:.*/)?";
      i += 2;
    } else if (c === "*") re += "[^/]*";
    else re += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * Whether `name` is somewhere in the tree: the path itself from the root, or, for a path written
 * relative to the package or folder its sentence names (`room/seating.ts` in the core's table,
 * `test/relay/promotion.test.ts` after "core test"), the end of one.
 */
function found(tree: Tree, name: string): boolean {
  const path = name.replace(/\/$/, "");
  if (path.includes("*")) {
    const whole = globPattern(path);
    const tail = globPattern(`**/${path}`);
    return tree.all.some((p) => whole.test(p) || tail.test(p));
  }
  if (tree.files.has(path) || tree.dirs.has(path)) return true;
  return tree.all.some((p) => p.endsWith(`/${path}`));
}

/** Text outside fenced code blocks (commands and sample output there are not claims about the tree). */
function prose(markdown: string): string {
  return markdown.replace(/```[\s\S]*?```/g, "");
}

/** Relative link targets of a markdown text, outside code, without their `#fragment`. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith("#"))
    .map((t) => t.split("#")[0]!);
}

/** A candidate path as written: trailing punctuation and `:line` or `#anchor` tails cut. */
function cleanPath(raw: string): string {
  return raw.replace(/^\.\//, "").replace(/[#:].*$/, "").replace(/[.,;)]+$/, "");
}

/**
 * The repository paths a markdown text names outside links: backticked names that are paths
 * from a top-level part or carry a file extension, and paths written out in prose from a
 * top-level folder.
 */
function namedPaths(markdown: string, top: ReadonlySet<string>): string[] {
  const text = prose(markdown);
  const out: string[] = [];
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
  for (const span of spans) {
    if (!/^[\w.@*/-]+(?::\d+)?$/.test(span) || span.startsWith("@") || span.startsWith("/")) continue;
    const path = cleanPath(span);
    if (path === "" || path.startsWith(".") && !top.has(path.split("/")[0]!)) continue;
    const first = path.split("/")[0]!;
    if ((path.includes("/") && top.has(first)) || FILE_EXTENSIONS.test(path)) out.push(path);
  }
  const plain = text.replace(/`[^`\n]*`/g, " ").replace(/\]\([^)\s]*\)/g, "]");
  const folders = [...top].filter((t) => statSync(join(ROOT, t), { throwIfNoEntry: false })?.isDirectory());
  const rooted = new RegExp(`(?<![\\w./@-])(?:${folders.map((f) => f.replace(/\./g, "\\.")).join("|")})/[\\w.*/-]*[\\w*/]`, "g");
  for (const m of plain.matchAll(rooted)) out.push(cleanPath(m[0]));
  return [...new Set(out)];
}

/**
 * Paths git ignores: build outputs (`dist/`, the starter's copy in `create-tikron/template/`),
 * local secrets (`.dev.vars`). A document may name them; a checkout does not hold them.
 */
function ignoredByGit(paths: readonly string[]): Set<string> {
  if (paths.length === 0) return new Set();
  const r = spawnSync("git", ["check-ignore", "--no-index", "--stdin", "-z"], { cwd: ROOT, input: paths.join("\0"), encoding: "utf8" });
  return new Set(r.stdout.split("\0").filter((p) => p !== ""));
}

/** What one document names that the tree does not hold (pending files and build outputs aside). */
function missingIn(doc: string, markdown: string, tree: Tree): string[] {
  const missing: string[] = [];
  for (const target of linkTargets(markdown)) {
    const path = relative(ROOT, normalize(join(ROOT, dirname(doc), target))).split("\\").join("/");
    if (PENDING.has(path)) continue;
    if (!existsSync(join(ROOT, path))) missing.push(`${doc}: link ${target} (${path})`);
  }
  const unfound = namedPaths(markdown, tree.top).filter((p) => !PENDING.has(p) && !found(tree, p));
  const built = ignoredByGit(unfound);
  for (const path of unfound) if (!built.has(path)) missing.push(`${doc}: ${path}`);
  return missing;
}

/** The section names cited as `AGENTS.md "Name"` (also `AGENTS.md, "Name"`, `AGENTS.md ("Name"`). */
function citedSections(text: string): string[] {
  // Join comment continuations, so a citation broken over two comment lines reads as one.
  const flat = text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#)?\s*/g, " ");
  return [...flat.matchAll(/AGENTS\.md(?:,\s*|\s*\(\s*|\s+)"([^"]{1,80})"/g)].map((m) => m[1]!.trim());
}

/** The names AGENTS.md answers to: its headings, and the names in its "Sections that moved" table. */
function sectionNames(map: string): string[] {
  const headings = [...prose(map).matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1]!.replace(/`/g, "").trim());
  const moved = prose(map)
    .split("\n")
    .filter((l) => l.startsWith('| "'))
    .flatMap((l) => [...l.split("|")[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!));
  return [...headings, ...moved];
}

function resolves(name: string, names: readonly string[]): boolean {
  return names.some((n) => n === name || n.startsWith(`${name}:`) || n.startsWith(`${name} `));
}

const read = (path: string): string => readFileSync(join(ROOT, path), "utf8");

describe("the map (AGENTS.md, docs/architecture)", () => {
  const tree = repositoryTree();
  const map = read("AGENTS.md");
  const readme = read("README.md");
  const architecture = [...tree.files].filter((p) => /^docs\/architecture\/[^/]+\.md$/.test(p)).sort();
  const guides = [...tree.files].filter((p) => /^docs\/[^/]+\.md$/.test(p)).sort();

  it(`AGENTS.md is one page: at most ${MAX_MAP_LINES} lines`, () => {
    expect(map.split("\n").length - (map.endsWith("\n") ? 1 : 0)).toBeLessThanOrEqual(MAX_MAP_LINES);
  });

  it("every repository path README.md, AGENTS.md and docs/architecture name exists", () => {
    expect(architecture.length).toBeGreaterThan(0);
    const missing = ["README.md", "AGENTS.md", ...architecture].flatMap((doc) => missingIn(doc, read(doc), tree));
    expect(missing).toEqual([]);
  });

  it("files linked before they exist are still to come (remove each from PENDING once it lands)", () => {
    expect([...PENDING].filter((p) => existsSync(join(ROOT, p)))).toEqual([]);
  });

  it("every guide in docs/ and docs/architecture/ is linked from README.md or AGENTS.md", () => {
    const linked = new Set(
      [
        ...linkTargets(readme).map((t) => normalize(t)),
        ...linkTargets(map).map((t) => normalize(t)),
      ].map((p) => p.split("\\").join("/")),
    );
    expect([...guides, ...architecture].filter((p) => !linked.has(p))).toEqual([]);
  });

  it("README's layout lists every top-level part and every guide in docs/", () => {
    const layout = /## Layout\s*```([\s\S]*?)```/.exec(readme)?.[1];
    expect(layout).toBeDefined();
    const listed = new Set(layout!.split("\n").map((l) => l.split(/\s+/)[0]!).filter((w) => w !== ""));
    const parts = [...tree.dirs].filter((d) => {
      const [first, second, third] = d.split("/");
      if (third !== undefined) return false;
      if (second === undefined) return true;
      return ["packages", "apps", "tools", "examples", "test"].includes(first!);
    });
    // A part is listed as itself, or (for a top-level folder) by a listed path inside it.
    const unlisted = parts.filter((p) => !listed.has(p) && ![...listed].some((l) => l.startsWith(`${p}/`)));
    expect(unlisted).toEqual([]);
    const docsLines = layout!.split("\n").filter((l) => /^(docs|\s)/.test(l)).join(" ");
    expect(guides.filter((g) => !docsLines.includes(g.slice("docs/".length)))).toEqual([]);
    expect(listed.has("docs/architecture")).toBe(true);
  });

  it('every AGENTS.md "Section" cited in the tree is a heading or a row of "Sections that moved"', () => {
    const names = sectionNames(map);
    // This file's own examples and messages are not citations.
    const texts = [...tree.files].filter((p) => /\.(ts|tsx|mjs|md|cs|sh)$/.test(p) && p !== "AGENTS.md" && p !== "scripts/test/map.test.ts");
    const unresolved = texts.flatMap((p) =>
      citedSections(read(p))
        .filter((s) => !resolves(s, names))
        .map((s) => `${p}: AGENTS.md "${s}"`),
    );
    expect(unresolved).toEqual([]);
  });
});

describe("the map's checks see what they must", () => {
  const tree = treeOf(["packages/core/src/room/seating.ts", "packages/core/test/relay/promotion.test.ts", "docs/sdk.md", "apps/gateway/test/a.integration.test.ts"]);

  it("finds paths from the root, paths relative to a package, globs; not what is gone", () => {
    expect(found(tree, "packages/core/src/room/seating.ts")).toBe(true);
    expect(found(tree, "room/seating.ts")).toBe(true);
    expect(found(tree, "test/relay/promotion.test.ts")).toBe(true);
    expect(found(tree, "packages/core/src/room/")).toBe(true);
    expect(found(tree, "apps/gateway/test/*.integration.test.ts")).toBe(true);
    expect(found(tree, "**/*.integration.test.ts")).toBe(true);
    expect(found(tree, "packages/*/test")).toBe(true);
    expect(found(tree, "packages/core/src/room/seats.ts")).toBe(false);
    expect(found(tree, "eating.ts")).toBe(false);
    expect(found(tree, "packages/*/bench")).toBe(false);
  });

  it("reads paths out of backticks and prose, not out of code blocks, URLs or package names", () => {
    const md = [
      "The room (`room/seating.ts`, `Room.message`, `@tikron/core/sync`, `/rooms/:kind/:id`) and",
      "packages/core/src/join/gate.ts, `docs/sdk.md:12`, see [x](https://example.com/packages/a.ts).",
      "```sh\nbash scripts/nothing.sh\n```",
    ].join("\n");
    expect(namedPaths(md, tree.top).sort()).toEqual(["docs/sdk.md", "packages/core/src/join/gate.ts", "room/seating.ts"]);
    expect(missingIn("AGENTS.md", md, tree)).toEqual(["AGENTS.md: packages/core/src/join/gate.ts"]);
  });

  it("resolves links against the linking file's folder", () => {
    expect(linkTargets("[a](../sdk.md#x) [b](https://x.org) [c](#top) `[d](e.md)`")).toEqual(["../sdk.md"]);
    expect(missingIn("docs/architecture/x.md", "[a](../sdk.md) [b](../gone.md)", tree)).toEqual(["docs/architecture/x.md: link ../gone.md (docs/gone.md)"]);
  });

  it("reads section citations in every form the tree uses, across comment lines", () => {
    const ts = '/**\n * A relayed room (AGENTS.md "Relays",\n * "Promotion"); see AGENTS.md, "Restarts and what\n * survives", and AGENTS.md ("Declared inputs").\n */';
    expect(citedSections(ts)).toEqual(["Relays", "Restarts and what survives", "Declared inputs"]);
    // A file name in code is not a citation.
    expect(citedSections('readFileSync(join(ROOT, "AGENTS.md"), "utf8"); const files = { "AGENTS.md": text };')).toEqual([]);
    const names = sectionNames('## Timing: what it means\n\n| cited as | now in |\n|---|---|\n| "Relays", "Promotion" | [r](r.md) |\n');
    expect(resolves("Timing", names)).toBe(true);
    expect(resolves("Promotion", names)).toBe(true);
    expect(resolves("Relay", names)).toBe(false);
    expect(resolves("Placement", names)).toBe(false);
  });
});
