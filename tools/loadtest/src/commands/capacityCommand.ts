/** `loadtest capacity`: the command line of the capacity sweep. */
import { Option, type Command } from "commander";
import { CAPACITY_LIMITS } from "../capacity/capacityJudge";
import { CAPACITY_DENSITIES, defaultDensity } from "../capacity/capacityDensity";
import { capacityTable, capacityVerdict } from "../capacity/capacityReport";
import { MAX_JOIN_RATE } from "../capacity/capacityResult";
import { runCapacity } from "../capacity/capacityRun";
import { RESULTS_DIR } from "../report/reportFiles";
import { num, posInt, posNum } from "./parsers";
import { addPinningOptions, pinningFrom } from "./serverOptions";

/** Registers `capacity` on the program. */
export function registerCapacityCommand(program: Command): void {
  const L = CAPACITY_LIMITS;
  addPinningOptions(
    program
      .command("capacity")
      .description(
        `find the most players one room holds (each point on a fresh wrangler dev): all joined, none throttled, no unexpected closes, every client >= ${L.minFrameShare * 100}% of expected frames (one per flush), gap p99 <= ${L.gapP99Ms} ms, ack p99 <= ${L.ackP99Ms} ms, flush p99 <= ${L.flushP99Ms} ms, generator healthy`,
      )
      .option("--scenario <name>", "scenario", "agar")
      .option("--server <config>", "\"staging\" or a wrangler config path", "staging")
      .option("--query <qs>", "DEV_MODE query (e.g. tickMs=33&syncIntervalMs=33); the density's aoi and world and cap=<players> are added per point")
      .addOption(
        new Option("--density <d>", "standard: the world grows with the players (agar: aoi=250, world=1000·√(N/100)); sparse: the game's default world (default: standard where the scenario has one)").choices([
          ...CAPACITY_DENSITIES,
        ]),
      )
      .option("--rate <n>", "inputs per second per player (default: the scenario's)", posNum("rate"))
      .option("-d, --duration <sec>", "steady window per point, seconds", posNum("duration"), 20)
      .option("--join-rate <n>", `joins per second during the ramp (<= ${MAX_JOIN_RATE}; the room admits 20/s)`, posNum("join-rate"), MAX_JOIN_RATE)
      .option("--start <n>", "first point, players", posInt("start"), 50)
      .addOption(new Option("--growth <how>", "grow by fixed steps or by doubling until a point fails").choices(["step", "double"]).default("step"))
      .option("--step <n>", "players added per step while growing", posInt("step"), 50)
      .option("--resolution <n>", "bisect until the answer is this precise (players)", posInt("resolution"), 25)
      .option("--max <n>", "never try more players than this", posInt("max"), 400)
      .option("--max-minutes <n>", "start no point after this many minutes", posNum("max-minutes"), 30)
      .option("--cooldown <sec>", "pause between points", num("cooldown"), 5)
      .option("--runs <k>", "runs per point, each on a fresh server; the first run is the point's verdict and figures, the table adds how many of the k passed", posInt("runs"), 1)
      .option("--workers <k>", "generator worker threads", posInt("workers"))
      .option("--name <name>", "result name", "capacity")
      .option("--out <dir>", "results directory", RESULTS_DIR),
  ).action(async (o) => {
    const { result, files } = await runCapacity({
      name: o.name,
      scenario: o.scenario,
      serverConfig: o.server,
      query: o.query,
      density: o.density ?? defaultDensity(o.scenario),
      rate: o.rate,
      durationSec: o.duration,
      joinRate: o.joinRate,
      plan: { start: o.start, growth: o.growth, step: o.step, resolution: o.resolution, max: o.max },
      maxMinutes: o.maxMinutes,
      cooldownSec: o.cooldown,
      runsPerPoint: o.runs,
      pinning: pinningFrom(o),
      workers: o.workers,
      outDir: o.out,
      log: (line) => console.error(line),
    });
    console.log(`\n== capacity ${result.name}: ${capacityVerdict(result)}`);
    console.log(capacityTable(result.points, false));
    for (const note of result.notes) console.log(`   note: ${note}`);
    console.log(`\n${files.join("\n")}`);
    if (result.points.some((p) => p.error !== undefined)) process.exitCode = 1;
  });
}
