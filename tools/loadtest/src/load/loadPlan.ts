/**
 * Load models: when each simulated player joins and leaves. The plan is computed up front from
 * the resolved config and the seed, so every shard and thread derives the same plan and picks
 * its own clients from it (client i belongs to shard i mod n), and a test can check it exactly.
 *
 * - ramp (default): `players` per room join evenly over `rampSec` and stay to the end.
 * - stages: a per-room target that moves linearly from the previous stage's target to this
 *   one's over the stage's duration; players join as it rises and the latest joiners leave as it
 *   falls (`--stages 10s:50,30s:50,10s:0`).
 * - open (arrival rate): `arrivalRate` joins per second across all rooms for the whole window,
 *   whatever the server does; each stays to the end unless sessions are on.
 * - sessions (churn): with `sessionMeanSec`, every seat is cut into sessions of exponentially
 *   distributed length (floored at {@link MIN_SESSION_MS}); in the closed models a new player takes the seat the moment the last
 *   one leaves, in the open model nobody replaces a leaver.
 * - rejoins (open model with churn): `rejoinPct`% of the players who leave come back
 *   {@link REJOIN_DELAY_MS} later for a new session (a new match request in a matchmaking run),
 *   whose end may be followed by another rejoin, by the same rule.
 */
import { Rng } from "../scenarios/rng";

/** One stage of a staged run: reach `target` players per room after `durationSec`. */
export interface Stage {
  durationSec: number;
  target: number;
}

/** A reconnect storm: drop `pct`% of the joined sockets at once, `atSec` into the run. */
export interface DropSpec {
  pct: number;
  atSec: number;
}

/** The load model part of a resolved config. */
export interface LoadModel {
  kind: "ramp" | "stages" | "open";
  stages?: Stage[];
  /** Joins per second across all rooms (open model). */
  arrivalRate?: number;
  /** Open model: new players in all (default: arrival rate × duration); arrivals end after the last. */
  arrivals?: number;
  /** Mean session length (s); absent = players stay until the end. */
  sessionMeanSec?: number;
  /** Open model with churn: the share (%) of leavers who come back for another session. */
  rejoinPct?: number;
  drops: DropSpec[];
}

/** One simulated player's session in the plan. */
export interface PlannedClient {
  /** Global index (all shards); the order of joins. */
  index: number;
  room: number;
  /** Join time, ms after the run's start. */
  joinAtMs: number;
  /** Planned leave, ms after the start; null = stays until the window ends. */
  leaveAtMs: number | null;
  /** Rejoins only: the index of the player's first session (the same player comes back). */
  player?: number;
}

/** Everything the generator needs to pace a run. */
export interface LoadPlan {
  clients: PlannedClient[];
  /** End of the measuring window (ms after start): inputs stop here. */
  windowMs: number;
  /** The last new player's join (ms after start; rejoins left out): when arrivals end. */
  arrivalsEndMs: number;
  drops: DropSpec[];
}

/** What the plan reads from the config. */
export interface PlanInput {
  players: number;
  rooms: number;
  rampSec: number;
  durationSec: number;
  seed: number;
  load: LoadModel;
}

/**
 * Shortest session: a player who leaves within milliseconds of joining never got a welcome and
 * would count as a failed join. Sessions are exponential, floored here (a mean of seconds
 * barely moves); no replacement starts in the window's last stretch of this length either.
 */
export const MIN_SESSION_MS = 500;

/** Never plan more sessions than this (a bad churn setting must not exhaust memory). */
export const MAX_PLANNED_CLIENTS = 200_000;

/** How long a leaving player waits before it comes back (`rejoinPct`): "shortly after". */
export const REJOIN_DELAY_MS = 1_000;

/** Window length of a config: the stages' total, or ramp + duration. */
export function windowSec(c: Pick<PlanInput, "rampSec" | "durationSec" | "load">): number {
  if (c.load.kind === "stages" && c.load.stages) return c.load.stages.reduce((s, x) => s + x.durationSec, 0);
  if (c.load.kind === "open") return c.durationSec;
  return c.rampSec + c.durationSec;
}

/** Seats of one room over time: [join, leave|null] intervals before sessions are applied. */
function stageSeats(stages: readonly Stage[]): [number, number | null][] {
  const seats: [number, number | null][] = [];
  const stack: number[] = [];
  let t0 = 0;
  let level = 0;
  for (const st of stages) {
    const dur = st.durationSec * 1000;
    const a = level;
    const b = st.target;
    if (b > a) {
      for (let k = Math.ceil(a); k < b; k++) {
        if (k < stack.length) continue;
        const at = dur > 0 ? t0 + ((k + 1 - a) / (b - a)) * dur : t0;
        stack.push(seats.length);
        seats.push([Math.min(at, t0 + dur), null]);
      }
    } else if (b < a) {
      // The latest joiner leaves first: seat k goes when the target reaches k, so the
      // population is always floor(target), as on the way up.
      while (stack.length > b) {
        const k = stack.length - 1;
        const at = dur > 0 ? t0 + ((a - k) / (a - b)) * dur : t0;
        seats[stack.pop()!][1] = Math.max(t0, at);
      }
    }
    t0 += dur;
    level = b;
  }
  return seats;
}

/** Exponential variate with the given mean (inverse transform; never 0). */
function exponential(rng: Rng, mean: number): number {
  return -Math.log(1 - rng.next() * (1 - 1e-12)) * mean;
}

/** One session while the plan is built; `first` is the player's first session (rejoins only). */
interface Session {
  room: number;
  join: number;
  leave: number | null;
  first?: Session;
  index?: number;
}

/** Builds the run's plan. Deterministic in the config and seed. */
export function buildPlan(c: PlanInput): LoadPlan {
  const windowMs = windowSec(c) * 1000;
  const m = c.load;
  // Seats: [room, join, leave|null], before sessions.
  const seats: [number, number, number | null][] = [];
  if (m.kind === "stages") {
    const perRoom = stageSeats(m.stages ?? []);
    for (const [j, l] of perRoom) for (let r = 0; r < c.rooms; r++) seats.push([r, j, l]);
  } else if (m.kind === "open") {
    const rate = m.arrivalRate ?? 0;
    const n = m.arrivals ?? Math.floor(rate * c.durationSec);
    for (let i = 0; i < n; i++) seats.push([i % c.rooms, (i * 1000) / rate, null]);
  } else {
    const total = c.players * c.rooms;
    for (let i = 0; i < total; i++) {
      const at = c.rampSec <= 0 || total <= 1 ? 0 : (i * c.rampSec * 1000) / total;
      seats.push([i % c.rooms, at, null]);
    }
  }
  const sessions: Session[] = [];
  const tooMany = (): Error => new Error(`the load model plans over ${MAX_PLANNED_CLIENTS} sessions; lengthen --session-mean or shorten the run`);
  if (m.sessionMeanSec && m.sessionMeanSec > 0) {
    const rng = new Rng((c.seed ^ 0x5e55_1011) >>> 0);
    const mean = m.sessionMeanSec * 1000;
    for (const [room, join, leave] of seats) {
      const end = leave ?? windowMs;
      let t = join;
      for (;;) {
        const stop = t + Math.max(MIN_SESSION_MS, exponential(rng, mean));
        if (stop >= end - MIN_SESSION_MS) {
          sessions.push({ room, join: t, leave });
          break;
        }
        sessions.push({ room, join: t, leave: stop });
        if (m.kind === "open") break;
        t = stop;
        if (sessions.length > MAX_PLANNED_CLIENTS) break;
      }
      if (sessions.length > MAX_PLANNED_CLIENTS) throw tooMany();
    }
    if (m.kind === "open" && m.rejoinPct && m.rejoinPct > 0) addRejoins(sessions, m.rejoinPct, mean, windowMs, c.seed, tooMany);
  } else sessions.push(...seats.map(([room, join, leave]) => ({ room, join, leave })));
  sessions.sort((x, y) => x.join - y.join || x.room - y.room);
  const kept = sessions.filter((x) => x.join < windowMs);
  kept.forEach((x, index) => (x.index = index));
  const clients = kept.map((x): PlannedClient => {
    const pc: PlannedClient = { index: x.index!, room: x.room, joinAtMs: x.join, leaveAtMs: x.leave };
    if (x.first) pc.player = x.first.index!;
    return pc;
  });
  let arrivalsEndMs = 0;
  for (const pc of clients) if (pc.player === undefined && pc.joinAtMs > arrivalsEndMs) arrivalsEndMs = pc.joinAtMs;
  return { clients, windowMs, arrivalsEndMs, drops: [...m.drops].sort((a, b) => a.atSec - b.atSec) };
}

/**
 * The open model's rejoins: `pct`% of the sessions that end inside the window (chosen by their
 * own seeded stream, so the rest of the plan is the same with or without rejoins) are followed,
 * {@link REJOIN_DELAY_MS} later, by a new session of the same player, exponential like the
 * others; it may end in another rejoin. None starts in the window's last {@link MIN_SESSION_MS}.
 */
function addRejoins(sessions: Session[], pct: number, mean: number, windowMs: number, seed: number, tooMany: () => Error): void {
  const rng = new Rng((seed ^ 0x2e10_1a55) >>> 0);
  // Walks the list while appending to it: a rejoin's own leave is considered in turn.
  for (let i = 0; i < sessions.length; i++) {
    const s = sessions[i]!;
    if (s.leave === null || rng.next() * 100 >= pct) continue;
    const t = s.leave + REJOIN_DELAY_MS;
    if (t >= windowMs - MIN_SESSION_MS) continue;
    const stop = t + Math.max(MIN_SESSION_MS, exponential(rng, mean));
    sessions.push({ room: s.room, join: t, leave: stop >= windowMs - MIN_SESSION_MS ? null : stop, first: s.first ?? s });
    if (sessions.length > MAX_PLANNED_CLIENTS) throw tooMany();
  }
}

/** Players the plan wants joined at `tMs` (all shards): the target line of a progress chart. */
export function plannedAt(plan: LoadPlan, tMs: number): number {
  let n = 0;
  for (const c of plan.clients) if (c.joinAtMs <= tMs && (c.leaveAtMs === null || c.leaveAtMs > tMs)) n++;
  return n;
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m)?$/;

/** Parses "20s", "1.5m", "500ms" or a bare number of seconds. */
export function parseDurationSec(v: string): number {
  const m = DURATION.exec(v.trim());
  if (!m) throw new Error(`bad duration "${v}" (use e.g. 20s, 1.5m, 500ms)`);
  const n = Number(m[1]);
  return m[2] === "ms" ? n / 1000 : m[2] === "m" ? n * 60 : n;
}

/** Parses `--stages 10s:50,30s:50,10s:0`. */
export function parseStages(v: string): Stage[] {
  const stages = v.split(",").map((part) => {
    const [d, t] = part.split(":");
    const target = Number(t);
    if (d === undefined || t === undefined || !Number.isInteger(target) || target < 0) {
      throw new Error(`bad stage "${part}" (use <duration>:<players per room>, e.g. 10s:50)`);
    }
    return { durationSec: parseDurationSec(d), target };
  });
  if (stages.length === 0) throw new Error("--stages needs at least one stage");
  return stages;
}

/** Parses `--arrival-rate 5/s` (or `5`, `300/m`) into joins per second. */
export function parseArrivalRate(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/.exec(v.trim());
  if (!m || !(Number(m[1]) > 0)) throw new Error(`bad arrival rate "${v}" (use e.g. 5/s or 120/m)`);
  return m[2] === "m" ? Number(m[1]) / 60 : Number(m[1]);
}

/** Parses `--rejoin 10%` (or `10`): the share of leaving players who come back. */
export function parseRejoin(v: string): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(v.trim());
  const pct = m ? Number(m[1]) : NaN;
  if (!(pct >= 0 && pct <= 100)) throw new Error(`bad rejoin share "${v}" (use a percentage 0..100, e.g. 10%)`);
  return pct;
}

/** Parses `--drop 30%@20s`. */
export function parseDrop(v: string): DropSpec {
  const m = /^(\d+(?:\.\d+)?)%@(.+)$/.exec(v.trim());
  if (!m) throw new Error(`bad drop "${v}" (use <pct>%@<time>, e.g. 30%@20s)`);
  const pct = Number(m[1]);
  if (!(pct > 0 && pct <= 100)) throw new Error(`drop share must be in (0, 100]% (got ${pct})`);
  return { pct, atSec: parseDurationSec(m[2]!) };
}
