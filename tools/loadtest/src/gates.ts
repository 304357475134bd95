import type { LoadConfig } from "./config";
import type { Report } from "./report";
import { runLoad } from "./runner";
import { FLUSH_P99_PATHS } from "./tkStats";

/** Outcome of one threshold against one report. */
export interface CheckResult {
  id: string;
  describe: string;
  ok: boolean;
  actual: string;
}

/** A named pass/fail rule over a report. */
export interface Threshold {
  id: string;
  describe: string;
  check(r: Report): { ok: boolean; actual: string };
}

/** A named load shape plus the thresholds it must meet. */
export interface Gate {
  name: string;
  description: string;
  /** Cheap and self-contained enough for CI (still needs the room server running). */
  ci: boolean;
  /** Default URL; null = `--url` is required. */
  defaultUrl: string | null;
  load: Omit<LoadConfig, "url" | "name">;
  thresholds: Threshold[];
}

/** Verdict of a gate run. `valid` is false when the generator was saturated: nothing was measured. */
export interface GateResult {
  gate: string;
  valid: boolean;
  passed: boolean;
  checks: CheckResult[];
  /** One line per failed threshold (and the invalidity reason, if any). */
  failures: string[];
}

const maxOf = (v: number[]): number | null => (v.length ? Math.max(...v) : null);

/** Every planned player joined (none refused, throttled or failed). */
export function allJoined(n: number): Threshold {
  return {
    id: "connects",
    describe: `${n}/${n} players joined`,
    check: (r) => {
      const c = r.summary.clients;
      return {
        ok: c.planned === n && c.joined === n,
        actual: `${c.joined}/${c.planned} joined (${c.refused} refused, ${c.throttled} throttled, ${c.failed} failed)`,
      };
    },
  };
}

/** No joined client was closed by the server or the network. */
export function noUnexpectedCloses(): Threshold {
  return {
    id: "unexpected-closes",
    describe: "0 unexpected closes",
    check: (r) => ({
      ok: r.summary.unexpectedCloses === 0,
      actual: `${r.summary.unexpectedCloses} ${JSON.stringify(r.summary.closeCodes)}`,
    }),
  };
}

/** No ack took longer than the spike threshold and no client ended stalled. */
export function noSpikes(): Threshold {
  return {
    id: "spikes",
    describe: "0 ack spikes > 1 s",
    check: (r) => ({ ok: r.summary.spikes === 0, actual: String(r.summary.spikes) }),
  };
}

/** p99 input→ack RTT ≤ tick (+ sync interval when `plusSync`) + `extraMs`, using the room's announced tick. */
export function ackP99Within(extraMs: number, plusSync = false): Threshold {
  return {
    id: "ack-p99",
    describe: `p99 input->ack <= tick${plusSync ? " + sync interval" : ""} + ${extraMs} ms`,
    check: (r) => {
      const s = r.summary;
      const tick = maxOf(s.tickMs);
      const sync = maxOf(s.syncIntervalMs);
      if (tick === null || sync === null) return { ok: false, actual: "no welcome received (tick unknown)" };
      if (s.ackRttMs.count === 0) return { ok: false, actual: "no acks received" };
      const limit = tick + (plusSync ? sync : 0) + extraMs;
      return { ok: s.ackRttMs.p99 <= limit, actual: `${s.ackRttMs.p99} ms (limit ${limit} ms)` };
    },
  };
}

/** At least `pct`% of sent inputs were acked. */
export function ackedShare(pct: number): Threshold {
  return {
    id: "acked",
    describe: `>= ${pct}% of inputs acked`,
    check: (r) => {
      const i = r.summary.inputs;
      if (i.sent === 0) return { ok: false, actual: "no inputs sent" };
      const share = (i.acked / i.sent) * 100;
      return { ok: share >= pct, actual: `${share.toFixed(2)}% (${i.acked}/${i.sent})` };
    },
  };
}

/** Worst room's tk:stats flush p99 ≤ `limitMs`; a missing figure fails. */
export function flushP99Within(limitMs: number): Threshold {
  return {
    id: "flush-p99",
    describe: `tk:stats flush p99 <= ${limitMs} ms`,
    check: (r) => {
      const s = r.summary.roomStats;
      if (s.missing > 0) return { ok: false, actual: `tk:stats missing for ${s.missing} room(s)` };
      if (s.flushP99Ms === null) return { ok: false, actual: `tk:stats has no flush p99 at ${FLUSH_P99_PATHS.join(" | ")}` };
      return { ok: s.flushP99Ms <= limitMs, actual: `${s.flushP99Ms} ms` };
    },
  };
}

/** Every room answered the tk:stats request. */
export function roomStatsFetched(): Threshold {
  return {
    id: "tk-stats",
    describe: "tk:stats fetched from every room",
    check: (r) => {
      const s = r.summary.roomStats;
      return { ok: s.missing === 0 && s.fetched > 0, actual: `${s.fetched} fetched, ${s.missing} missing` };
    },
  };
}

/** p99 state-frame jitter ≤ `limitMs`. */
export function jitterP99Within(limitMs: number): Threshold {
  return {
    id: "jitter-p99",
    describe: `p99 state-frame jitter <= ${limitMs} ms`,
    check: (r) => {
      const j = r.summary.frameJitterMs;
      if (j.count === 0) return { ok: false, actual: "no state frames received" };
      return { ok: j.p99 <= limitMs, actual: `${j.p99} ms` };
    },
  };
}

/**
 * Built-in gates.
 * - smoke: 20 players, 5 s; small enough for CI next to `wrangler dev`.
 * - local-100: 100 players in one agar room against `wrangler dev` on loopback. The agar room
 *   seats 20 by default, so the gate raises the cap with the DEV_MODE override `cap=100`.
 * - deployed-100: the same load through a real network. Its limits add a network budget: ack p99
 *   ≤ tick + sync interval + 200 ms covers one round trip to a nearby edge plus the hop to the
 *   room's location; jitter p99 ≤ 100 ms tolerates ordinary internet variance. Flush p99 is
 *   measured inside the room, so it keeps the local limit.
 */
export const gates: readonly Gate[] = [
  {
    name: "smoke",
    description: "20 players in one agar room for 5 s (CI)",
    ci: true,
    defaultUrl: "ws://127.0.0.1:8787",
    load: { scenario: "agar", players: 20, rooms: 1, rampSec: 2, durationSec: 5 },
    thresholds: [allJoined(20), noUnexpectedCloses(), noSpikes(), ackedShare(99), ackP99Within(100), roomStatsFetched()],
  },
  {
    name: "local-100",
    description: "100 players in one agar room against wrangler dev (10 s ramp, 30 s; cap=100 override)",
    ci: false,
    defaultUrl: "ws://127.0.0.1:8787",
    load: { scenario: "agar", players: 100, rooms: 1, rampSec: 10, durationSec: 30, query: "cap=100" },
    thresholds: [allJoined(100), noUnexpectedCloses(), noSpikes(), ackP99Within(30), flushP99Within(20)],
  },
  {
    name: "deployed-100",
    description: "100 players in one agar room against a DEV_MODE deployment (--url required; cap=100 override; not for CI)",
    ci: false,
    defaultUrl: null,
    load: { scenario: "agar", players: 100, rooms: 1, rampSec: 10, durationSec: 30, query: "cap=100" },
    thresholds: [
      allJoined(100),
      noUnexpectedCloses(),
      noSpikes(),
      ackP99Within(200, true),
      jitterP99Within(100),
      flushP99Within(20),
    ],
  },
];

/** The gate called `name`, or an error listing the known ones. */
export function getGate(name: string): Gate {
  const g = gates.find((x) => x.name === name);
  if (!g) throw new Error(`unknown gate "${name}" (known: ${gates.map((x) => x.name).join(", ")})`);
  return g;
}

/** Checks every threshold. A saturated generator makes the run invalid, which fails the gate. */
export function evaluateGate(gate: Gate, report: Report): GateResult {
  const checks = gate.thresholds.map((t) => ({ id: t.id, describe: t.describe, ...t.check(report) }));
  const failures = checks.filter((c) => !c.ok).map((c) => `${c.id}: expected ${c.describe}, got ${c.actual}`);
  const valid = report.status === "ok";
  if (!valid) failures.unshift(`invalid run: ${report.status} (${report.saturationReasons.join("; ")})`);
  return { gate: gate.name, valid, passed: valid && failures.length === 0, checks, failures };
}

/** Text verdict: one line per threshold, then PASS/FAIL. */
export function formatGateResult(res: GateResult): string {
  const lines = res.checks.map((c) => `  ${c.ok ? "ok  " : "FAIL"}  ${c.id.padEnd(18)} ${c.describe.padEnd(40)} ${c.actual}`);
  if (!res.valid) lines.unshift(`  INVALID  ${res.failures[0]}`);
  lines.push(res.passed ? `gate ${res.gate}: PASS` : `gate ${res.gate}: FAIL\n${res.failures.map((f) => `  - ${f}`).join("\n")}`);
  return lines.join("\n");
}

/** The load config of gate `name`; `query` replaces the gate's own (e.g. "" where overrides are refused). */
export function gateConfig(gate: Gate, opts: { url?: string; workers?: number; query?: string } = {}): LoadConfig {
  const url = opts.url ?? gate.defaultUrl;
  if (!url) throw new Error(`gate ${gate.name} needs --url`);
  return { ...gate.load, url, name: `gate-${gate.name}`, workers: opts.workers, query: opts.query ?? gate.load.query };
}

/** Runs gate `name` (optionally against another URL) and evaluates it. */
export async function runGate(
  name: string,
  opts: { url?: string; workers?: number; query?: string } = {},
): Promise<{ report: Report; result: GateResult }> {
  const gate = getGate(name);
  const report = await runLoad(gateConfig(gate, opts));
  return { report, result: evaluateGate(gate, report) };
}
