/** `loadtest match-bench`: one matchmaker object's throughput, request rate against p99. */
import type { Command } from "commander";
import { matchBenchTable, matchBenchVerdict, runMatchBench } from "../bench/matchBench";
import { RESULTS_DIR } from "../report/reportFiles";
import { startLocalServer } from "../run/serverRun";
import { workerEntryUrl } from "../server/workerEntry";
import { num, parsed, posInt, posNum } from "./parsers";

const rateList = (v: string): number[] => {
  const rates = v.split(",").map(Number);
  if (rates.length === 0 || rates.some((r) => !(r > 0 && r <= 5000))) throw new Error(`bad rates "${v}" (use e.g. 25,50,100,200)`);
  return rates;
};

/** Registers `match-bench` on the program. */
export function registerMatchBenchCommand(program: Command): void {
  program
    .command("match-bench")
    .description(
      "one matchmaker object's throughput: POST /match/<kind> (joinOrCreate) at rising rates, open loop, reservations left to expire; HTTP and decision p50/p99 per rate, and the rate at which p99 doubles",
    )
    .option("--url <url>", "server base URL (ws:// or http://)", "ws://127.0.0.1:8787")
    .option("--server <config>", "start a local wrangler dev for the bench (\"staging\" or a wrangler config path); overrides --url")
    .option("--kind <kind>", "room kind whose matchmaker is measured", "agar")
    .option("--query <qs>", "DEV_MODE overrides of every request (the rooms it makes)", "cap=8")
    .option("--rates <list>", "requests per second, one step each", parsed(rateList), [25, 50, 100, 200, 400])
    .option("--step <sec>", "seconds per step", posNum("step"), 10)
    .option("--warmup <sec>", "unmeasured step at the first rate before the series (JIT, cold objects)", num("warmup"), 3)
    .option("--cooldown <sec>", "pause after each step (its reservations expire, its rooms empty; the default lifetime is 10 s)", num("cooldown"), 12)
    .option("--timeout-ms <ms>", "deadline of one request", posInt("timeout-ms"), 10_000)
    .option("--name <name>", "result name", "match-bench")
    .option("--out <dir>", "results directory", RESULTS_DIR)
    .action(async (o) => {
      const log = (line: string): void => console.error(line);
      const server = o.server ? await startLocalServer({ config: o.server }) : null;
      try {
        const url = server ? ((await workerEntryUrl(server.pid)) ?? server.wsUrl) : o.url;
        if (server) log(`server ${url} (pid ${server.pid}) ready`);
        const { result, files } = await runMatchBench({
          url,
          kind: o.kind,
          query: o.query,
          rates: o.rates,
          stepSec: o.step,
          warmupSec: o.warmup,
          cooldownSec: o.cooldown,
          timeoutMs: o.timeoutMs,
          name: o.name,
          outDir: o.out,
          log,
        });
        console.log(`\n== match-bench ${result.name}: ${matchBenchVerdict(result)}`);
        console.log(matchBenchTable(result.steps, false));
        for (const note of result.notes) console.log(`   note: ${note}`);
        console.log(`\n${files.join("\n")}`);
      } finally {
        await server?.stop();
      }
    });
}
