/**
 * `npm run codegen -- --lang csharp [--namespace N] [--class C] [--out file.cs] <module>#<export>`:
 * a game's `defineGameTypes` declaration (the export of a TypeScript module) as code for another
 * language's SDK; only C# so far (packages/client-dotnet). Without `--out` the code goes to
 * stdout. `npm run codegen -- --demo` writes the demo games' C# types (packages/client-dotnet/games).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEMO_GAMES, generate } from "./generate";

const { values, positionals } = parseArgs({
  options: {
    lang: { type: "string", default: "csharp" },
    namespace: { type: "string" },
    class: { type: "string" },
    out: { type: "string" },
    demo: { type: "boolean", default: false },
  },
  allowPositionals: true,
});

if (values.lang !== "csharp") {
  console.error(`codegen: --lang ${values.lang} is not supported (csharp only)`);
  process.exit(2);
}

if (values.demo) {
  for (const [file, text] of await generate(DEMO_GAMES)) writeFileSync(file, text);
  console.log(`codegen: wrote ${DEMO_GAMES.map((g) => g.out).join(", ")}`);
} else {
  const spec = positionals[0];
  if (!spec || !spec.includes("#")) {
    console.error("usage: npm run codegen -- --lang csharp [--namespace N] [--class C] [--out file.cs] <module.ts>#<export>");
    process.exit(2);
  }
  const [module, exportName] = spec.split("#") as [string, string];
  const base = exportName.replace(/Types$/, "");
  const game = values.class ?? `${base[0]!.toUpperCase()}${base.slice(1)}Game`;
  const [[, text]] = await generate([{ module: resolve(module), export: exportName, namespace: values.namespace ?? `Game.${game}`, game, out: values.out ?? "" }]);
  if (values.out) writeFileSync(values.out, text!);
  else process.stdout.write(text!);
}
