/**
 * A published package's README is read from the registry and from `node_modules`, where the
 * repository around it is gone: its links must be absolute (and name files that exist in the
 * repository), or point at files the package ships.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PUBLISHED_PACKAGES } from "../lib/packages";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const REPOSITORY = "https://github.com/tikron/tikron/";

/** Every link target of a markdown text, outside code blocks and spans. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** Why a link in `pkg`'s README breaks once packed, or undefined when it holds. */
function brokenLink(pkg: string, target: string, files: readonly string[]): string | undefined {
  if (target.startsWith("#")) return undefined;
  if (target.startsWith(REPOSITORY)) {
    const path = /^(?:blob|tree)\/main\/([^#?]*)/.exec(target.slice(REPOSITORY.length))?.[1];
    if (path === undefined) return /^(#|$)/.test(target.slice(REPOSITORY.length)) ? undefined : "not a blob/ or tree/ link on main";
    return existsSync(join(ROOT, path)) ? undefined : `${path} does not exist in the repository`;
  }
  if (/^https?:\/\//.test(target)) return undefined;
  const inside = relative(join(ROOT, "packages", pkg), normalize(join(ROOT, "packages", pkg, target.split("#")[0]!)));
  if (inside.startsWith("..")) return "leaves the package: that file is not in the tarball";
  if (!files.includes(inside.split(sep)[0]!)) return `${inside} is not in the package's "files"`;
  return existsSync(join(ROOT, "packages", pkg, inside)) ? undefined : `${inside} does not exist`;
}

describe("published package READMEs", () => {
  it.each(PUBLISHED_PACKAGES)("%s: every link works from an installed tarball", (pkg) => {
    const dir = join(ROOT, "packages", pkg);
    const { files } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { files: string[] };
    expect(files).toContain("README.md");
    const targets = linkTargets(readFileSync(join(dir, "README.md"), "utf8"));
    const broken = targets.flatMap((t) => {
      const why = brokenLink(pkg, t, files);
      return why === undefined ? [] : [`${t}: ${why}`];
    });
    expect(broken).toEqual([]);
  });

  it("the check sees a link that climbs out of the package, and a repository link to nothing", () => {
    expect(brokenLink("core", "../../docs/sdk.md", ["dist", "README.md"])).toMatch(/leaves the package/);
    expect(brokenLink("core", `${REPOSITORY}blob/main/docs/nothing-here.md`, [])).toMatch(/does not exist/);
    expect(brokenLink("core", `${REPOSITORY}blob/main/docs/sdk.md#rooms`, [])).toBeUndefined();
    expect(linkTargets("see [a](x.md) and `[b](y.md)`\n```\n[c](z.md)\n```")).toEqual(["x.md"]);
  });
});
