import { Command, InvalidArgumentError, Option } from "commander";
import { writeFileSync } from "node:fs";
import { gameDefinitions } from "@tikron/games";
import { serveRooms } from "@tikron/node";
import { benchGenerator } from "./benchGenerator";
import { compareReports, formatComparison } from "./compare";
import { resolveConfig, type LoadConfig } from "./config";
import { evaluateGate, formatGateResult, gateConfig, gates, getGate } from "./gates";
import { mergeReports, readReport } from "./merge";
import { RESULTS_DIR, formatSummary, writeReport, type Report } from "./report";
import { runResolved } from "./runner";
import { scenarios } from "./scenarios/index";
import { registerAbCommand } from "./ab/abCommand";
import { registerCapacityCommand } from "./capacity/capacityCommand";
import { addServerOptions, runWithServerOptions } from "./server/serverOptions";
import { builtInSweeps, readSweepFile, runSweep } from "./sweep";

const int = (name: string) => (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return n;
};
const num = (name: string) => (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative number`);
  return n;
};
const shardArg = (v: string): { index: number; count: number } => {
  const m = /^(\d+)\/(\d+)$/.exec(v);
  if (!m) throw new InvalidArgumentError("shard must look like i/n, e.g. 0/2");
  return { index: Number(m[1]), count: Number(m[2]) };
};
const startAtArg = (v: string): number => {
  const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError("start-at must be epoch ms or an ISO date");
  return n;
};

function finish(report: Report, outDir: string | undefined): string {
  const path = writeReport(report, outDir ?? RESULTS_DIR);
  console.log(formatSummary(report));
  console.log(`\nreport: ${path}`);
  return path;
}

const program = new Command()
  .name("loadtest")
  .description(
    "Load generator for Tikron rooms: simulated players on a fixed input schedule, honest latency (from scheduled send time), mergeable JSON reports.",
  )
  .showHelpAfterError();

addServerOptions(program.command("run"))
  .description("run one load test and write a JSON report")
  .option("--url <url>", "room server base URL (ws:// or wss://)", "ws://127.0.0.1:8787")
  .option("--scenario <name>", "scenario (see `scenarios`)", "agar")
  .option("-p, --players <n>", "players per room (above the room cap the excess is counted as refused)", int("players"), 10)
  .option("-r, --rooms <n>", "rooms", int("rooms"), 1)
  .option("-d, --duration <sec>", "steady phase after the ramp, seconds", num("duration"), 30)
  .option("--ramp <sec>", "pace joins evenly over this many seconds (default players/10)", num("ramp"))
  .option("--storm", "all joins at once (overrides --ramp)")
  .option("--rate <n>", "inputs per second per player (default: scenario rate, 20)", num("rate"))
  .option("--think-ms <ms>", "turn-based scenarios: delay before acting on your turn or a finished round (default 1000)", num("think-ms"))
  .option("--keepalive-ms <ms>", "turn-based scenarios: keepalive ping period, 0 = none (default 2000, the client SDK's)", num("keepalive-ms"))
  .option("--room-prefix <prefix>", "room id prefix (default: fresh per run, so no earlier room is reused)")
  .option("--query <qs>", "query string for every room URL (DEV_MODE overrides: tickMs, syncIntervalMs, cap, aoi, queueInputs, world)")
  .option("--workers <k>", "spread clients over k worker threads", int("workers"), 0)
  .option("--shard <i/n>", "run only shard i of n (for multi-machine runs; needs --room-prefix and --start-at)", shardArg)
  .option("--start-at <time>", "common start, epoch ms or ISO date (multi-machine runs)", startAtArg)
  .option("--seed <n>", "steering PRNG seed", int("seed"))
  .option("--name <name>", "report name", "run")
  .option("--out <dir>", "report directory", RESULTS_DIR)
  .option("--no-room-stats", "do not request tk:stats at the end")
  .action(async (o) => {
    const cfg = resolveConfig({
      url: o.url,
      scenario: o.scenario,
      players: o.players,
      rooms: o.rooms,
      durationSec: o.duration,
      rampSec: o.ramp,
      storm: o.storm,
      rate: o.rate,
      thinkMs: o.thinkMs,
      keepaliveMs: o.keepaliveMs,
      roomPrefix: o.roomPrefix,
      query: o.query,
      workers: o.workers,
      shard: o.shard,
      startAtEpochMs: o.startAt,
      seed: o.seed,
      name: o.name,
      roomStats: o.roomStats,
    } satisfies LoadConfig);
    console.error(
      `running ${cfg.players} x ${cfg.rooms} ${cfg.scenario} players against ${o.server ? `a fresh wrangler dev (${o.server})` : cfg.url} (rooms ${cfg.roomPrefix}-*), ~${Math.ceil(cfg.rampSec + cfg.durationSec)} s`,
    );
    finish(await runWithServerOptions(cfg, o, (line) => console.error(line)), o.out);
  });

program
  .command("gate")
  .description("run a named gate; exits 1 naming each failed threshold (a saturated generator fails as invalid)")
  .argument("[name]", `gate: ${gates.map((g) => g.name).join(", ")}`)
  .option("--url <url>", "room server base URL (default: the gate's)")
  .option("--workers <k>", "spread clients over k worker threads", int("workers"), 0)
  .option("--query <qs>", "replace the gate's query string (e.g. \"\" where DEV_MODE overrides are refused)")
  .option("--out <dir>", "report directory", RESULTS_DIR)
  .option("--list", "list gates and their thresholds")
  .action(async (name: string | undefined, o) => {
    if (o.list || !name) {
      for (const g of gates) {
        console.log(`${g.name}${g.ci ? " (CI)" : ""}: ${g.description}; url ${g.defaultUrl ?? "--url required"}${g.load.query ? `; query ${g.load.query}` : ""}`);
        for (const t of g.thresholds) console.log(`    ${t.id}: ${t.describe}`);
      }
      return;
    }
    const gate = getGate(name);
    const cfg = resolveConfig(gateConfig(gate, { url: o.url, workers: o.workers, query: o.query }));
    console.error(`gate ${name}: ${gate.description}; ${cfg.url}, rooms ${cfg.roomPrefix}-*`);
    const report = await runResolved(cfg);
    finish(report, o.out);
    const res = evaluateGate(gate, report);
    console.log(`\n${formatGateResult(res)}`);
    if (!res.passed) process.exitCode = 1;
  });

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
    console.log(`markdown: ${res.markdownPath}\njson: ${res.jsonPath}`);
  });

program
  .command("compare")
  .description("print two reports' figures side by side with deltas (b − a)")
  .argument("<a>", "baseline report JSON")
  .argument("<b>", "candidate report JSON")
  .action((a: string, b: string) => {
    console.log(formatComparison(compareReports(readReport(a), readReport(b), [a.replace(/^.*\//, ""), b.replace(/^.*\//, "")])));
  });

program
  .command("merge")
  .description("merge shard reports exactly (histograms merged, counts summed) into one report")
  .argument("<reports...>", "shard report JSON files")
  .option("--name <name>", "merged report name", "merged")
  .option("-o, --output <file>", "write here instead of the results directory")
  .action((files: string[], o) => {
    const merged = mergeReports(files.map(readReport), o.name);
    if (o.output) {
      writeFileSync(o.output, `${JSON.stringify(merged, null, 2)}\n`);
      console.log(formatSummary(merged));
      console.log(`\nreport: ${o.output}`);
    } else finish(merged, undefined);
  });

program
  .command("serve")
  .description("the real rooms (every kind in @tikron/games) on the Node host over ws, loopback; for benchmarks, tests and comparisons with workerd")
  .option("--port <n>", "port (0 = any free)", int("port"), 8790)
  .addOption(new Option("--host <host>", "bind address (loopback only)").choices(["127.0.0.1", "localhost", "::1"]).default("127.0.0.1"))
  .option("--no-dev-mode", "refuse DEV_MODE overrides (?tickMs=…) and HTTP stats, like production")
  .option("--max-seconds <sec>", "exit after this long", num("max-seconds"), 900)
  .action(async (o) => {
    const server = await serveRooms({ games: gameDefinitions, port: o.port, host: o.host, devMode: o.devMode });
    console.log(`room server listening on ${server.url} (pid ${process.pid}, kinds ${Object.keys(gameDefinitions).join(", ")}, exits after ${o.maxSeconds} s)`);
    const stop = async (): Promise<void> => {
      await server.close();
      process.exit(0);
    };
    setTimeout(() => void stop(), o.maxSeconds * 1000);
    process.once("SIGTERM", () => void stop());
    process.once("SIGINT", () => void stop());
  });

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
    finish({ ...report, bench: { checks, noise } }, o.out);
    console.log("\ngenerator capacity:");
    for (const c of checks) console.log(`  ${c.ok ? "ok  " : "MISS"}  ${c.target.padEnd(55)} ${c.actual}`);
    for (const [when, p] of Object.entries(noise)) {
      console.log(
        `  noise floor ${when.padEnd(6)} idle ${p.seconds}s timer: ${p.onTimePct}% on time, p99 late ${p.p99LateMs} ms, max ${p.maxLateMs} ms${p.onTimePct < 99 ? "  (machine too noisy: result inconclusive)" : ""}`,
      );
    }
    if (checks.some((c) => !c.ok)) process.exitCode = 1;
  });

program
  .command("scenarios")
  .description("list scenarios and whether they can run yet")
  .action(() => {
    for (const s of scenarios) console.log(s.available ? `${s.name}: available` : `${s.name}: unavailable (${s.reason})`);
  });

registerAbCommand(program);
registerCapacityCommand(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 2;
});
