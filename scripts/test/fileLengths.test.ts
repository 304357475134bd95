import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCheck, writeTree } from "./support/scriptFixture";

const SCRIPT = fileURLToPath(new URL("../file-lengths.mjs", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `n` lines of code. */
const code = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join("\n") + "\n";

function tree(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "tikron-lengths-"));
  return writeTree(dir, files);
}

const check = (root: string) => runCheck(SCRIPT, root);

describe("file-lengths", () => {
  it("passes this repository: every source file is at most 500 lines or says why not", () => {
    const r = spawnSync(process.execPath, [SCRIPT], { cwd: REPO, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("fails a source file of 501 lines, anywhere in the tree, and passes one of 500", () => {
    const r = check(tree({ "packages/a/src/long.ts": `// A part.\n${code(500)}`, "tools/b/ok.mjs": code(500) }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("packages/a/src/long.ts: 501 lines, over 500 with no reason");
    expect(r.stderr).not.toContain("ok.mjs");
  });

  it("passes a long file whose opening comment says why, and not one whose reason stands later or says nothing", () => {
    const reason = "/**\n * The wire's table of codes.\n * Long by design: one table every host and client reads, split it and two halves drift.\n */\n";
    const r = check(
      tree({
        "packages/a/src/table.ts": reason + code(600),
        "packages/a/src/later.ts": code(600) + reason,
        "packages/a/src/empty.ts": "// Long by design: yes\n" + code(600),
      }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("table.ts");
    expect(r.stderr).toContain("packages/a/src/later.ts: 604 lines");
    expect(r.stderr).toContain("packages/a/src/empty.ts: 601 lines");
  });

  it("holds no test, fixture, bench, generated file or dependency to it", () => {
    const long = code(900);
    const r = check(
      tree({
        "packages/a/test/room.test.ts": long,
        "packages/a/test/harness.ts": long,
        "packages/a/src/fixtures/world.ts": long,
        "packages/a/bench/run.ts": long,
        "packages/a/src/types.g.ts": long,
        "packages/a/src/types.d.ts": long,
        "node_modules/x/index.js": long,
        "packages/a/dist/index.js": long,
      }),
    );
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain("0 of 0 source files");
  });
});
