/**
 * `loadtest profile`: one load run on a fresh pinned `wrangler dev` with a CPU profile of the
 * Worker's isolate taken over the steady window: where a room's time goes, reproducibly.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { mergeQuery } from "../load/config";
import { RESULTS_DIR, writeReport } from "../report/reportFiles";
import { formatSummary } from "../report/summaryText";
import { runOnFreshServer } from "../run/freshRun";
import { profileLines } from "../server/cpuProfile";
import { num, posNum } from "./parsers";
import { addPinningOptions, pinningFrom } from "./serverOptions";

/** Registers `profile` on the program. */
export function registerProfileCommand(program: Command): void {
  addPinningOptions(
    program
      .command("profile")
      .description("one run on a fresh wrangler dev with a CPU profile of the Worker's isolate over the steady window: prints self time per function, writes the .cpuprofile (Chrome DevTools, speedscope) next to the report")
      .option("--scenario <name>", "scenario", "agar")
      .option("--server <config>", "\"staging\" or a wrangler config path", "staging")
      .option("-p, --players <n>", "players in the one room (cap=<n> is added to the query)", posNum("players"), 100)
      .option("-d, --duration <sec>", "steady window, seconds", posNum("duration"), 20)
      .option("--seconds <sec>", "profile length (default: the window minus 6 s)", posNum("seconds"))
      .option("--skip <sec>", "seconds of the window to let pass before the profile starts (e.g. a --match run's arrivals, to profile the rooms they filled)", num("skip"), 0)
      .option("--query <qs>", "DEV_MODE query (e.g. tickMs=33&syncIntervalMs=33)")
      .option("--match", "matchmaking arrivals instead of one room: --arrival-rate players/s, each matched by joinOrCreate (the query, e.g. cap=8, goes to the rooms the matchmaker makes)")
      .option("--arrival-rate <r>", "with --match: players arriving per second", posNum("arrival-rate"), 100)
      .option("--rate <n>", "inputs per second per player (default: the scenario's; 0: idle players)", num("rate"))
      .option("--top <n>", "functions listed", posNum("top"), 25)
      .option("--out <dir>", "results directory", RESULTS_DIR),
  ).action(async (o) => {
    const seconds = o.seconds ?? Math.max(2, o.duration - 6);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19);
    mkdirSync(o.out, { recursive: true });
    const profilePath = join(o.out, `${stamp}Z-profile-${o.scenario}-${o.players}.cpuprofile`);
    const workDir = join(o.out, `tmp-profile-${stamp}`);
    try {
      const report = await runOnFreshServer(
        {
          serverConfig: o.server,
          load: o.match
            ? {
                // Arrivals over the window's first players ÷ rate seconds; the profile covers them.
                scenario: o.scenario,
                match: true,
                players: o.players,
                rooms: 1,
                arrivalRate: o.arrivalRate,
                arrivals: o.players,
                durationSec: o.duration,
                query: o.query ?? "",
                name: `profile-match-${o.scenario}-${o.players}`,
                ...(o.rate !== undefined ? { rate: o.rate } : {}),
              }
            : {
                scenario: o.scenario,
                players: o.players,
                rooms: 1,
                durationSec: o.duration,
                rampSec: o.players / 15,
                query: mergeQuery(o.query, `cap=${o.players}`),
                name: `profile-${o.scenario}-${o.players}`,
                ...(o.rate !== undefined ? { rate: o.rate } : {}),
              },
          pinning: pinningFrom(o),
          workDir,
          profile: { seconds, profilePath, skipSec: o.skip },
        },
        (line) => console.error(line),
      );
      console.log(formatSummary(report));
      const p = report.server?.profile;
      if (p) {
        console.log(`\n== profile of the Worker's isolate`);
        for (const line of profileLines({ ...p, top: p.top.slice(0, o.top) })) console.log(line);
        console.log(`\nprofile: ${profilePath}`);
      } else {
        console.log("\nno profile: the run ended before the steady window");
        process.exitCode = 1;
      }
      console.log(`report: ${writeReport(report, o.out)}`);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });
}
