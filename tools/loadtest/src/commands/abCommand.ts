/** `loadtest ab`: the command line of the A/B comparison. */
import { InvalidArgumentError, Option, type Command } from "commander";
import { RESULTS_DIR } from "../report/reportFiles";
import { defaultPinning, type Pinning } from "../server/freshRun";
import { parseAbSpec } from "../ab/abSpec";
import { abHeader, runAb } from "../ab/abRun";
import { abTable } from "../ab/abStats";

const posInt = (name: string) => (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return n;
};
const posNum = (name: string) => (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative number`);
  return n;
};

/** Pinning from the command's options: the default split, none, or explicit core lists. */
export function pinningFrom(o: { pin: boolean; serverCpus?: string; generatorCpus?: string; viaDevProxy?: boolean }): Pinning {
  const hop = o.viaDevProxy ? "dev-proxy" : "direct";
  if (!o.pin) return { serverCpus: null, generatorCpus: null, note: "pinning turned off (--no-pin)", hop };
  const d = defaultPinning();
  if (o.serverCpus === undefined && o.generatorCpus === undefined) return { ...d, hop };
  if (d.serverCpus === null && d.note?.startsWith("taskset")) return { ...d, hop };
  return { serverCpus: o.serverCpus ?? d.serverCpus, generatorCpus: o.generatorCpus ?? d.generatorCpus, hop };
}

/** Adds the pinning options shared by `ab` and `capacity`. */
export function addPinningOptions(cmd: Command): Command {
  return cmd
    .option("--no-pin", "do not pin server and generator to separate cores")
    .option("--server-cpus <list>", "cores for wrangler/workerd (default: the first online core when there are ≥ 2)")
    .option("--generator-cpus <list>", "cores for the generator's process (default: the other cores)")
    .option("--via-dev-proxy", "send through wrangler's dev proxy (the public port) instead of straight to the worker's entry socket; the proxy is not on the edge and shares the generator's core");
}

/** Registers `ab` on the program. */
export function registerAbCommand(program: Command): void {
  addPinningOptions(
    program
      .command("ab")
      .description(
        "compare two server configurations: A and B alternately, k repeats each, every run on a fresh wrangler dev; prints median [min–max] per side and B/A for server CPU, latency, cadence and bandwidth",
      )
      .requiredOption("--a <spec>", "side A: comma-separated key=value: label=, config=<staging|wrangler config>, rev=<git revision>, query=<DEV_MODE query>, scenario=, players=, rate=")
      .requiredOption("--b <spec>", "side B (same keys)")
      .option("--repeats <k>", "runs per side", posInt("repeats"), 3)
      .addOption(new Option("--order <order>", "run order: abba (A B B A …, cancels drift) or alternate (A B A B …)").choices(["abba", "alternate"]).default("abba"))
      .option("--scenario <name>", "scenario (a spec may override)", "agar")
      .option("-p, --players <n>", "players in the one room (a spec may override)", posInt("players"), 100)
      .option("-d, --duration <sec>", "steady window per run, seconds (CPU is read over it)", posNum("duration"), 30)
      .option("--ramp <sec>", "join ramp per run (default players/10: 10 joins/s)", posNum("ramp"))
      .option("--rate <n>", "inputs per second per player (a spec may override)", posNum("rate"))
      .option("--query <qs>", "base DEV_MODE query; a spec's query is layered on top (add cap=<n> above 20 agar players)")
      .option("--workers <k>", "generator worker threads", posInt("workers"))
      .option("--cooldown <sec>", "pause between runs", posNum("cooldown"), 5)
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
