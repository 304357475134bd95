import { Command, InvalidArgumentError, Option } from "commander";
import { writeFileSync } from "node:fs";
import { gameDefinitions } from "@tikron/games";
import { serveRooms } from "@tikron/node";
import { benchGenerator } from "./bench/benchGenerator";
import { benchLiveOverhead } from "./bench/liveOverhead";
import { compareReports, formatComparison } from "./report/compare";
import { addRunCommand, finishRun, int, num } from "./commands/runCommand";
import { resolveConfig } from "./load/config";
import { ExitCode, gateConfig, gates, getGate } from "./gates/gates";
import { mergeReports } from "./report/merge";
import { readReport } from "./report/reportFiles";
import { RESULTS_DIR, writeReport } from "./report/reportFiles";
import { formatSummary } from "./report/summaryText";
import { type Report } from "./report/report";
import { compareHtml } from "./report/html";
import { runResolved, withScenarioFile } from "./run/runner";
import { scenarios } from "./scenarios/index";
import { registerAbCommand } from "./commands/abCommand";
import { registerCapacityCommand } from "./commands/capacityCommand";
import { registerProfileCommand } from "./commands/profileCommand";
import { builtInSweeps, readSweepFile, runSweep } from "./sweep/sweep";
import { progressPrinter } from "./live/progress";
import type { TicketSpec } from "./players/tickets";

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
  .showHelpAfterError()
  // Bad arguments exit 97 ("could not run"), like a failed start; --help and --version exit 0.
  // Set before the commands are added so every command inherits it.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : ExitCode.couldNotRun));

addRunCommand(program);

program
  .command("gate")
  .description("run a named gate (a preset of load + thresholds); exit 0 pass, 99 threshold failed, 98 invalid run, 97 could not run")
  .argument("[name]", `gate: ${gates.map((g) => g.name).join(", ")}`)
  .option("--url <url>", "room server base URL (default: the gate's)")
  .option("--workers <k>", "spread clients over k worker threads", int("workers"), 0)
  .option("--query <qs>", "replace the gate's query string (e.g. \"\" where DEV_MODE overrides are refused)")
  .option("--scenario <name|file>", "replace the gate's scenario (e.g. fps, whose room seats 100 without overrides)")
  .option("--ticket-secret <secret>", "production rooms: mint join tickets (or set env TICKET_SECRET)")
  .option("--ticket-url <url>", "production rooms: fetch join tickets from this endpoint")
  .option("--out <dir>", "report directory", RESULTS_DIR)
  .option("--quiet", "no progress line")
  .option("--no-html", "do not write report.html")
  .option("--list", "list gates and their thresholds")
  .action(async (name: string | undefined, o) => {
    if (o.list || !name) {
      for (const g of gates) {
        console.log(`${g.name}${g.ci ? " (CI)" : ""}: ${g.description}; url ${g.defaultUrl ?? "--url required"}${g.load.query ? `; query ${g.load.query}` : ""}`);
        for (const t of g.thresholds) console.log(`    ${t}`);
      }
      return;
    }
    const gate = getGate(name);
    const secret = (o.ticketSecret as string | undefined) ?? process.env.TICKET_SECRET;
    if (secret && o.ticketUrl) throw new Error("pick one ticket source: --ticket-secret/TICKET_SECRET or --ticket-url");
    const tickets: TicketSpec | undefined = secret ? { mode: "secret", secret } : o.ticketUrl ? { mode: "url", url: o.ticketUrl } : undefined;
    const base = gateConfig(gate, { url: o.url, workers: o.workers, query: o.query, scenario: o.scenario });
    const cfg = resolveConfig(
      await withScenarioFile({
        ...base,
        thresholds: [...gate.thresholds],
        tickets: tickets ? (tickets.mode === "url" ? { mode: "url", url: tickets.url } : { mode: "secret" }) : { mode: "none" },
      }),
    );
    console.error(`gate ${name}: ${gate.description}; ${cfg.url}, rooms ${cfg.roomPrefix}-*`);
    const progress = o.quiet ? null : progressPrinter(process.stderr, cfg.rampSec + cfg.durationSec);
    const report = await runResolved(cfg, { ...(tickets ? { tickets } : {}), onSample: progress?.onSample });
    progress?.end();
    process.exitCode = finishRun(report, { outDir: o.out, html: o.html !== false, name: `gate ${name}`, thresholds: gate.thresholds });
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
    console.log(`markdown: ${res.markdownPath}\njson: ${res.jsonPath}\nhtml: ${res.htmlPath}`);
  });

program
  .command("compare")
  .description("print two reports' figures side by side with deltas (b − a)")
  .argument("<a>", "baseline report JSON")
  .argument("<b>", "candidate report JSON")
  .option("--html <file>", "also write the two runs' charts overlaid to this HTML file")
  .action((a: string, b: string, o: { html?: string }) => {
    const ra = readReport(a);
    const rb = readReport(b);
    const names: [string, string] = [a.replace(/^.*\//, ""), b.replace(/^.*\//, "")];
    console.log(formatComparison(compareReports(ra, rb, names)));
    if (o.html) {
      writeFileSync(o.html, compareHtml(ra, rb, names));
      console.log(`html: ${o.html}`);
    }
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

program
  .command("scenarios")
  .description("list scenarios and whether they can run yet")
  .action(() => {
    for (const s of scenarios) console.log(s.available ? `${s.name}: available` : `${s.name}: unavailable (${s.reason})`);
  });

registerAbCommand(program);
registerCapacityCommand(program);
registerProfileCommand(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = ExitCode.couldNotRun;
});
