import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AnyGameTypes } from "@tikron/protocol";
import { emitCsharp } from "./csharp";
import { makeProgram, readDeclaredTypes } from "./typeModel";

/** The repository's root (paths in generated headers are relative to it). */
export const REPO_ROOT = resolve(import.meta.dirname, "../../..");

/** One game to generate. */
export interface GameSpec {
  /** The TypeScript module that exports the declaration (absolute). */
  module: string;
  /** The export's name. */
  export: string;
  /** The C# namespace. */
  namespace: string;
  /** The C# static class of the game. */
  game: string;
  /** Where the file goes (absolute); empty for stdout. */
  out: string;
}

const games = resolve(REPO_ROOT, "packages/games/src/clientTypes.ts");
const outDir = resolve(REPO_ROOT, "packages/client-dotnet/games");

/** The demo games' C# types, committed in packages/client-dotnet/games (a test fails when they are stale). */
export const DEMO_GAMES: GameSpec[] = [
  { module: games, export: "agarTypes", namespace: "Tikron.Games.Agar", game: "AgarGame", out: resolve(outDir, "Agar.g.cs") },
  { module: games, export: "movementTypes", namespace: "Tikron.Games.Movement", game: "MovementGame", out: resolve(outDir, "Movement.g.cs") },
  { module: games, export: "fpsTypes", namespace: "Tikron.Games.Fps", game: "FpsGame", out: resolve(outDir, "Fps.g.cs") },
  { module: games, export: "tttTypes", namespace: "Tikron.Games.Ttt", game: "TttGame", out: resolve(outDir, "TttJson.g.cs") },
  // The core's test game with room messages and notices: the C# tests use it (it is no demo game).
  {
    module: resolve(REPO_ROOT, "packages/core/test/testing/games.ts"),
    export: "dotsTypes",
    namespace: "Tikron.Games.Dots",
    game: "DotsGame",
    out: resolve(REPO_ROOT, "packages/client-dotnet/test/Tikron.Client.Tests/Dots.g.cs"),
  },
];

/** Generates C# for every spec (one TypeScript program for all); the files' paths and texts. */
export async function generate(specs: GameSpec[]): Promise<[string, string][]> {
  const program = makeProgram([...new Set(specs.map((s) => s.module))]);
  const out: [string, string][] = [];
  for (const spec of specs) {
    const mod = (await import(pathToFileURL(spec.module).href)) as Record<string, AnyGameTypes>;
    const game = mod[spec.export];
    if (!game || typeof game.kind !== "string") throw new Error(`${spec.module}#${spec.export} is not a defineGameTypes declaration`);
    const types = readDeclaredTypes(program, spec.module, spec.export, game.json);
    const source = `${relative(REPO_ROOT, spec.module)}#${spec.export}`;
    const command = `npm run codegen -- --lang csharp --namespace ${spec.namespace} --class ${spec.game} --out ${spec.out ? relative(REPO_ROOT, spec.out) : "-"} ${source}`;
    out.push([spec.out, emitCsharp(game, types, { namespace: spec.namespace, game: spec.game, source, command })]);
  }
  return out;
}
