import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../import-cycles.mjs", import.meta.url));

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A workspace of the given files (paths relative to its root) with packages under `packages/*`. */
function workspace(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "tikron-cycles-"));
  writeFileSync(join(dir, "pnpm-workspace.yaml"), 'packages:\n  - "packages/*"\n  - "tools/one"\n');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function check(root: string): { code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [SCRIPT, "--root", root], { cwd: root, encoding: "utf8" });
  return { code: r.status, stderr: r.stderr };
}

describe("import-cycles", () => {
  it("passes a tree whose imports only point one way", () => {
    const root = workspace({
      "tools/one/src/a.ts": 'import { b } from "./b";\nimport type { C } from "./deep/c";\nexport const a = b;\n',
      "tools/one/src/b.ts": 'export * from "./deep/c";\nexport const b = 1;\n',
      "tools/one/src/deep/c.ts": "export type C = number;\n",
      "scripts/run.mjs": 'import "../tools/one/src/a.ts";\n',
    });
    expect(check(root)).toEqual({ code: 0, stderr: "" });
  });

  it("finds circles of type imports, side-effect imports, re-exports and import() anywhere in the tree", () => {
    const root = workspace({
      "apps/x/src/a.ts": 'import type { B } from "./b";\nexport type A = B;\n',
      "apps/x/src/b.ts": 'import "./a";\nexport type B = number;\n',
      "tools/one/src/c.ts": 'export const load = () => import("./sub/d");\n',
      "tools/one/src/sub/d.ts": 'export * from "../c";\n',
      "test/e.ts": 'import {\n  f,\n} from "./f";\nexport const e = f;\n',
      "test/f.ts": 'import { e } from "./e";\nexport const f = () => e;\n',
      "tools/one/src/ok.ts": 'import { e } from "../../../test/e";\nexport const ok = e;\n',
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("apps/x/src/a.ts -> apps/x/src/b.ts -> apps/x/src/a.ts");
    expect(r.stderr).toContain("tools/one/src/c.ts -> tools/one/src/sub/d.ts -> tools/one/src/c.ts");
    expect(r.stderr).toContain("test/e.ts -> test/f.ts -> test/e.ts");
    expect(r.stderr).not.toContain("ok.ts");
  });

  it("follows imports of workspace packages through their exports, sub-paths included", () => {
    const root = workspace({
      "packages/low/package.json": JSON.stringify({ name: "@t/low", exports: { ".": "./src/index.ts", "./extra": "./src/extra.ts" } }),
      "packages/low/src/index.ts": 'export const low = 1;\n',
      "packages/low/src/extra.ts": 'import { high } from "@t/high";\nexport const extra = high;\n',
      "packages/high/package.json": JSON.stringify({ name: "@t/high", exports: "./src/index.ts" }),
      "packages/high/src/index.ts": 'import { low } from "@t/low";\nexport { extra } from "@t/low/extra";\nexport const high = low;\n',
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("packages/high/src/index.ts -> packages/low/src/extra.ts -> packages/high/src/index.ts");
  });
});
