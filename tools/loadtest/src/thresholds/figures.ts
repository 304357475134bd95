/**
 * The named figures thresholds (and the HTML report) read: one flat table from dotted name to
 * value, derived from a report's summary and mergeable data, so the same names work for the
 * all-rooms total and for each room. README's "Figures" table is generated from {@link FIGURES}.
 */
import type { DurationSummary } from "../metrics/histogram";
import type { MatchSummary } from "../metrics/matchSummary";
import type { JoinPathSummary } from "../metrics/joinPath";
import type { RoomData } from "../metrics/roomMetrics";
import type { Summary } from "../metrics/summary";

/** What a figure is computed from. `room` is false for figures that exist only for the total. */
interface FigureDef {
  name: string;
  unit: string;
  describe: string;
  /** null = not measured (no samples, no tk:stats): a threshold on it fails rather than passes. */
  get(s: Summary, d: RoomData): number | null;
  totalOnly?: boolean;
}

const pct = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 10000) / 100 : null);
const maxOf = (v: readonly number[]): number | null => (v.length ? Math.max(...v) : null);

/** The fields of a latency distribution, each a figure `<prefix>.<field>` in ms (null without samples). */
const DIST_FIELDS = ["p50", "p95", "p99", "p999", "max", "mean", "min"] as const;

function dist(prefix: string, describe: string, pick: (s: Summary) => DurationSummary | undefined): FigureDef[] {
  return [
    ...DIST_FIELDS.map((f) => ({
      name: `${prefix}.${f}`,
      unit: "ms",
      describe: `${describe}, ${f}`,
      get: (s: Summary) => {
        const d = pick(s);
        return d && d.count > 0 ? d[f] : null;
      },
    })),
    { name: `${prefix}.count`, unit: "samples", describe: `${describe}, samples`, get: (s: Summary) => pick(s)?.count ?? null },
  ];
}

/** A matchmaking figure: null (not measured) outside matchmaking runs and per room. */
function matchFigure(name: string, unit: string, describe: string, get: (m: MatchSummary) => number | null): FigureDef {
  return { name: `match.${name}`, unit, describe, get: (s) => (s.match ? get(s.match) : null), totalOnly: true };
}

/** Every named figure. */
export const FIGURES: readonly FigureDef[] = [
  { name: "clients.planned", unit: "players", describe: "players the run planned (sessions, with churn)", get: (s) => s.clients.planned },
  { name: "clients.joined", unit: "players", describe: "players that got a welcome", get: (s) => s.clients.joined },
  { name: "spectators.joined", unit: "spectators", describe: "spectators that got a welcome (--spectators)", get: (s) => s.spectators?.joined ?? null, totalOnly: true },
  { name: "spectators.fps_min", unit: "frames/s", describe: "the slowest spectator's frames per second", get: (s) => s.spectators?.framesPerSec?.min ?? null, totalOnly: true },
  { name: "spectators.fps_p5", unit: "frames/s", describe: "spectators' frames per second, 5th percentile", get: (s) => s.spectators?.framesPerSec?.p5 ?? null, totalOnly: true },
  { name: "spectators.msgs_p50", unit: "messages/s", describe: "spectators' messages carrying frames per second, median (a bundle is one)", get: (s) => s.spectators?.messagesPerSec?.p50 ?? null, totalOnly: true },
  { name: "spectators.gap_p99", unit: "ms", describe: "gaps between a spectator's messages carrying frames, p99", get: (s) => s.spectators?.gapMs?.p99 ?? null, totalOnly: true },
  { name: "spectators.below_19", unit: "spectators", describe: "spectators under 19 frames/s", get: (s) => s.spectators?.below19 ?? null, totalOnly: true },
  { name: "clients.joined_pct", unit: "%", describe: "joined / planned", get: (s) => pct(s.clients.joined, s.clients.planned) },
  { name: "clients.refused", unit: "players", describe: "refused with room_full", get: (s) => s.clients.refused },
  { name: "clients.throttled", unit: "players", describe: "refused with join_throttled", get: (s) => s.clients.throttled },
  { name: "clients.failed", unit: "players", describe: "never joined for any other reason", get: (s) => s.clients.failed },
  { name: "unexpected_closes", unit: "closes", describe: "joined players closed by the server or network", get: (s) => s.unexpectedCloses },
  { name: "errors", unit: "messages", describe: "ERROR messages received (all names)", get: (s) => Object.values(s.errors).reduce((a, b) => a + b, 0) },
  { name: "decode_errors", unit: "messages", describe: "server messages that failed to decode", get: (s) => s.decodeErrors },
  { name: "spikes", unit: "stalls", describe: "acks slower than 1 s + players stalled at the end", get: (s) => s.spikes },
  ...dist("ack", "input -> ack RTT from the scheduled send time", (s) => s.ackRttMs),
  ...dist("frame_gap", "time between state frames on one connection", (s) => s.frameGapMs),
  ...dist("jitter", "|frame gap - expected gap|", (s) => s.frameJitterMs),
  ...dist("connect", "connect -> welcome", (s) => s.connectMs),
  ...dist("schedule_lag", "input send time - scheduled time", (s) => s.scheduleLagMs),
  { name: "inputs.sent", unit: "inputs", describe: "inputs sent", get: (s) => s.inputs.sent },
  { name: "inputs.acked", unit: "inputs", describe: "inputs acked", get: (s) => s.inputs.acked },
  { name: "inputs.acked_pct", unit: "%", describe: "acked / sent", get: (s) => pct(s.inputs.acked, s.inputs.sent) },
  { name: "inputs.on_schedule_pct", unit: "%", describe: "inputs sent <= 5 ms late", get: (s) => (s.inputs.sent > 0 ? s.inputs.onSchedulePct : null) },
  { name: "inputs.unacked_at_end", unit: "inputs", describe: "inputs never acked", get: (s) => s.inputs.unackedAtEnd },
  { name: "inputs.ack_regressions", unit: "acks", describe: "acks lower than an earlier ack", get: (s) => s.inputs.ackRegressions },
  { name: "frames_per_s", unit: "1/s", describe: "FRAMEs per joined client per second", get: (s) => s.perClient.framesPerSec },
  { name: "state_frames_per_s", unit: "1/s", describe: "state FRAMEs per client per second", get: (s) => s.perClient.stateFramesPerSec },
  { name: "downlink_bytes_per_s", unit: "B/s", describe: "payload bytes received per client per second", get: (s) => s.perClient.downlinkBytesPerSec },
  { name: "uplink_bytes_per_s", unit: "B/s", describe: "payload bytes sent per client per second", get: (s) => s.perClient.uplinkBytesPerSec },
  { name: "inputs_per_s", unit: "1/s", describe: "inputs per client per second", get: (s) => s.perClient.inputsPerSec },
  { name: "tick_ms", unit: "ms", describe: "tick announced in welcome (largest)", get: (s) => maxOf(s.tickMs) },
  { name: "sync_ms", unit: "ms", describe: "sync interval announced in welcome (largest)", get: (s) => maxOf(s.syncIntervalMs) },
  { name: "room_stats.fetched", unit: "rooms", describe: "rooms whose final tk:stats arrived", get: (s) => s.roomStats.fetched },
  { name: "room_stats.missing", unit: "rooms", describe: "rooms whose final tk:stats did not", get: (s) => s.roomStats.missing },
  { name: "flush.p99", unit: "ms", describe: "tk:stats flush p99 (worst room)", get: (s) => s.roomStats.flushP99Ms },
  { name: "tick.p99", unit: "ms", describe: "tk:stats tick p99 (worst room)", get: (s) => s.roomStats.tickP99Ms },
  { name: "reconnect.dropped", unit: "sockets", describe: "sockets dropped on purpose (--drop)", get: (_s, d) => d.counters.dropped ?? 0 },
  { name: "reconnect.reconnected", unit: "players", describe: "dropped players back in their seat (welcome reconnected: true)", get: (_s, d) => d.counters.reconnected ?? 0 },
  { name: "reconnect.reconnected_pct", unit: "%", describe: "back in their seat / dropped", get: (_s, d) => pct(d.counters.reconnected ?? 0, d.counters.dropped ?? 0) },
  { name: "reconnect.new_seat", unit: "players", describe: "dropped players that got a fresh seat (seat lost)", get: (_s, d) => d.counters.reconnectNewSeat ?? 0 },
  { name: "reconnect.failed", unit: "players", describe: "dropped players never back", get: (_s, d) => d.counters.reconnectFailed ?? 0 },
  ...DIST_FIELDS.map((f) => ({
    name: `reconnect.${f}`,
    unit: "ms",
    describe: `drop -> welcome again, ${f}`,
    get: (s: Summary) => (s.reconnectMs && s.reconnectMs.count > 0 ? s.reconnectMs[f] : null),
  })),
  ...dist("seated", "time to seated: match request sent -> welcome (matchmaking runs)", (s) => s.seatedMs),
  ...dist("match.request", "match request sent -> its answer, refusals included", (s) => s.match?.requestMs),
  matchFigure("requests", "requests", "match requests sent, retries included", (m) => m.requests),
  matchFigure("refusals", "requests", "match requests the matchmaker refused (any code; by code in the report)", (m) => m.refusals),
  matchFigure("unmatched", "players", "players never answered with a seat (also in clients.failed as match:<reason>)", (m) => m.unmatched),
  matchFigure("rooms_created", "rooms", "rooms this run's requests created", (m) => m.roomsCreated),
  matchFigure("rooms", "rooms", "the run's rooms in the matchmaker's directory when arrivals ended", (m) => m.fill?.rooms ?? null),
  matchFigure("full_rooms", "rooms", "of those, rooms whose seats taken and held reached the cap", (m) => m.fill?.full ?? null),
  matchFigure("partly_filled", "rooms", "of those, rooms with a free seat", (m) => m.fill?.partlyFilled ?? null),
  matchFigure("fill_pct", "%", "full rooms / rooms when arrivals ended", (m) => m.fill?.fillPct ?? null),
  matchFigure("over_cap", "seats", "seats above a room's cap (final tk:stats peakCcu and directory samples)", (m) => m.overCap),
  matchFigure("lost_reservations", "seats", "reservations expired, invalid (4020) or still held at the end (rooms' tk:stats)", (m) => m.reservations?.lost ?? null),
  matchFigure("decision_p99", "ms", "the matchmaker's own request -> answer p99 (worst shard, since its object started)", (m) => m.matchmaker?.decisionP99Ms ?? null),
  ...dist("restart.back", "a server restart (--restart-at): the server answering again -> each dropped player's welcome", (s) => s.restart?.backMs ?? undefined),
  { name: "restart.world_restored_pct", unit: "%", describe: "a server restart: rooms whose game state came back from a checkpoint / rooms that came back with seats (tk:stats restoredGames, restoredSeats)", get: (s) => s.restart?.worldRestoredPct ?? null, totalOnly: true },
  pathFigure("ms", "ms", "thread time per seated player on the join path, every object summed (gateway, matchmaker, rooms' requests, RPCs, sockets, reports; DEV_MODE figures)", (p) => p.ms),
  pathFigure("gateway_ms", "ms", "of that, the gateway's (GET /gateway/stats)", (p) => p.gateway?.ms ?? null),
  pathFigure("matchmaker_ms", "ms", "of that, the matchmaker's", (p) => p.matchmaker?.ms ?? null),
  pathFigure("room_ms", "ms", "of that, the rooms'", (p) => p.rooms?.ms ?? null),
  pathFigure("confirmed_writes", "writes", "storage writes per seated player that held an object's messages until durable (rooms and matchmaker)", (p) => p.confirmedWrites),
  { name: "generator.cpu_pct", unit: "%", describe: "generator CPU (100 = one core)", get: (s) => s.generator.cpuPercent, totalOnly: true },
  { name: "generator.machine_busy_pct", unit: "%", describe: "machine busy share (all cores)", get: (s) => s.generator.machineBusyPercent, totalOnly: true },
  { name: "generator.event_loop_p99", unit: "ms", describe: "worst generator thread's event-loop delay p99", get: (s) => s.generator.eventLoopP99Ms, totalOnly: true },
  { name: "generator.cpu_us_per_message", unit: "µs", describe: "generator CPU per message", get: (s) => s.generator.cpuMicrosPerMessage, totalOnly: true },
];

/** A join-path figure (matchmaking runs, metrics/joinPath.ts): per seated player, for the total only. */
function pathFigure(name: string, unit: string, describe: string, get: (p: JoinPathSummary) => number | null): FigureDef {
  return { name: `path.${name}`, unit, describe, get: (s) => (s.match ? get(s.match.joinPath) : null), totalOnly: true };
}

const BY_NAME = new Map(FIGURES.map((f) => [f.name, f]));

/** True when `name` is a known figure (`scenario.<x>` always is). */
export function isFigure(name: string): boolean {
  return BY_NAME.has(name) || name.startsWith("scenario.");
}

/** The value of figure `name` for a summary and its data; undefined when the name is unknown. */
export function figureValue(name: string, s: Summary, d: RoomData, room: boolean): number | null | undefined {
  if (name.startsWith("scenario.")) return s.scenario[name.slice(9)] ?? 0;
  const f = BY_NAME.get(name);
  if (!f) return undefined;
  if (room && f.totalOnly) return null;
  return f.get(s, d);
}

/**
 * Figures a threshold can be judged on while the run goes, from each 1 s sample: the name and
 * the sample field. Everything else is judged on the final report only.
 */
export const LIVE_FIGURES: Readonly<Record<string, string>> = {
  "ack.p50": "ackP50Ms",
  "ack.p95": "ackP95Ms",
  "ack.p99": "ackP99Ms",
  "frame_gap.p99": "frameGapP99Ms",
  frames_per_s: "framesPerSecPerClient",
  downlink_bytes_per_s: "downlinkBytesPerSecPerClient",
  unexpected_closes: "unexpectedCloses",
  errors: "errors",
  "clients.failed": "failed",
  "inputs.on_schedule_pct": "onSchedulePct",
  "generator.cpu_pct": "generatorCpuPct",
};
