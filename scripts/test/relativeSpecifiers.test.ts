import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { explicitSpecifier, rewriteRelativeSpecifiers } from "../lib/relativeSpecifiers";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function emitted(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "tikron-specifiers-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe("rewriteRelativeSpecifiers", () => {
  it("adds .js to files and /index.js to folders, in .js and .d.ts, and leaves packages alone", () => {
    const d = emitted({
      "index.js": `export { Room } from "./room";\nexport * from "./sync";\nimport { x } from "@tikron/protocol";\nconst m = import("./room");\nimport "./room";\n`,
      "index.d.ts": `export { Room, type RoomInit } from "./room";\nexport type { X } from "./sync";\nexport declare function f(): import("./room").Room;\n`,
      "room.js": "",
      "sync/index.js": "",
    });
    rewriteRelativeSpecifiers(d);
    expect(readFileSync(join(d, "index.js"), "utf8")).toBe(
      `export { Room } from "./room.js";\nexport * from "./sync/index.js";\nimport { x } from "@tikron/protocol";\nconst m = import("./room.js");\nimport "./room.js";\n`,
    );
    expect(readFileSync(join(d, "index.d.ts"), "utf8")).toBe(
      `export { Room, type RoomInit } from "./room.js";\nexport type { X } from "./sync/index.js";\nexport declare function f(): import("./room.js").Room;\n`,
    );
  });

  it("keeps explicit specifiers and refuses one that resolves to nothing", () => {
    const d = emitted({ "a.js": "", "sub/b.js": "" });
    expect(explicitSpecifier(d, "./a.js")).toBe("./a.js");
    expect(explicitSpecifier(join(d, "sub"), "../a")).toBe("../a.js");
    expect(() => explicitSpecifier(d, "./missing")).toThrow(/cannot resolve \.\/missing/);
  });
});
