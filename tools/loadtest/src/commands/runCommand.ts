/**
 * `loadtest run`: one load test from options on the command line or in a `--config` file, with
 * live progress, server options, thresholds and exit codes, JSON + HTML report.
 */
import { Command, InvalidArgumentError } from "commander";
import { resolveConfig, type LoadConfig, type ResolvedConfig } from "../load/config";
import { readConfigFile } from "../load/configFile";
import { parseArrivalRate, parseDrop, parseDurationSec, parseRejoin, parseStages } from "../load/loadPlan";
import { progressPrinter } from "../live/progress";
import { ticketMode, ticketSpec } from "../players/tickets";
import type { Report } from "../report/report";
import { RESULTS_DIR } from "../report/reportFiles";
import { ExitCode } from "../report/verdict";
import { withScenarioFile, type RunOptions } from "../run/runner";
import { finishReport } from "./finishReport";
import { collect, int, num, parsed, posInt } from "./parsers";
import { addServerOptions, runWithServerOptions } from "./serverOptions";

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

/** Defaults of `run` when neither the command line nor the config file sets them. */
const RUN_DEFAULTS = { url: "ws://127.0.0.1:8787", players: 10, rooms: 1, durationSec: 30, name: "run" } as const;

/** Registers `run` on the program. */
export function registerRunCommand(program: Command): void {
  addServerOptions(program.command("run"))
    .description("run one load test; writes a JSON report and report.html next to it; exit 0 pass, 99 threshold failed, 98 invalid run, 97 could not run")
    .option("--config <file>", "JSON file with any of the options below (LoadConfig field names) and `thresholds`; the command line wins")
    .option("--url <url>", `room server base URL (ws:// or wss://; default ${RUN_DEFAULTS.url})`)
    .option("--scenario <name|file>", "built-in scenario (see `scenarios`) or a scenario file (./myScenario.ts)")
    .option("-p, --players <n>", `players per room (default ${RUN_DEFAULTS.players}; above the room cap the excess is counted as refused)`, int("players"))
    .option("-r, --rooms <n>", "rooms (default 1)", int("rooms"))
    .option("-d, --duration <sec>", `steady phase after the ramp, seconds (default ${RUN_DEFAULTS.durationSec}); the whole window with --arrival-rate`, num("duration"))
    .option("--ramp <sec>", "pace joins evenly over this many seconds (default players/10)", num("ramp"))
    .option("--storm", "all joins at once (overrides --ramp)")
    .option("--stages <list>", "staged load per room, e.g. 10s:50,30s:50,10s:0 (ramp up, hold, ramp down)", parsed(parseStages))
    .option("--arrival-rate <r>", "open model: joins per second across all rooms, e.g. 5/s", parsed(parseArrivalRate))
    .option("--arrivals <n>", "open model: new players in all (default rate x duration); the window runs on after the last", posInt("arrivals"))
    .option("--session-mean <t>", "churn: exponential session lengths with this mean, e.g. 20s", parsed(parseDurationSec))
    .option("--match", "matchmaking: every player gets its room from the matchmaker (POST /match/<kind>, joinOrCreate; --query is the request's DEV_MODE overrides)")
    .option("--rejoin <pct>", "with --match, --arrival-rate and --session-mean: that share of the players who leave match again 1 s later, e.g. 10%", parsed(parseRejoin))
    .option("--drop <pct@t>", "reconnect storm: drop pct% of the sockets at t, e.g. 30%@20s (repeatable)", collect(parseDrop))
    .option("--restart-at <sec>", "with --server: restart the server this many seconds into the run (same port and storage); every player comes back with its seat token", num("restart-at"))
    .option("--rate <n>", "inputs per second per player (default: scenario rate, 20; 0: idle players, who join and read frames but send nothing)", num("rate"))
    .option("--think-ms <ms>", "turn-based scenarios: delay before acting on your turn or a finished round (default 1000)", num("think-ms"))
    .option("--keepalive-ms <ms>", "turn-based scenarios: keepalive ping period, 0 = none (default 2000, the client SDK's)", num("keepalive-ms"))
    .option("--threshold <expr>", "pass/fail rule, e.g. 'ack.p99<150' or 'room:frames_per_s>=19.8' (repeatable; README: Thresholds)", collect((v) => v))
    .option("--abort-on-fail", "stop the run as soon as a live threshold fails (ack.p50/p95/p99, frame_gap.p99, frames_per_s, errors, ...)")
    .option("--abort-grace <sec>", "no live abort during the first seconds (default 5)", num("abort-grace"))
    .option("--ticket-secret <secret>", "mint a join ticket per player with the gateway's TICKET_SECRET (or set env TICKET_SECRET)")
    .option("--ticket-url <url>", "fetch each player's join ticket from this endpoint (README: Tickets)")
    .option("--room-prefix <prefix>", "room id prefix (default: fresh per run, so no earlier room is reused)")
    .option("--query <qs>", "query string for every room URL (DEV_MODE overrides: tickMs, syncIntervalMs, cap, aoi, queueInputs, world)")
    .option("--workers <k>", "spread clients over k worker threads", int("workers"))
    .option("--shard <i/n>", "run only shard i of n (for multi-machine runs; needs --room-prefix and --start-at)", shardArg)
    .option("--start-at <time>", "common start, epoch ms or ISO date (multi-machine runs)", startAtArg)
    .option("--seed <n>", "steering PRNG seed", int("seed"))
    .option("--name <name>", "report name (default run)")
    .option("--stats-every <sec>", "sample each room's tk:stats every this many seconds during the run (default 5; 0 = only at the end)", num("stats-every"))
    .option("--out <dir>", "report directory", RESULTS_DIR)
    .option("--quiet", "no progress line")
    .option("--no-html", "do not write report.html")
    .option("--no-room-stats", "do not request tk:stats")
    .option("--spectators <n>", "spectators beside the players, spread over the rooms (spectate=1; their frames/s and gaps in the report's summary.spectators)", int("spectators"))
    .option("--spectator-delay <sec>", "seconds behind the live match the spectators ask for (default 2: their frames come in bundles, 4 a message; 0: live, a frame a message)", num("spectator-delay"))
    .action(async (o, cmd: Command) => {
      process.exitCode = await runCommand(o, cmd);
    });
}

/** Options given on the command line (not defaults) win over the config file. */
function given(cmd: Command, key: string, v: unknown): unknown {
  return cmd.getOptionValueSource(key) === "cli" ? v : undefined;
}

/** Executes `run` and returns its exit code (see {@link ExitCode}). */
async function runCommand(o: Record<string, any>, cmd: Command): Promise<number> {
  let cfg: ResolvedConfig;
  let opts: RunOptions;
  try {
    const file = o.config ? readConfigFile(o.config) : {};
    const cli: Partial<LoadConfig> = {
      url: o.url,
      scenario: o.scenario,
      players: o.players,
      rooms: o.rooms,
      durationSec: o.duration,
      rampSec: o.ramp,
      storm: o.storm,
      stages: o.stages,
      arrivalRate: o.arrivalRate,
      arrivals: o.arrivals,
      sessionMeanSec: o.sessionMean,
      match: o.match,
      rejoinPct: o.rejoin,
      drops: o.drop,
      restartAtSec: o.restartAt,
      rate: o.rate,
      thinkMs: o.thinkMs,
      keepaliveMs: o.keepaliveMs,
      abortOnFail: o.abortOnFail,
      abortGraceSec: o.abortGrace,
      roomPrefix: o.roomPrefix,
      query: o.query,
      workers: o.workers,
      shard: o.shard,
      startAtEpochMs: o.startAt,
      seed: o.seed,
      name: o.name,
      statsEverySec: o.statsEvery,
      spectators: o.spectators,
      spectatorDelaySec: o.spectatorDelay,
      roomStats: given(cmd, "roomStats", o.roomStats) as boolean | undefined,
    };
    const merged: LoadConfig = { ...RUN_DEFAULTS, ...file };
    for (const [k, v] of Object.entries(cli)) if (v !== undefined) (merged as unknown as Record<string, unknown>)[k] = v;
    merged.thresholds = [...(file.thresholds ?? []), ...((o.threshold as string[] | undefined) ?? [])];
    const tickets = ticketSpec({ secret: o.ticketSecret ?? process.env.TICKET_SECRET, url: o.ticketUrl ?? file.ticketUrl });
    merged.tickets = ticketMode(tickets);
    cfg = resolveConfig(await withScenarioFile(merged));
    opts = { ...(tickets ? { tickets } : {}) };
  } catch (e) {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    return ExitCode.couldNotRun;
  }
  const totalSec = cfg.load.kind === "ramp" ? cfg.rampSec + cfg.durationSec : cfg.durationSec;
  console.error(
    `running ${cfg.scenario} (${cfg.load.kind}${cfg.load.sessionMeanSec ? ", churn" : ""}${cfg.load.rejoinPct ? `, ${cfg.load.rejoinPct}% rejoin` : ""}${cfg.load.drops.length ? ", drops" : ""}) against ${o.server ? `a fresh wrangler dev (${o.server})` : cfg.url} (${cfg.match ? `rooms from the matchmaker${cfg.query ? ` made with ${cfg.query}` : ""}` : `rooms ${cfg.roomPrefix}-*`}), ~${Math.ceil(totalSec)} s${cfg.tickets.mode !== "none" ? `, tickets: ${cfg.tickets.mode}` : ""}`,
  );
  const progress = o.quiet ? null : progressPrinter(process.stderr, totalSec);
  let report: Report;
  try {
    report = await runWithServerOptions(cfg, o, (line) => console.error(line), {
      ...opts,
      onSample: progress?.onSample,
      onAbort: (a) => {
        progress?.end();
        console.error(`aborting at ${a.atSec} s: ${a.threshold} failed (got ${a.actual})`);
      },
    });
  } catch (e) {
    progress?.end();
    console.error(`error: the run could not complete: ${e instanceof Error ? e.message : String(e)}`);
    return ExitCode.couldNotRun;
  }
  progress?.end();
  return finishReport(report, { outDir: o.out, html: o.html !== false, judge: { name: "run", thresholds: cfg.thresholds } });
}
