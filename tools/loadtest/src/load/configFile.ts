/** A `--config` file: a run's LoadConfig in JSON, with the load models written as on the command line. */
import { readFileSync } from "node:fs";
import type { LoadConfig } from "./config";
import { parseArrivalRate, parseDrop, parseDurationSec, parseRejoin, parseStages, type DropSpec, type Stage } from "./loadPlan";

/** A run config file: LoadConfig's fields; stages, drops, the arrival rate, the session mean and the rejoin share may be written as on the command line. */
type ConfigFile = Omit<Partial<LoadConfig>, "stages" | "drops" | "arrivalRate" | "sessionMeanSec" | "rejoinPct"> & {
  stages?: string | Stage[];
  drops?: (string | DropSpec)[];
  arrivalRate?: string | number;
  sessionMeanSec?: string | number;
  rejoinPct?: string | number;
  ticketUrl?: string;
};

/** Reads and normalizes a `--config` file; throws naming the file and the problem. */
export function readConfigFile(path: string): Partial<LoadConfig> & { ticketUrl?: string } {
  let raw: ConfigFile;
  try {
    raw = JSON.parse(readFileSync(path, "utf8")) as ConfigFile;
  } catch (e) {
    throw new Error(`config file ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error(`config file ${path}: must be a JSON object`);
  if ("ticketSecret" in raw) throw new Error(`config file ${path}: keep the ticket secret out of files (env TICKET_SECRET or --ticket-secret)`);
  const out: Partial<LoadConfig> & { ticketUrl?: string } = { ...(raw as Partial<LoadConfig>) };
  if (typeof raw.stages === "string") out.stages = parseStages(raw.stages);
  if (raw.drops) out.drops = raw.drops.map((d) => (typeof d === "string" ? parseDrop(d) : d));
  if (typeof raw.arrivalRate === "string") out.arrivalRate = parseArrivalRate(raw.arrivalRate);
  if (typeof raw.sessionMeanSec === "string") out.sessionMeanSec = parseDurationSec(raw.sessionMeanSec);
  if (typeof raw.rejoinPct === "string") out.rejoinPct = parseRejoin(raw.rejoinPct);
  if (raw.thresholds !== undefined && (!Array.isArray(raw.thresholds) || raw.thresholds.some((t) => typeof t !== "string"))) {
    throw new Error(`config file ${path}: thresholds must be an array of strings`);
  }
  return out;
}
