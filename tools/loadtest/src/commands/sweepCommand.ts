/** `loadtest sweep`: a list of configurations run in turn, with one table and one page for all. */
import type { Command } from "commander";
import { RESULTS_DIR } from "../report/reportFiles";
import { builtInSweeps, readSweepFile, runSweep } from "../sweep/sweep";
import { int, num } from "./parsers";

/** Registers `sweep` on the program. */
export function registerSweepCommand(program: Command): void {
  program
    .command("sweep")
    .description("run a list of configurations with a cooldown in between; writes a markdown table and a JSON index")
    .argument("<list>", `built-in list (${Object.keys(builtInSweeps).join(", ")}) or a JSON file of entries`)
    .option("--url <url>", "room server base URL", "ws://127.0.0.1:8787")
    .option("--scenario <name>", "scenario", "agar")
    .option("-d, --duration <sec>", "steady phase per run (entries may override)", num("duration"), 20)
    .option("--ramp <sec>", "ramp per run (default players/10)", num("ramp"))
    .option("--rate <n>", "inputs per second per player", num("rate"))
    .option("--query <qs>", "base query string; entries' queries are layered on top")
    .option("--cooldown <sec>", "pause between runs", num("cooldown"), 10)
    .option("--workers <k>", "worker threads per run", int("workers"), 0)
    .option("--out <dir>", "output directory", RESULTS_DIR)
    .action(async (list: string, o) => {
      const entries = builtInSweeps[list] ? [...builtInSweeps[list]] : readSweepFile(list);
      const name = builtInSweeps[list] ? list : list.replace(/^.*\//, "").replace(/\.json$/, "");
      const res = await runSweep({
        name,
        entries,
        base: { url: o.url, scenario: o.scenario, durationSec: o.duration, rampSec: o.ramp, rate: o.rate, query: o.query, workers: o.workers },
        cooldownSec: o.cooldown,
        outDir: o.out,
        onRun: (i, e, r, path) =>
          console.error(`[${i + 1}/${entries.length}] ${e.label}: ${r.status}, ack p99 ${r.summary.ackRttMs.p99} ms -> ${path}`),
      });
      console.log(`markdown: ${res.markdownPath}\njson: ${res.jsonPath}\nhtml: ${res.htmlPath}`);
    });
}
