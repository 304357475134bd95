/**
 * The capacity sweep: the most players one room holds while every condition of
 * {@link CAPACITY_LIMITS} holds. Each point runs on a fresh, pinned `wrangler dev` with the
 * room's cap raised to the point's players, the world sized by the density (capacityDensity.ts)
 * and joins ramped below the room's admission rate; its first run is its verdict.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { round2 } from "../metrics/round2";
import { collectEnvironment } from "../report/environment";
import { resultStem, writeReport } from "../report/reportFiles";
import { runOnFreshServer } from "../run/freshRun";
import { CAPACITY_LIMITS } from "./capacityJudge";
import { defaultDensity, pointQuery } from "./capacityDensity";
import { capacityMarkdown, capacitySvg } from "./capacityReport";
import {
  MAX_JOIN_RATE,
  emptyPoint,
  headlinePoint,
  pointFrom,
  type CapacityOptions,
  type CapacityPoint,
  type CapacityResult,
} from "./capacityResult";
import { CapacitySearch } from "./capacitySearch";

/** Seconds a point is expected to take, start-up and cooldown included (for the time budget). */
export function pointSeconds(players: number, o: Pick<CapacityOptions, "joinRate" | "durationSec" | "cooldownSec">): number {
  return 20 + players / o.joinRate + o.durationSec + 6 + o.cooldownSec;
}

/** Runs the sweep and writes `capacity.json`, `.md`, `.svg` and each point's report. */
export async function runCapacity(asked: CapacityOptions): Promise<{ result: CapacityResult; dir: string; files: string[] }> {
  const o: CapacityOptions = { ...asked, density: asked.density ?? defaultDensity(asked.scenario) };
  if (!(o.joinRate > 0 && o.joinRate <= MAX_JOIN_RATE)) throw new Error(`join rate must be in (0, ${MAX_JOIN_RATE}] joins/s: the room admits 20/s`);
  // A density that cannot be run fails here, before any server starts.
  pointQuery(o, o.plan.start);
  const log = o.log ?? (() => {});
  const createdAt = new Date();
  const dir = resultStem(o.outDir, "capacity", o.name, createdAt);
  mkdirSync(dir, { recursive: true });
  const search = new CapacitySearch(o.plan);
  const points: CapacityPoint[] = [];
  const notes: string[] = [];
  if (o.pinning.note) notes.push(o.pinning.note);
  const deadline = Date.now() + o.maxMinutes * 60_000;
  try {
    for (let players = search.next(); players !== null; players = search.next()) {
      // Every one of the k runs of a point runs (the k-of-n figure needs them all).
      if (Date.now() + pointSeconds(players, o) * (o.runsPerPoint ?? 1) * 1000 > deadline) {
        notes.push(`time budget of ${o.maxMinutes} min reached before the ${players}-player point: the search is incomplete`);
        break;
      }
      if (points.length > 0 && o.cooldownSec > 0) await new Promise((r) => setTimeout(r, o.cooldownSec * 1000));
      const rampSec = players / o.joinRate;
      log(`[point ${points.length + 1}] ${players} players, ${round2(rampSec)} s ramp + ${o.durationSec} s`);
      let point: CapacityPoint | undefined;
      const runs: CapacityPoint[] = [];
      const k = o.runsPerPoint ?? 1;
      try {
        // Every run of the k: the first is the verdict, the rest only count passes (a k-of-n
        // figure is honest only when all n ran).
        for (let run = 1; run <= k && (point === undefined || !point.generatorSaturated); run++) {
          if (run > 1) {
            log(`  run ${run} of ${k}`);
            await new Promise((r) => setTimeout(r, o.cooldownSec * 1000));
          }
          point = undefined;
          for (let attempt = 1; attempt <= SATURATED_ATTEMPTS; attempt++) {
            if (attempt > 1) {
              log(`  the generator was saturated: retrying the ${players}-player point once`);
              await new Promise((r) => setTimeout(r, Math.max(o.cooldownSec, 5) * 1000));
            }
            point = { ...(await runPoint(o, players, rampSec, dir, log)), attempts: attempt };
            if (!point.generatorSaturated) break;
          }
          if (point && !point.generatorSaturated) runs.push(point);
          if (point && k > 1 && !point.generatorSaturated) log(`    run ${run}: ${point.passed ? "pass" : `fail (${point.failed.join("; ")})`}`);
        }
        // A saturated later run leaves the point to its healthy runs; a saturated first one is inconclusive.
        if (runs.length > 0) point = headlinePoint(players, runs);
      } catch (err) {
        const error = err instanceof Error ? err.message.split("\n")[0] : String(err);
        points.push({ ...emptyPoint(players), error });
        notes.push(`the ${players}-player point could not run (${error}): the search stopped`);
        log(`  FAILED TO RUN: ${error}`);
        break;
      }
      if (point === undefined) break;
      if (point.generatorSaturated) {
        points.push(point);
        notes.push(
          `the generator was saturated at ${players} players in ${SATURATED_ATTEMPTS} attempts: this machine cannot drive that load, so the search stopped (the capacity found is a lower bound)`,
        );
        log(`  generator saturated again: stopping (${point.failed.join("; ")})`);
        break;
      }
      points.push(point);
      search.record(players, point.passed);
      log(`  ${point.passed ? "PASS" : `FAIL: ${point.failed.join("; ")}`} — server CPU ${point.serverCpuPct ?? "n/a"}%, ack p99 ${point.ackP99Ms ?? "n/a"} ms, gap p99 ${point.gapP99Ms ?? "n/a"} ms`);
    }
  } finally {
    rmSync(join(dir, "tmp"), { recursive: true, force: true });
  }
  const res = search.result();
  if (res.hitMax) notes.push(`the upper bound (${o.plan.max} players) passed: capacity is at least that`);
  const { log: _log, outDir: _out, ...options } = o;
  const result: CapacityResult = {
    format: "tikron-loadtest-capacity/1",
    name: o.name,
    createdAt: createdAt.toISOString(),
    environment: collectEnvironment(),
    options,
    limits: CAPACITY_LIMITS,
    capacity: res.capacity,
    lowestFailure: res.lowestFailure,
    hitMax: res.hitMax,
    points,
    notes,
  };
  const files = [join(dir, "capacity.json"), join(dir, "capacity.md"), join(dir, "capacity.svg")];
  writeFileSync(files[0], `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(files[1], capacityMarkdown(result));
  writeFileSync(files[2], capacitySvg(result));
  return { result, dir, files };
}

/** A saturated generator gets this many runs of a point before the search gives up. */
const SATURATED_ATTEMPTS = 2;

async function runPoint(o: CapacityOptions, players: number, rampSec: number, dir: string, log: (line: string) => void): Promise<CapacityPoint> {
  const query = pointQuery(o, players);
  const report = await runOnFreshServer(
    {
      serverConfig: o.serverConfig,
      load: {
        scenario: o.scenario,
        players,
        rooms: 1,
        durationSec: o.durationSec,
        rampSec,
        rate: o.rate,
        query,
        workers: o.workers,
        name: `capacity-${players}`,
      },
      pinning: o.pinning,
      workDir: join(dir, "tmp"),
    },
    log,
  );
  return { ...pointFrom(players, report), query, report: basename(writeReport(report, dir)) };
}
