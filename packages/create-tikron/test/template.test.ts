import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { gitignoreRule, packTemplate, unpackTemplate, withoutRepositoryOnly } from "../src/template";
import { tempDirs } from "./support";

const STARTER = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples", "starter");
const tmp = tempDirs("create-tikron-template-");

/** Every file under `dir`, as sorted `a/b/c` paths. */
function files(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

function write(root: string, path: string, text = path): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("gitignoreRule", () => {
  const ignored = gitignoreRule("# installs\nnode_modules/\n\n.dev.vars\npublic/client.js\n/dist\n");
  it.each([
    ["node_modules", true, true],
    ["src/node_modules", true, true],
    ["node_modules", false, false], // a file of that name is not the directory
    [".dev.vars", false, true],
    ["nested/.dev.vars", false, true],
    ["public/client.js", false, true],
    ["other/public/client.js", false, false], // a pattern with a slash is anchored at the top
    ["dist", true, true],
    ["src/dist", true, false],
    ["public/index.html", false, false],
  ])("%s (directory: %s) ignored: %s", (path, isDirectory, expected) => {
    expect(ignored(path, isDirectory)).toBe(expected);
  });

  it("refuses patterns it would only half understand", () => {
    for (const pattern of ["*.log", "!keep", "build?", "[ab]"]) expect(() => gitignoreRule(pattern)).toThrow(/not supported/);
  });
});

describe("withoutRepositoryOnly", () => {
  it("drops each marked block and the blank line after it, nothing else", () => {
    const readme = "# T\n\n<!-- repository-only -->\nnot here\n<!-- /repository-only -->\n\nkept\n<!-- repository-only -->\nx\n<!-- /repository-only -->\nend\n";
    expect(withoutRepositoryOnly(readme)).toBe("# T\n\nkept\nend\n");
  });

  it("throws on a block that is never closed", () => {
    expect(() => withoutRepositoryOnly("a\n<!-- repository-only -->\nb\n")).toThrow(/not closed/);
  });
});

describe("packTemplate / unpackTemplate", () => {
  it("leave out what the starter's .gitignore names and carry its dotfiles through npm pack's filter", () => {
    const starter = tmp();
    write(starter, ".gitignore", "node_modules/\npublic/client.js\n");
    write(starter, "README.md", "# S\n<!-- repository-only -->\nrepo\n<!-- /repository-only -->\nproject\n");
    write(starter, "src/a.ts");
    write(starter, "src/.hidden", "a dotfile below the top stays as it is");
    write(starter, "public/index.html");
    write(starter, "public/client.js", "a build output");
    write(starter, "node_modules/x/index.js");
    const template = join(tmp(), "template");
    packTemplate(starter, template);
    expect(files(template)).toEqual(["README.md", "_gitignore", "public/index.html", "src/.hidden", "src/a.ts"]);
    expect(readFileSync(join(template, "README.md"), "utf8")).toBe("# S\nproject\n");

    const project = join(tmp(), "p");
    unpackTemplate(template, project);
    expect(files(project)).toEqual([".gitignore", "README.md", "public/index.html", "src/.hidden", "src/a.ts"]);
    expect(readFileSync(join(project, ".gitignore"), "utf8")).toBe("node_modules/\npublic/client.js\n");
  });

  it("refuses a starter whose top-level name starts with _, which would come out as a dotfile", () => {
    const starter = tmp();
    write(starter, ".gitignore", "");
    write(starter, "_notes.md");
    const template = join(tmp(), "template");
    expect(() => packTemplate(starter, template)).toThrow(/_notes\.md/);
    expect(() => readdirSync(template)).toThrow(); // nothing copied
  });

  it("packs the repository's starter: the project files, its README without the repository note", () => {
    const template = join(tmp(), "template");
    packTemplate(STARTER, template);
    const packed = files(template);
    for (const f of ["_gitignore", "_npmrc", "package.json", "wrangler.jsonc", "README.md", "scripts/check-node.mjs", "scripts/dev.mjs", "scripts/bots.ts", "src/server/worker.ts", "src/client/bot.ts", "test/tag.test.ts", "public/index.html"]) {
      expect(packed).toContain(f);
    }
    expect(packed.filter((f) => f.startsWith("node_modules/") || f.startsWith(".wrangler/") || f === "public/client.js")).toEqual([]);
    const readme = readFileSync(join(template, "README.md"), "utf8");
    expect(readFileSync(join(STARTER, "README.md"), "utf8")).toContain("<!-- repository-only -->");
    expect(readme).not.toContain("repository-only");
    expect(readme).not.toContain("not a project to install here");
    expect(readme).toMatch(/^# .*\n\n\*\*Needs Node 22\.12 or newer\*\*/);
  });
});
