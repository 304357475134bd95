/**
 * `npm run replay -- <command>`: recorded matches from the command line (docs/replay.md).
 *
 *   list   --url <base> --kind <kind>                   a kind's recorded matches, newest first
 *   verify --url <base> --kind <kind> --match <id>      re-runs one; ends with `replay: exact`,
 *                                                       or names the first tick that differs
 *   verify --file <log.tkml>                            the same for a log on disk
 *   fetch  --url <base> --kind <kind> --match <id> --out <file>
 *
 * The admin token comes from `ADMIN_TOKEN`. Exit code 0 when exact (or listed), 1 when a replay
 * differs, 2 for a usage or request error.
 */
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { MatchLog } from "@tikron/core/replay";
import { gameDefinitions } from "@tikron/games";
import { fetchMatch, formatList, listMatches, verifyMatch, type ArchiveAccess } from "./replayTool";

const USAGE = "usage: npm run replay -- list|verify|fetch --url <base> --kind <kind> [--match <id>] [--file <log>] [--out <file>]  (ADMIN_TOKEN in the environment)";

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { url: { type: "string" }, kind: { type: "string" }, match: { type: "string" }, file: { type: "string" }, out: { type: "string" } },
  });
  const command = positionals[0];
  const access = (): ArchiveAccess => {
    const token = process.env.ADMIN_TOKEN;
    if (!values.url || !values.kind) throw new Error(USAGE);
    if (!token) throw new Error("set ADMIN_TOKEN to the host's admin token");
    return { url: values.url, token };
  };
  if (command === "list") {
    for (const line of formatList(await listMatches(access(), values.kind!))) console.log(line);
    return 0;
  }
  if (command === "fetch") {
    if (!values.match || !values.out) throw new Error(USAGE);
    const log = await fetchMatch(access(), values.kind!, values.match);
    await writeFile(values.out, log);
    console.log(`${values.out}: ${log.byteLength} B`);
    return 0;
  }
  if (command === "verify") {
    let log: Uint8Array;
    if (values.file) log = new Uint8Array(await readFile(values.file));
    else if (values.match) log = await fetchMatch(access(), values.kind!, values.match);
    else throw new Error(USAGE);
    const kind = new MatchLog(log).header.kind;
    const report = await verifyMatch(gameDefinitions, kind, log);
    console.log(`${kind} ${report.header.roomId} match ${report.header.matchId}: ${log.byteLength} B, ${report.total} records`);
    console.log(report.message);
    return report.exact ? 0 : 1;
  }
  throw new Error(USAGE);
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  },
);
