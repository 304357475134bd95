import { monitorEventLoopDelay } from "node:perf_hooks";
import { runAttack, type AttackName, type AttackTally } from "./attacks";
import { runAttackInThread } from "./attackThread";
import { HonestPlayer } from "./honest";

/** One phase of the hostile suite: honest players in a room, with or without one attacker. */
export interface PhaseOptions {
  /** The join URL for `player` in `room` (with its ticket, so each player is one identity). */
  urlFor(player: string, room: string): Promise<string>;
  room: string;
  attack: AttackName | null;
  durationMs: number;
  /** Honest players; they join one by one over the first third of the phase. */
  honest: number;
  /**
   * Where the attacker's client runs: its own worker thread (default; it is another machine in
   * reality) or the event loop that timestamps the honest acks (for comparison).
   */
  attackerIn?: "thread" | "same_loop";
}

/** What the honest players saw in one phase. */
export interface PhaseResult {
  attack: AttackName | "baseline";
  honestJoins: number;
  honestJoined: number;
  /** Ack latency of every honest input, ms. */
  ackP50: number;
  ackP99: number;
  ackSamples: number;
  /** Honest players closed during the phase (after joining). */
  honestDropped: number;
  attacker: AttackTally | null;
  /**
   * p99 event-loop delay of the process measuring the honest players, ms (resolution
   * subtracted): how much of the ack latency could be the measuring client's own lag.
   */
  clientLagP99: number;
  /**
   * What the room counted under `refused.*` and `closes.*` during the phase (one honest
   * player's `tk:stats` at the end): the attacker requests that reached the room's object, as
   * against those refused in the gateway. Null when no stats answer came.
   */
  room: { refused: Record<string, number>; closes: Record<string, number> } | null;
}

/** The `q` quantile (nearest rank) of `values`; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

const LAG_RESOLUTION_MS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs one phase and reports what the honest players saw. */
export async function runPhase(o: PhaseOptions): Promise<PhaseResult> {
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();
  const start = performance.now();
  const end = start + o.durationMs;
  const attackerUrl = await o.urlFor("mallory", o.room);
  const attack = !o.attack
    ? Promise.resolve(null)
    : o.attackerIn === "same_loop"
      ? runAttack(o.attack, attackerUrl, end)
      : runAttackInThread(o.attack, attackerUrl, end - performance.now());
  if (o.attack) await sleep(Math.min(1_000, o.durationMs / 6)); // let the attack take hold first
  const players: HonestPlayer[] = [];
  const joins: Promise<unknown>[] = [];
  const spacing = o.durationMs / 3 / Math.max(1, o.honest);
  for (let i = 0; i < o.honest; i++) {
    const p = new HonestPlayer(await o.urlFor(`honest-${i}`, o.room), `h${i}`);
    players.push(p);
    joins.push(p.join().then((r) => r === "joined" && p.steer()));
    await sleep(spacing);
  }
  await Promise.all(joins);
  await sleep(Math.max(0, end - performance.now()));
  const tally = await attack;
  lag.disable();
  const stats = await players.find((p) => p.outcome === "joined" && p.closeCode === 0)?.roomStats();
  const ack = players.flatMap((p) => p.ackMs);
  const result: PhaseResult = {
    attack: o.attack ?? "baseline",
    honestJoins: players.length,
    honestJoined: players.filter((p) => p.outcome === "joined").length,
    ackP50: quantile(ack, 0.5),
    ackP99: quantile(ack, 0.99),
    ackSamples: ack.length,
    honestDropped: players.filter((p) => p.outcome === "joined" && p.closeCode !== 0).length,
    attacker: tally,
    clientLagP99: Math.max(0, lag.percentile(99) / 1e6 - LAG_RESOLUTION_MS),
    room: stats ? { refused: (stats.refused ?? {}) as Record<string, number>, closes: (stats.closes ?? {}) as Record<string, number> } : null,
  };
  for (const p of players) p.leave();
  await sleep(300);
  return result;
}

/**
 * The suite's verdict for one attacked phase against the baseline: at least 99 % of honest
 * joins succeed, no honest player is dropped, and honest ack p99 stays within 2× the baseline's.
 * The baseline is floored at one tick (50 ms): acks ride on frames, so a quiet-machine p99
 * below a tick is timer resolution, not headroom.
 */
export function verdict(baseline: PhaseResult, attacked: PhaseResult): { ok: boolean; reasons: string[] } {
  const reasons: string[] = [];
  const joinRate = attacked.honestJoined / Math.max(1, attacked.honestJoins);
  if (joinRate < 0.99) reasons.push(`${attacked.honestJoined}/${attacked.honestJoins} honest joins succeeded`);
  if (attacked.honestDropped > 0) reasons.push(`${attacked.honestDropped} honest players were dropped`);
  const limit = 2 * Math.max(baseline.ackP99, 50);
  if (!(attacked.ackP99 <= limit)) reasons.push(`honest ack p99 ${attacked.ackP99.toFixed(0)} ms > 2 × baseline (${limit.toFixed(0)} ms)`);
  return { ok: reasons.length === 0, reasons };
}
