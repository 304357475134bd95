/**
 * The C# types generated from the demo games' declarations (and the core test game the C# tests
 * use) are what `npm run codegen -- --demo` makes from the current declarations: a game that
 * changes its schema, events, input, view, messages or notices without generating them again
 * fails here (the C# clients would refuse the room's schema hash, or send what it no longer reads).
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_GAMES, REPO_ROOT, generate } from "../../tools/codegen/src/generate";

describe("generated C# game types", () => {
  it("are what codegen makes from the current declarations", async () => {
    const files = await generate(DEMO_GAMES);
    expect(files.length).toBe(DEMO_GAMES.length);
    for (const [file, text] of files) {
      expect(text, `${relative(REPO_ROOT, file)} is stale: run npm run codegen -- --demo`).toBe(readFileSync(file, "utf8"));
    }
  }, 120_000);
});
