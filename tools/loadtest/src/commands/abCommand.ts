/** `loadtest ab`: the command line of the A/B comparison. */
import { Option, type Command } from "commander";
import { abHeader, runAb } from "../ab/abRun";
import { parseAbSpec } from "../ab/abSpec";
import { abTable } from "../ab/abStats";
import { RESULTS_DIR } from "../report/reportFiles";
import { num, posInt } from "./parsers";
import { addPinningOptions, pinningFrom } from "./serverOptions";

/** Registers `ab` on the program. */
export function registerAbCommand(program: Command): void {
  addPinningOptions(
    program
      .command("ab")
      .description(
        "compare two server configurations: A and B alternately, k repeats each, every run on a fresh wrangler dev; prints median [min–max] per side and B/A for server CPU, latency, cadence and bandwidth",
      )
      .requiredOption("--a <spec>", "side A: comma-separated key=value: label=, config=<staging|wrangler config>, rev=<git revision>, query=<DEV_MODE query>, scenario=, players=, rate=, spectators=")
      .requiredOption("--b <spec>", "side B (same keys)")
      .option("--repeats <k>", "runs per side", posInt("repeats"), 3)
      .addOption(new Option("--order <order>", "run order: abba (A B B A …, cancels drift) or alternate (A B A B …)").choices(["abba", "alternate"]).default("abba"))
      .option("--scenario <name>", "scenario (a spec may override)", "agar")
      .option("-p, --players <n>", "players in the one room (a spec may override)", posInt("players"), 100)
      .option("-d, --duration <sec>", "steady window per run, seconds (CPU is read over it)", num("duration"), 30)
      .option("--ramp <sec>", "join ramp per run (default players/10: 10 joins/s)", num("ramp"))
      .option("--rate <n>", "inputs per second per player (a spec may override)", num("rate"))
      .option("--query <qs>", "base DEV_MODE query; a spec's query is layered on top (add cap=<n> above 20 agar players)")
      .option("--workers <k>", "generator worker threads", posInt("workers"))
      .option("--cooldown <sec>", "pause between runs", num("cooldown"), 5)
      .option("--name <name>", "result name", "ab")
      .option("--out <dir>", "results directory", RESULTS_DIR),
  ).action(async (o) => {
    const a = parseAbSpec(o.a, "A");
    const b = parseAbSpec(o.b, "B");
    const pinning = pinningFrom(o);
    const perRun = (o.ramp ?? o.players / 10) + o.duration + 15;
    console.error(`ab: ${o.repeats} x 2 runs, ~${Math.ceil(((perRun + o.cooldown) * o.repeats * 2) / 60)} min`);
    const res = await runAb({
      name: o.name,
      a,
      b,
      repeats: o.repeats,
      order: o.order,
      base: { scenario: o.scenario, players: o.players, durationSec: o.duration, rampSec: o.ramp, rate: o.rate, query: o.query, workers: o.workers },
      cooldownSec: o.cooldown,
      pinning,
      outDir: o.out,
      log: (line) => console.error(line),
    });
    const r = res.result;
    console.log(`\n== A/B ${r.name}`);
    for (const line of abHeader(r)) console.log(`   ${line}`);
    console.log("");
    console.log(abTable(r.figures, { a: a.label, b: b.label }, false));
    for (const n of r.notes) console.log(`   note: ${n}`);
    console.log(`\njson: ${res.jsonPath}\nmarkdown: ${res.markdownPath}`);
    if (r.runs.some((x) => x.error !== undefined)) process.exitCode = 1;
  });
}
