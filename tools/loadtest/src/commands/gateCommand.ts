/** `loadtest gate`: a named preset of load and thresholds, run and judged like `run`. */
import type { Command } from "commander";
import { gateConfig, gates, getGate } from "../gates/gates";
import { progressPrinter } from "../live/progress";
import { resolveConfig } from "../load/config";
import { ticketMode, ticketSpec } from "../players/tickets";
import { RESULTS_DIR } from "../report/reportFiles";
import { ExitCode } from "../report/verdict";
import { withScenarioFile } from "../run/runner";
import { finishReport } from "./finishReport";
import { int } from "./parsers";
import { addServerOptions, runWithServerOptions } from "./serverOptions";

/** Registers `gate` on the program. */
export function registerGateCommand(program: Command): void {
  addServerOptions(program.command("gate"))
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
      const tickets = ticketSpec({ secret: o.ticketSecret ?? process.env.TICKET_SECRET, url: o.ticketUrl });
      const base = gateConfig(gate, { url: o.url, workers: o.workers, query: o.query, scenario: o.scenario });
      const cfg = resolveConfig(await withScenarioFile({ ...base, thresholds: [...gate.thresholds], tickets: ticketMode(tickets) }));
      console.error(`gate ${name}: ${gate.description}; ${o.server ? `a fresh wrangler dev (${o.server})` : cfg.url}${cfg.match ? "" : `, rooms ${cfg.roomPrefix}-*`}`);
      const progress = o.quiet ? null : progressPrinter(process.stderr, cfg.rampSec + cfg.durationSec);
      let report;
      try {
        report = await runWithServerOptions(cfg, o, (line) => console.error(line), { ...(tickets ? { tickets } : {}), onSample: progress?.onSample });
      } catch (e) {
        progress?.end();
        console.error(`error: the gate could not run: ${e instanceof Error ? e.message : String(e)}`);
        process.exitCode = ExitCode.couldNotRun;
        return;
      }
      progress?.end();
      process.exitCode = finishReport(report, { outDir: o.out, html: o.html !== false, judge: { name: `gate ${name}`, thresholds: gate.thresholds } });
    });
}
