/**
 * The engine examples shown in docs/csharp.md are the files CI compiles against the C# SDK
 * (docs/csharp-examples, built by scripts/dotnet-test.sh): each code block marked
 * `<!-- file: … -->` is that file, character for character.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

describe("docs/csharp.md", () => {
  it("shows the example files CI compiles", () => {
    const doc = readFileSync(join(ROOT, "docs/csharp.md"), "utf8");
    const blocks = [...doc.matchAll(/<!-- file: (\S+) -->\n```csharp\n([\s\S]*?)```/g)];
    expect(blocks.map((b) => b[1])).toEqual(["docs/csharp-examples/UnityAgarRoom.cs", "docs/csharp-examples/GodotAgarRoom.cs"]);
    for (const [, file, code] of blocks) expect(code, `${file} changed: paste it into docs/csharp.md again`).toBe(readFileSync(join(ROOT, file!), "utf8"));
  });
});
