import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCheck, writeTree } from "./support/scriptFixture";

const SCRIPT = fileURLToPath(new URL("../import-direction.mjs", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** AGENTS.md's table as the repository writes it: folder, package, what, may import. */
const AGENTS = `# Map

### Folders and their one-way dependencies

| folder | package | what lives there | may import |
|---|---|---|---|
| \`packages/low\` | \`@t/low\` | the ground | nothing |
| \`packages/mid\` | \`@t/mid\` | rooms | low |
| \`packages/kit\` | \`@t/kit\` | kit | mid, low |
| \`packages/client\` | \`@t/client\` | the SDK | low, kit/schemas (its players) |
| \`apps/web\` | — | pages | client (the replay viewer also mid/replay) |

Rules that keep this shape.
`;

const pkg = (name: string, exports: Record<string, string> = { ".": "./src/index.ts" }) => JSON.stringify({ name, exports });

/** A workspace shaped like the repository's: low → mid → kit, a client on low and kit's schemas. */
function workspace(extra: Record<string, string> = {}): string {
  dir = mkdtempSync(join(tmpdir(), "tikron-direction-"));
  const files: Record<string, string> = {
    "AGENTS.md": AGENTS,
    "pnpm-workspace.yaml": 'packages:\n  - "packages/*"\n  - "apps/*"\n',
    "packages/low/package.json": pkg("@t/low"),
    "packages/low/src/index.ts": "export const low = 1;\n",
    "packages/mid/package.json": pkg("@t/mid", { ".": "./src/index.ts", "./replay": "./src/replay/index.ts" }),
    "packages/mid/src/index.ts": 'import { low } from "@t/low";\nimport { parts } from "./room/parts";\nexport const mid = low + parts;\n',
    "packages/mid/src/room/parts.ts": 'import { base } from "../base";\nexport const parts = base;\n',
    "packages/mid/src/base.ts": "export const base = 2;\n",
    "packages/mid/src/replay/index.ts": 'export { log } from "./log";\n',
    "packages/mid/src/replay/log.ts": 'import { base } from "../base";\nexport const log = base;\n',
    "packages/kit/package.json": pkg("@t/kit", { ".": "./src/index.ts", "./schemas": "./src/schemas.ts" }),
    "packages/kit/src/index.ts": 'import { mid } from "@t/mid";\nexport { schema } from "./schemas";\nexport const game = mid;\n',
    "packages/kit/src/schemas.ts": 'import { low } from "@t/low";\nexport const schema = low;\n',
    "packages/client/package.json": pkg("@t/client"),
    "packages/client/src/index.ts": 'import { low } from "@t/low";\nimport { schema } from "@t/kit/schemas";\nexport const client = low + schema;\n',
    // Tests import what they like: no source of their folder.
    "packages/client/test/client.test.ts": 'import { game } from "@t/kit";\nexport const t = game;\n',
    "apps/web/package.json": JSON.stringify({ name: "web" }),
    // Low through the client's rule; mid's replay entry by name, from the parentheses.
    "apps/web/src/main.ts": 'import { client } from "@t/client";\nimport { low } from "@t/low";\nimport { log } from "@t/mid/replay";\nexport const page = client + low + log;\n',
    ...extra,
  };
  return writeTree(dir, files);
}

const check = (root: string) => runCheck(SCRIPT, root);

describe("import-direction", () => {
  it("passes this repository: no import runs back up across its folders, and inside packages only the listed loops stand", () => {
    const r = spawnSync(process.execPath, [SCRIPT], { cwd: REPO, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^imports running back up: 0 in \d+ files/);
  });

  it("passes a workspace whose imports follow the table, down through what each named folder may import", () => {
    expect(check(workspace())).toMatchObject({ code: 0, stderr: "" });
  });

  it("fails an import into a folder the table does not put below (a package importing one above it)", () => {
    const r = check(workspace({ "packages/low/src/up.ts": 'import { mid } from "@t/mid";\nexport const up = mid;\n' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("import runs back up: packages/low/src/up.ts -> packages/mid/src/index.ts (AGENTS.md: packages/low may import nothing of the workspace)");
  });

  it("holds a named entry to itself: kit/schemas lets the client import the schemas, not the games", () => {
    const r = check(workspace({ "packages/client/src/rooms.ts": 'import { game } from "@t/kit";\nexport const rooms = game;\n' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("packages/client/src/rooms.ts -> packages/kit/src/index.ts");
    expect(r.stderr).not.toContain("client.test.ts");
  });

  it("fails parts of one package that import each other (a loop of folders, though no loop of files)", () => {
    const r = check(workspace({ "packages/mid/src/base.ts": 'import type { log } from "./replay/log";\nexport type Log = typeof log;\nexport const base = 2;\n' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("parts that import each other inside packages/mid (an import runs back up): packages/mid/src/{base, replay}");
    expect(r.stderr).toContain("packages/mid/src/base.ts -> packages/mid/src/replay/log.ts");
  });

  it("reads a file beside a folder of its name as that folder's part", () => {
    const r = check(
      workspace({
        "packages/mid/src/room.ts": 'import { parts } from "./room/parts";\nexport const room = parts;\n',
        "packages/mid/src/room/parts.ts": 'import { base } from "../base";\nexport const parts = base;\n',
      }),
    );
    expect(r).toMatchObject({ code: 0, stderr: "" });
  });

  it("fails once a listed loop of the repository's is gone, so the list only shrinks", () => {
    const r = check(
      workspace({
        "packages/games/package.json": pkg("@t/games-of-the-repo"),
        "packages/games/src/index.ts": 'export { fps } from "./fps/fps";\n',
        "packages/games/src/fps/fps.ts": "export const fps = 1;\n",
      }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no longer a loop as listed: packages/games/src/{clientTypes, fps, ttt}");
  });
});
