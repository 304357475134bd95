/** `loadtest compare` and `loadtest merge`: the commands that read finished reports. */
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { compareReports, formatComparison } from "../report/compare";
import { compareHtml } from "../report/html";
import { mergeReports } from "../report/merge";
import { readReport } from "../report/reportFiles";
import { finishReport } from "./finishReport";

/** Registers `compare` on the program. */
export function registerCompareCommand(program: Command): void {
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
}

/** Registers `merge` on the program. */
export function registerMergeCommand(program: Command): void {
  program
    .command("merge")
    .description("merge shard reports exactly (histograms merged, counts summed) into one report")
    .argument("<reports...>", "shard report JSON files")
    .option("--name <name>", "merged report name", "merged")
    .option("-o, --output <file>", "write here instead of the results directory")
    .action((files: string[], o) => {
      finishReport(mergeReports(files.map(readReport), o.name), { file: o.output });
    });
}
