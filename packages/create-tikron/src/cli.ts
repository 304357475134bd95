#!/usr/bin/env node
/**
 * `npm create tikron <directory>`: a new game project from the starter. Plain Node (20 or newer),
 * no dependencies: it runs before the project's own Node requirement is met, and says what that
 * requirement is when the running Node falls short.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { scaffold } from "./scaffold";

const USAGE = `usage: npm create tikron <directory> [-- --packages <dir>]
       create-tikron <directory> [--packages <dir>]

Makes a new Tikron game project (the tag starter: a Worker, its page, its tests) in <directory>.

  --packages <dir>  install @tikron/* from the tarballs in <dir> (\`npm run pack -- <dir>\` in the
                    Tikron repository) instead of the npm registry
  -h, --help        this text`;

function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { packages: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (e) {
    console.error(`create-tikron: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    console.error(`create-tikron: name one directory for the new project${parsed.positionals.length > 1 ? ` (got ${parsed.positionals.join(", ")})` : ""}\n\n${USAGE}`);
    return 2;
  }
  const template = fileURLToPath(new URL("../template", import.meta.url));
  if (!existsSync(template)) {
    console.error(`create-tikron: ${template} is missing: run a packed create-tikron (\`npm run pack\` builds the template), not its sources`);
    return 1;
  }
  let made;
  try {
    made = scaffold({ directory: parsed.positionals[0]!, template, packages: parsed.values.packages });
  } catch (e) {
    console.error(`create-tikron: ${(e as Error).message}`);
    return 1;
  }
  // The project's own check, so the Node rule has one home (its package.json's engines). Its line
  // comes first: on an older Node it is the one thing to do before anything else.
  const check = spawnSync(process.execPath, [join(made.directory, "scripts", "check-node.mjs")], { encoding: "utf8" });
  if (check.status !== 0) console.log(`Before npm install: ${check.stderr.trim()}\n`);
  const from = made.packages === undefined ? "the npm registry" : `the tarballs in ${made.packages}`;
  const path = relative(process.cwd(), made.directory) || ".";
  const cd = /[\s'"$`\\]/.test(path) ? `'${path.replace(/'/g, `'\\''`)}'` : path; // as a shell reads it
  console.log(`Made ${made.name} in ${made.directory}: the tag starter on @tikron/* ${made.version} from ${from}.

Next:
  cd ${cd}
  npm install
  npm test          the game's tests, in memory
  npm run dev       the game on http://127.0.0.1:8787 (open it in two windows; /admin: the console)
  npm run bots -- 6 six bots playing it, until Ctrl-C

README.md has the rest: the files, the commands, how to make the game your own.`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
