/** Gates: named presets of a load and the thresholds it must meet. */
import type { LoadConfig } from "../load/config";
import type { Report } from "../report/report";
import { evaluateReport, type GateResult } from "../report/verdict";
import { runLoad } from "../run/runner";

/** A named load shape plus the thresholds it must meet: a preset in the threshold language. */
export interface Gate {
  name: string;
  description: string;
  /** Cheap and self-contained enough for CI (still needs the room server running). */
  ci: boolean;
  /** Default URL; null = `--url` is required. */
  defaultUrl: string | null;
  load: Omit<LoadConfig, "url" | "name">;
  /** Threshold expressions (see thresholds/parse.ts). */
  thresholds: readonly string[];
}

/**
 * The matchmaking run of issue 22: 1,000 players arriving at 100/s (10 s of arrivals), each
 * matched by joinOrCreate into 8-seat agar rooms (DEV_MODE override `cap=8`), playing until the
 * window ends half a second after the last arrival. The players send 2 inputs/s instead of agar's
 * 20: local `wrangler dev` runs every object on one thread (about 300 agar players at 20 Hz fill
 * it, PERFORMANCE.md), so at full rate the run would measure that thread, not the matchmaker.
 * The short tail keeps the leaves of the rejoin variant inside the arrivals, where later arrivals
 * refill their seats before the fill sample (taken right after the last arrival).
 */
const MATCH_LOAD = { scenario: "agar", match: true, players: 1000, rooms: 1, arrivalRate: 100, arrivals: 1000, durationSec: 10.5, rate: 2, query: "cap=8" } as const;

/** What the matchmaking gates hold the run to (issue 22, "Done when"). */
const MATCH_THRESHOLDS = [
  "clients.joined_pct==100",
  "clients.failed==0",
  "clients.refused==0",
  "unexpected_closes==0",
  "match.over_cap==0",
  "match.lost_reservations==0",
  "match.fill_pct>=98",
  "seated.p99<=150",
] as const;

/**
 * Built-in gates, written in the threshold language.
 * - smoke: 20 players, 5 s; small enough for CI next to `wrangler dev`.
 * - local-100: 100 players in one agar room against `wrangler dev` on loopback. The agar room
 *   seats 20 by default, so the gate raises the cap with the DEV_MODE override `cap=100`.
 * - deployed-100: the same load through a real network. Its limits add a network budget: ack p99
 *   ≤ tick + sync interval + 200 ms covers one round trip to a nearby edge plus the hop to the
 *   room's location; jitter p99 ≤ 100 ms tolerates ordinary internet variance. Flush p99 is
 *   measured inside the room, so it keeps the local limit.
 * - match-1000, match-1000-rejoin: issue 22's matchmaking run (see {@link MATCH_LOAD}).
 * - join-1000: issue 32's join job, the same arrivals with idle players, held to its bars on the
 *   join path per object (a second longer window: the last joins' readings land before the end).
 * - restart-1000: match-1000's players through a server restart.
 * - spectate-1000: 100 agar players in a room relayed over 4 relays and 1,000 spectators of it
 *   (issue 34), 2 s behind the live match: their frames come in bundles of 4, a quarter of the
 *   sends of undelayed spectators.
 */
export const gates: readonly Gate[] = [
  {
    name: "smoke",
    description: "20 players in one agar room for 5 s (CI)",
    ci: true,
    defaultUrl: "ws://127.0.0.1:8787",
    load: { scenario: "agar", players: 20, rooms: 1, rampSec: 2, durationSec: 5 },
    thresholds: [
      "clients.planned==20",
      "clients.joined==20",
      "unexpected_closes==0",
      "spikes==0",
      "inputs.acked_pct>=99",
      "ack.p99<=tick_ms+100",
      "room_stats.fetched>=1",
      "room_stats.missing==0",
    ],
  },
  {
    name: "local-100",
    description: "100 players in one agar room against wrangler dev (10 s ramp, 30 s; cap=100 override)",
    ci: false,
    defaultUrl: "ws://127.0.0.1:8787",
    load: { scenario: "agar", players: 100, rooms: 1, rampSec: 10, durationSec: 30, query: "cap=100" },
    thresholds: ["clients.planned==100", "clients.joined==100", "unexpected_closes==0", "spikes==0", "ack.p99<=tick_ms+30", "flush.p99<=20"],
  },
  {
    name: "deployed-100",
    description: "100 players in one room of a deployment (--url required; cap=100 override unless --query/--scenario say otherwise; not for CI)",
    ci: false,
    defaultUrl: null,
    load: { scenario: "agar", players: 100, rooms: 1, rampSec: 10, durationSec: 30, query: "cap=100" },
    thresholds: [
      "clients.planned==100",
      "clients.joined==100",
      "unexpected_closes==0",
      "spikes==0",
      "ack.p99<=tick_ms+sync_ms+200",
      "jitter.p99<=100",
      "flush.p99<=20",
    ],
  },
  {
    name: "match-1000",
    description: "1,000 players arriving at 100/s, each matched (joinOrCreate) into 8-seat agar rooms, against wrangler dev (DEV_MODE; --server staging starts one)",
    ci: false,
    defaultUrl: "ws://127.0.0.1:8787",
    load: MATCH_LOAD,
    thresholds: ["clients.planned==1000", ...MATCH_THRESHOLDS],
  },
  {
    name: "join-1000",
    description: "issue 32's join job: match-1000's arrivals with idle players, time to seated and the join path per object held to their bars (--server staging; the headline pins it: PERFORMANCE.md)",
    ci: false,
    defaultUrl: "ws://127.0.0.1:8787",
    load: { ...MATCH_LOAD, rate: 0, durationSec: 11.5 },
    thresholds: ["clients.planned==1000", ...MATCH_THRESHOLDS, "path.ms<=1.5", "path.confirmed_writes<=1"],
  },
  {
    name: "restart-1000",
    description: "match-1000, then the server restarted 14 s in (--server staging; the tool restarts it): every player back in its own seat and every room's world restored, within 10 s of the server answering",
    ci: false,
    defaultUrl: "ws://127.0.0.1:8787",
    load: { ...MATCH_LOAD, durationSec: 40, restartAtSec: 14 },
    thresholds: [
      "clients.planned==1000",
      "clients.joined_pct==100",
      "reconnect.dropped==1000",
      "reconnect.reconnected==1000",
      "reconnect.new_seat==0",
      "reconnect.failed==0",
      "restart.back.count==1000",
      "restart.back.max<=10000",
      "restart.world_restored_pct==100",
      "match.over_cap==0",
    ],
  },
  {
    name: "spectate-1000",
    description: "issue 34's spectators: 1,000 spectators beside 100 agar players in one room relayed over 4 relay objects (cap=100&relays=4: the spectators sit on the relays), each at >= 19 frames/s, 2 s behind (frames in bundles of 4); the simulation's own time is its tk:stats simulation.busy, against the same run without --spectators (--server staging)",
    ci: false,
    defaultUrl: "ws://127.0.0.1:8787",
    load: { scenario: "agar", players: 100, rooms: 1, rampSec: 10, durationSec: 30, query: "cap=100&relays=4", spectators: 1000, spectatorDelaySec: 2 },
    thresholds: ["clients.joined==100", "spectators.joined==1000", "spectators.below_19==0", "unexpected_closes==0"],
  },
  {
    name: "match-1000-rejoin",
    description: "match-1000 with churn: about 10% of the players leave (sessions ~45 s) and every leaver matches again 1 s later",
    ci: false,
    defaultUrl: "ws://127.0.0.1:8787",
    load: { ...MATCH_LOAD, sessionMeanSec: 45, rejoinPct: 100 },
    thresholds: [...MATCH_THRESHOLDS],
  },
];

/** The gate called `name`, or an error listing the known ones. */
export function getGate(name: string): Gate {
  const g = gates.find((x) => x.name === name);
  if (!g) throw new Error(`unknown gate "${name}" (known: ${gates.map((x) => x.name).join(", ")})`);
  return g;
}

/** Checks a gate's thresholds (and any the run itself carried) on a report. */
export function evaluateGate(gate: Gate, report: Report): GateResult {
  const extra = report.config.thresholds.filter((t) => !gate.thresholds.includes(t));
  return evaluateReport(gate.name, [...gate.thresholds, ...extra], report);
}

/** The load config of gate `name`; `query` replaces the gate's own (e.g. "" where overrides are refused). */
export function gateConfig(gate: Gate, opts: { url?: string; workers?: number; query?: string; scenario?: string } = {}): LoadConfig {
  const url = opts.url ?? gate.defaultUrl;
  if (!url) throw new Error(`gate ${gate.name} needs --url`);
  return {
    ...gate.load,
    url,
    name: `gate-${gate.name}`,
    workers: opts.workers,
    query: opts.query ?? gate.load.query,
    ...(opts.scenario ? { scenario: opts.scenario } : {}),
  };
}

/** Runs gate `name` (optionally against another URL) and evaluates it. */
export async function runGate(
  name: string,
  opts: { url?: string; workers?: number; query?: string; scenario?: string } = {},
): Promise<{ report: Report; result: GateResult }> {
  const gate = getGate(name);
  const report = await runLoad(gateConfig(gate, opts));
  return { report, result: evaluateGate(gate, report) };
}
