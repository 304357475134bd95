/** The console summary of a report: one table of its figures, per-room lines, the server CPU rows. */
import type { DurationSummary } from "../metrics/histogram";
import type { MatchSummary } from "../metrics/matchSummary";
import type { JoinPathSummary, WriteCounts } from "../metrics/joinPath";
import type { RestartSummary } from "../metrics/restartSummary";
import { round2 } from "../metrics/round2";
import type { ServerCpuReport } from "../server/serverCpu";
import type { Report } from "./report";

const fmt = (v: number | null, unit = ""): string => (v === null ? "n/a" : `${v}${unit}`);

function dist(d: DurationSummary): string {
  if (d.count === 0) return "no samples";
  return `p50 ${d.p50}  p95 ${d.p95}  p99 ${d.p99}  max ${d.max} ms  (n=${d.count})`;
}

function mapLine(m: Record<string, number>): string {
  const e = Object.entries(m);
  return e.length ? e.map(([k, v]) => `${k}:${v}`).join(" ") : "none";
}

/** Human summary table of a report. */
export function formatSummary(r: Report): string {
  const s = r.summary;
  const cfg = r.config;
  const lines: string[] = [];
  const kib = (b: number): string => `${round2(b / 1024)} KiB/s`;
  lines.push(`== ${r.name}  [${r.status}]  ${r.createdAt}  commit ${r.environment.commit}${r.environment.dirty ? "+dirty" : ""}`);
  const pace = cfg.turnBased
    ? `think ${cfg.turnBased.thinkMs} ms, keepalive ${cfg.turnBased.keepaliveMs || "off"}${cfg.turnBased.keepaliveMs ? " ms" : ""}`
    : `${cfg.rate} inputs/s`;
  const load = cfg.match
    ? `players from the matchmaker (${cfg.load.kind}${cfg.load.arrivalRate ? ` ${cfg.load.arrivalRate}/s` : ""}${cfg.load.sessionMeanSec ? `, sessions ~${cfg.load.sessionMeanSec}s` : ""}${cfg.load.rejoinPct ? `, ${cfg.load.rejoinPct}% rejoin` : ""}), ${cfg.durationSec}s window`
    : `${cfg.players} players x ${cfg.rooms} rooms, ${cfg.durationSec}s after ${cfg.storm ? "storm" : `${cfg.rampSec}s ramp`}`;
  lines.push(`   ${cfg.scenario}: ${load}, ${pace}, ${cfg.url}${cfg.query ? `?${cfg.query}` : ""}`);
  if (r.status !== "ok") for (const reason of r.saturationReasons) lines.push(`   !! GENERATOR SATURATED: ${reason}`);
  for (const w of r.merge?.warnings ?? []) lines.push(`   !! merge: ${w}`);
  const rows: [string, string][] = [
    ["clients", `${s.clients.joined}/${s.clients.planned} joined, ${s.clients.refused} refused (room_full), ${s.clients.throttled} throttled, ${s.clients.failed} failed`],
    ["join failures", mapLine(s.failureReasons)],
    ["unexpected closes", `${s.unexpectedCloses}  codes ${mapLine(s.closeCodes)}`],
    ["errors received", mapLine(s.errors)],
    ["room (welcome)", `tick ${s.tickMs.join("/") || "?"} ms, sync ${s.syncIntervalMs.join("/") || "?"} ms, expected gap ${s.expectedGapMs.join("/") || "?"} ms`],
    ["input->ack RTT", dist(s.ackRttMs)],
    [`spikes >${s.spikeThresholdMs}ms`, `${s.spikes}`],
    ["state frame gap", dist(s.frameGapMs)],
    ["gap jitter", dist(s.frameJitterMs)],
    ["connect->welcome", dist(s.connectMs)],
    ["inputs", `${s.inputs.sent} sent, ${s.inputs.acked} acked, ${s.inputs.unackedAtEnd} unacked at end, ${s.inputs.onSchedulePct}% on schedule (<=${s.inputs.onScheduleToleranceMs} ms late)`],
    ["schedule lag", dist(s.scheduleLagMs)],
    [
      "per client",
      `${s.perClient.framesPerSec} frames/s (${s.perClient.stateFramesPerSec} state), down ${kib(s.perClient.downlinkBytesPerSec)}, up ${kib(s.perClient.uplinkBytesPerSec)}, ${s.perClient.inputsPerSec} inputs/s`,
    ],
    [
      "room tk:stats",
      `${s.roomStats.fetched}/${s.roomStats.fetched + s.roomStats.missing} fetched, flush p99 ${fmt(s.roomStats.flushP99Ms, " ms")} (longest slice p99 ${fmt(s.roomStats.flushSliceP99Ms ?? null, " ms")}), tick p99 ${fmt(s.roomStats.tickP99Ms, " ms")}, timer late p99 ${fmt(s.roomStats.timerLateP99Ms ?? null, " ms")}`,
    ],
    ["room objects' own time", `${ownTime(s.roomStats)} (tk:stats busy, the room's last 10 s; beside the process CPU below)`],
    [
      "generator",
      `CPU ${s.generator.cpuPercent}% (100 = 1 core; machine ${s.generator.machineBusyPercent}% busy of ${r.environment.cpus} cores; ${fmt(s.generator.cpuMicrosPerMessage, " µs")}/message), event-loop p99 ${s.generator.eventLoopP99Ms} ms max ${s.generator.eventLoopMaxMs} ms, RSS ${fmt(s.generator.rssPerClientKiB, " KiB")}/client, heap ${fmt(s.generator.heapPerClientKiB, " KiB")}/client`,
    ],
  ];
  if (s.match) rows.push(...matchRows(s.match, s.seatedMs));
  if (s.restart) rows.push(restartRow(s.restart));
  if (s.spectators) {
    const v = s.spectators;
    const fps = v.framesPerSec ? `frames/s min ${v.framesPerSec.min} p5 ${v.framesPerSec.p5} p50 ${v.framesPerSec.p50}${v.messagesPerSec ? ` in ${v.messagesPerSec.p50} messages/s p50` : ""}` : "no frames";
    const gap = v.gapMs ? `, gap p50 ${v.gapMs.p50} p99 ${v.gapMs.p99} max ${v.gapMs.max} ms` : "";
    rows.push(["spectators", `${v.joined}/${v.requested} joined, ${fps}${gap}, ${v.below19} under 19/s${Object.keys(v.closes).length ? `, closes ${mapLine(v.closes)}` : ""}`]);
  }
  if (r.server) rows.push(...serverRows(r.server));
  if (cfg.turnBased) {
    rows.push(["idle per client", `down ${s.perClient.idle.downlinkBytesPerSec} B/s, up ${s.perClient.idle.uplinkBytesPerSec} B/s (keepalive only)`]);
  }
  if (s.decodeErrors) rows.push(["decode errors", String(s.decodeErrors)]);
  if (Object.keys(s.scenario).length) rows.push(["scenario", mapLine(s.scenario)]);
  const w = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) lines.push(`   ${k.padEnd(w)}  ${v}`);
  if (s.rooms.length > 1 || s.rooms.some((x) => x.tkStatsError)) {
    lines.push("");
    lines.push("   room                      joined  refused  failed  closes  ack p50  ack p99  ack max  jitter p99  spikes  frames/s  flush p99");
    lines.push("   (failed includes throttled; closes are unexpected closes; times in ms)");
    for (const x of s.rooms.slice(0, MAX_ROOM_LINES)) {
      lines.push(
        `   ${x.roomId.padEnd(24).slice(0, 24)}  ${String(x.joined).padStart(6)}  ${String(x.refused).padStart(7)}  ${String(x.failed + x.throttled).padStart(6)}  ${String(x.unexpectedCloses).padStart(6)}  ${String(x.ackP50Ms).padStart(7)}  ${String(x.ackP99Ms).padStart(7)}  ${String(x.ackMaxMs).padStart(7)}  ${String(x.jitterP99Ms).padStart(10)}  ${String(x.spikes).padStart(6)}  ${String(x.framesPerSecPerClient).padStart(8)}  ${fmt(x.flushP99Ms).padStart(9)}${x.tkStatsError ? `  (${x.tkStatsError})` : ""}`,
      );
    }
  }
  if (s.rooms.length > MAX_ROOM_LINES) lines.push(`   … and ${s.rooms.length - MAX_ROOM_LINES} more rooms (every room is in the JSON report)`);
  return lines.join("\n");
}

/** Rooms listed one per line at most (a matchmaking run may use hundreds). */
const MAX_ROOM_LINES = 20;

/** The matchmaking section as summary rows (label, text). */
export function matchRows(m: MatchSummary, seated: DurationSummary | undefined): [string, string][] {
  const fill = m.fill
    ? `when arrivals ended (${m.fill.atSec} s): ${m.fill.full}/${m.fill.rooms} full (${fmt(m.fill.fillPct, "%")}), ${m.fill.partlyFilled} partly filled`
    : "fill not sampled";
  const res = m.reservations;
  const mm = m.matchmaker;
  return [
    [
      "match requests",
      `${m.requests} sent (${m.retries} retries), ${m.seats} seats; refused ${mapLine(m.refused)}; ${m.unmatched} players unseated (${mapLine(m.unmatchedReasons)}); ${m.rejoins} rejoins`,
    ],
    ["time to seated", seated ? dist(seated) : "nobody seated"],
    ["match request", dist(m.requestMs)],
    ["match rooms", `${m.roomsCreated} created by this run, ${m.roomsUsed} used; ${fill}`],
    [
      "seats",
      `${fmt(m.overCap)} over cap; reservations ${res ? `${res.lost} lost (${res.expired} expired, ${res.invalid} invalid, ${res.pendingAtEnd} held at the end)` : "n/a (rooms' tk:stats missing)"}`,
    ],
    [
      "matchmaker",
      mm
        ? `decision p99 ${fmt(mm.decisionP99Ms, " ms")} (worst of ${mm.shards} shard${mm.shards === 1 ? "" : "s"}), ${mm.roomsCreated} rooms created, ${mm.requests} match requests, refused ${mapLine(mm.refused)} (since its object started)`
        : `n/a${m.matchmakerError ? ` (${m.matchmakerError})` : ""}`,
    ],
    ...joinPathRows(m.joinPath),
  ];
}

/** Writes per seated player as `rows (confirmed, bytes)` by kind. */
function writesLine(w: Record<string, WriteCounts>): string {
  const kinds = Object.entries(w).filter(([, c]) => c.rows > 0);
  if (kinds.length === 0) return "no writes";
  return kinds.map(([k, c]) => `${k} ${c.rows} rows (${c.confirmed} confirmed, ${c.bytes} B)`).join(", ");
}

/** A server restart's row: when, how fast the players were back, the worlds restored. */
export function restartRow(r: RestartSummary): [string, string] {
  if (r.error) return ["server restart", `asked at ${r.atSec} s, failed: ${r.error}`];
  const back = r.backMs ? `players back (welcome) after the server answered: ${dist(r.backMs)}` : "nobody back";
  return ["server restart", `at ${r.atSec} s: down at ${fmt(r.downAtSec, " s")}, answering at ${fmt(r.upAtSec, " s")}; ${back}; worlds restored ${r.worldRestored}/${r.rooms} rooms with seats back (${fmt(r.worldRestoredPct, "%")})`];
}

/** The join path per seated player (metrics/joinPath.ts) as summary rows. */
export function joinPathRows(p: JoinPathSummary): [string, string][] {
  const part = (x: { ms: number } | null) => (x ? `${x.ms} ms` : "n/a");
  const rows: [string, string][] = [
    [
      "join path / player",
      `thread time ${fmt(p.ms, " ms")} = gateway ${part(p.gateway)} + matchmaker ${part(p.matchmaker)} + rooms ${part(p.rooms)} (requests, RPCs, sockets, reports); confirmed writes ${fmt(p.confirmedWrites)} (per ${p.seated} seated players)`,
    ],
  ];
  if (p.rooms) rows.push(["  rooms besides", `play ${p.rooms.playMs} ms (ticks and flushes), checkpoints ${p.rooms.checkpointMs} ms, other ${p.rooms.otherMs} ms per seated player over the run`]);
  rows.push(["  writes / player", `rooms: ${p.rooms ? writesLine(p.rooms.writes) : "n/a"}; matchmaker: ${p.matchmaker ? writesLine(p.matchmaker.writes) : "n/a"}`]);
  if (p.calls) rows.push(["  calls / player", `gateway → matchmaker ${p.calls.gatewayToMatchmaker}, gateway → rooms ${p.calls.gatewayToRooms}, matchmaker → rooms ${fmt(p.calls.matchmakerToRooms)}, rooms → matchmaker ${fmt(p.calls.roomsToMatchmaker)}`]);
  if (p.missing.length) rows.push(["  not measured", p.missing.join("; ")]);
  return rows;
}

/** The server CPU section as summary rows (label, text). */
export function serverRows(s: ServerCpuReport): [string, string][] {
  const pin = s.pinned ? `pinned to CPU ${s.cpusAllowed}` : `not pinned (CPUs ${s.cpusAllowed ?? "?"} of ${s.onlineCpus})`;
  const asked = s.affinity?.requested && !s.affinity.applied ? ` — pinning to ${s.affinity.requested} asked, not applied: ${s.affinity.reason ?? "?"}` : "";
  const rows: [string, string][] = [
    [
      "server CPU",
      `workerd ${fmt(s.cpuPct, "%")}${s.workerd.length > 1 ? ` (${s.workerd.map((w) => `${w.role} ${fmt(w.cpuPct, "%")}`).join(" + ")})` : ""} of one core over ${s.window.seconds} s steady window, ${fmt(s.cpuUsPerMsg, " µs")}/message (${s.messages} msgs in+out); wrangler ${fmt(s.otherCpuPct, "%")}; ${s.samples} samples, workerd pid ${s.workerdPids.join(",") || "?"}, ${pin}${asked}`,
    ],
  ];
  for (const w of s.warnings) rows.push(["server CPU note", w]);
  return rows;
}

/**
 * The room objects' own time beside the process CPU: a single room's, or a relayed room's
 * simulation and its relays summed, apart (% of one thread).
 */
export function ownTime(r: { busyPct?: number | null; relaysBusyPct?: number | null; relays?: number }): string {
  if (r.busyPct === undefined || r.busyPct === null) return "n/a (the server does not meter it)";
  if (!r.relays) return `${r.busyPct}% of a thread`;
  const relays = r.relaysBusyPct === undefined || r.relaysBusyPct === null ? "n/a" : `${r.relaysBusyPct}%`;
  return `simulation ${r.busyPct}%, ${r.relays} relays ${relays} summed (% of a thread each)`;
}
