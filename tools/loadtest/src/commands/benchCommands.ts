/** `loadtest bench-generator` and `loadtest bench-live`: what the generator itself can drive, and what live sampling costs it. */
import type { Command } from "commander";
import { benchGenerator } from "../bench/benchGenerator";
import { benchLiveOverhead } from "../bench/liveOverhead";
import { RESULTS_DIR } from "../report/reportFiles";
import { finishReport } from "./finishReport";
import { int, num } from "./parsers";

/** Registers `bench-generator` on the program. */
export function registerBenchGeneratorCommand(program: Command): void {
  program
    .command("bench-generator")
    .description("measure the generator's own capacity against the Node room server (separate process)")
    .option("--clients <n>", "simulated players in total", int("clients"), 1000)
    .option("--rooms <n>", "rooms to spread them over (at most 1000 clients per room)", int("rooms"), 10)
    .option("-d, --duration <sec>", "steady phase, seconds", num("duration"), 20)
    .option("--ramp <sec>", "join ramp, seconds", num("ramp"), 5)
    .option("--rate <n>", "inputs per second per client", num("rate"), 20)
    .option("--workers <k>", "worker threads", int("workers"), 0)
    .option("--in-process-server", "run the room server in this process (charges its CPU to the generator)")
    .option("--out <dir>", "report directory", RESULTS_DIR)
    .action(async (o) => {
      const { report, checks, noise } = await benchGenerator({
        clients: o.clients,
        rooms: o.rooms,
        durationSec: o.duration,
        rampSec: o.ramp,
        rate: o.rate,
        workers: o.workers,
        inProcessServer: Boolean(o.inProcessServer),
      });
      finishReport({ ...report, bench: { checks, noise } }, { outDir: o.out });
      console.log("\ngenerator capacity:");
      for (const c of checks) console.log(`  ${c.ok ? "ok  " : "MISS"}  ${c.target.padEnd(55)} ${c.actual}`);
      for (const [when, p] of Object.entries(noise)) {
        console.log(
          `  noise floor ${when.padEnd(6)} idle ${p.seconds}s timer: ${p.onTimePct}% on time, p99 late ${p.p99LateMs} ms, max ${p.maxLateMs} ms${p.onTimePct < 99 ? "  (machine too noisy: result inconclusive)" : ""}`,
        );
      }
      if (checks.some((c) => !c.ok)) process.exitCode = 1;
    });
}

/** Registers `bench-live` on the program. */
export function registerBenchLiveCommand(program: Command): void {
  program
    .command("bench-live")
    .description("what per-second live sampling costs the generator: runs with it on and off alternated against real agar rooms on the loopback Node host, medians")
    .option("--clients <n>", "simulated players in total", int("clients"), 200)
    .option("--rooms <n>", "rooms", int("rooms"), 4)
    .option("-d, --duration <sec>", "steady phase per run", num("duration"), 10)
    .option("--ramp <sec>", "join ramp per run", num("ramp"), 2)
    .option("--pairs <n>", "A/B pairs (order alternates)", int("pairs"), 5)
    .action(async (o) => {
      const res = await benchLiveOverhead({ clients: o.clients, rooms: o.rooms, durationSec: o.duration, rampSec: o.ramp, pairs: o.pairs }, (l) => console.log(l));
      const row = (name: string, s: typeof res.on): string =>
        `${name.padEnd(9)} median ${s.median.cpuMicrosPerMessage.toFixed(2)} µs/msg, cpu ${s.median.cpuPercent.toFixed(1)}%, on schedule ${s.median.onSchedulePct}%   [µs/msg: ${s.cpuMicrosPerMessage.join(", ")}]`;
      console.log(`
${row("live on", res.on)}
${row("live off", res.off)}`);
      console.log(`on - off: ${(res.on.median.cpuMicrosPerMessage - res.off.median.cpuMicrosPerMessage).toFixed(2)} µs/msg`);
    });
}
