/**
 * A relay's counters as it reports them to its simulation (`RelayKind.Report`, once a second,
 * off the per-message path), and how the simulation's `tk:stats` carries them: each relay apart
 * under `relays`, and summed into the fields a single room has (see {@link relayedStats}).
 */
import { DecodeError, type BinaryReader, type FrameWriter } from "@tikron/protocol";
import type { BusyReading } from "../busyMeter";
import { DURATION_BUCKETS_MS, type DurationSummary } from "../durationStats";
import type { RoomStats, RoomStatsSnapshot } from "../roomStats";
import { RelayKind } from "./relayWire";

/** How often a relay reports its counters to its simulation. */
export const RELAY_REPORT_MS = 1000;

/** The counters a relay reports, under the names and meanings a room's `tk:stats` gives them. */
type ReportedCounters = "flushes" | "frames" | "framesSkipped" | "idleFrames" | "acks" | "bytesOut" | "bytesIn" | "messagesIn" | "flush" | "flushSlice" | "refused" | "errors" | "busy";

/**
 * One relay's counters, as its last report said (`tk:stats` `relays[]`): the room's fields of
 * the same names, counted by the relay (its sockets, its frames, its flushes, its own time).
 */
export interface RelayStatsReport extends Pick<RoomStatsSnapshot, ReportedCounters> {
  /** The relay's index in its room (the host's name for it). */
  index: number;
  /** Ms since the simulation received this report, when read. */
  ageMs: number;
  /** Sockets open on the relay (seated or not). */
  sockets: number;
  /** Clients seated through it. */
  seated: number;
}

/**
 * The simulation's own values of the fields `tk:stats` sums over its relays (`simulation`): it
 * sends no frames itself, sees only the client messages relays forward (hello, stats, game
 * messages, leave), and its flush is quantizing the world and one message per relay.
 */
export type SimulationOwnStats = Pick<RoomStatsSnapshot, "frames" | "bytesOut" | "messagesIn" | "bytesIn" | "acks" | "flush" | "flushSlice">;

/** A `tk:stats` snapshot of a relayed room's simulation: the room's, summed over its relays, and each apart. */
export interface RelayedStatsSnapshot extends RoomStatsSnapshot {
  /** The simulation's own values of the fields summed over relays. */
  simulation: SimulationOwnStats;
  /** Each linked relay's last report, by index. */
  relays: RelayStatsReport[];
}

/** What a relay reports: its counters and its own figures. */
export interface RelayReportSource {
  index: number;
  sockets: number;
  seated: number;
  stats: RoomStats;
  busy?: BusyReading;
}

/** Writes the report message ({@link RelayKind.Report}) of one relay. */
export function writeRelayReport(w: FrameWriter, s: RelayReportSource): FrameWriter {
  const c = s.stats;
  w.u8(RelayKind.Report).varuint(s.index);
  for (const n of [s.sockets, s.seated, c.flushes, c.frames, c.framesSkipped, c.idleFrames, c.acks, c.bytesOut, c.bytesIn, c.messagesIn]) w.f64(n);
  writeSummary(w, c.flush.summary());
  writeSummary(w, c.flushSlice.summary());
  writeCounters(w, c.refused);
  writeCounters(w, c.errors);
  if (s.busy) w.u8(1).f64(s.busy.ms).f64(s.busy.share).f64(s.busy.windowMs);
  else w.u8(0);
  return w;
}

/** Reads a report after its kind byte; a count that is not a finite non-negative number is a `bad_value`. */
export function readRelayReport(r: BinaryReader): RelayStatsReport {
  const index = r.varuint();
  const [sockets, seated, flushes, frames, framesSkipped, idleFrames, acks, bytesOut, bytesIn, messagesIn] = Array.from({ length: 10 }, () => count(r));
  const flush = readSummary(r);
  const flushSlice = readSummary(r);
  const refused = readCounters(r);
  const errors = readCounters(r);
  const busy = r.u8() === 1 ? { ms: count(r), share: count(r), windowMs: count(r) } : undefined;
  r.expectEnd();
  return { index, ageMs: 0, sockets: sockets!, seated: seated!, flushes: flushes!, frames: frames!, framesSkipped: framesSkipped!, idleFrames: idleFrames!, acks: acks!, bytesOut: bytesOut!, bytesIn: bytesIn!, messagesIn: messagesIn!, flush, flushSlice, refused, errors, ...(busy ? { busy } : {}) };
}

/**
 * The simulation's snapshot with its relays' reports in: the fields a single room has, for the
 * room as a whole, and each part apart (`simulation`, `relays`). How each field combines:
 * - `frames`, `framesSkipped`, `idleFrames`, `acks`, `bytesOut`, `bytesIn`, `messagesIn`: the
 *   relays' sum (their sockets send every frame and receive every message; the simulation's own
 *   counts are under `simulation`);
 * - `flush`, `flushSlice`: across relays (the per-client work that is a single room's flush):
 *   counts and histograms summed, `max` the largest, `mean` weighted by count, and `p50`/`p95`/
 *   `p99` the worst relay's (a bound, not the percentile of every flush together); the
 *   simulation's own flush is under `simulation`;
 * - `refused`, `errors`: the simulation's and every relay's, summed by reason;
 * - everything else (seats, `ccu`, inputs, ticks, `flushes`, `closes`, notices, `busy`) is the
 *   simulation's: the seats, the game and the loop are its own, and `busy` is the time of the
 *   object that answers (each relay's is in its report).
 * A relay not linked now (gone, or not reporting yet) is not counted, so the sums can go down.
 */
export function relayedStats(sim: RoomStatsSnapshot, reports: readonly RelayStatsReport[]): RelayedStatsSnapshot {
  const sum = (pick: (r: RelayStatsReport) => number): number => reports.reduce((a, r) => a + pick(r), 0);
  const refused = { ...sim.refused };
  const errors = { ...sim.errors };
  for (const r of reports) {
    addCounters(refused, r.refused);
    addCounters(errors, r.errors);
  }
  return {
    ...sim,
    frames: sum((r) => r.frames),
    framesSkipped: sum((r) => r.framesSkipped),
    idleFrames: sum((r) => r.idleFrames),
    acks: sum((r) => r.acks),
    bytesOut: sum((r) => r.bytesOut),
    bytesIn: sum((r) => r.bytesIn),
    messagesIn: sum((r) => r.messagesIn),
    flush: acrossRelays(reports.map((r) => r.flush)),
    flushSlice: acrossRelays(reports.map((r) => r.flushSlice)),
    refused,
    errors,
    simulation: { frames: sim.frames, bytesOut: sim.bytesOut, messagesIn: sim.messagesIn, bytesIn: sim.bytesIn, acks: sim.acks, flush: sim.flush, flushSlice: sim.flushSlice },
    relays: [...reports].sort((a, b) => a.index - b.index),
  };
}

/** Duration summaries of several relays as one (see {@link relayedStats}). */
export function acrossRelays(parts: readonly DurationSummary[]): DurationSummary {
  const counts = new Array<number>(DURATION_BUCKETS_MS.length + 1).fill(0);
  let count = 0;
  let total = 0;
  let p50 = 0;
  let p95 = 0;
  let p99 = 0;
  let max = 0;
  for (const p of parts) {
    count += p.count;
    total += p.mean * p.count;
    p50 = Math.max(p50, p.p50);
    p95 = Math.max(p95, p.p95);
    p99 = Math.max(p99, p.p99);
    max = Math.max(max, p.max);
    for (let i = 0; i < counts.length; i++) counts[i]! += p.histogram.counts[i] ?? 0;
  }
  const mean = count === 0 ? 0 : Math.round((total / count) * 1000) / 1000;
  return { count, p50, p95, p99, max, mean, histogram: { le: DURATION_BUCKETS_MS, counts } };
}

function addCounters(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const k in from) into[k] = (into[k] ?? 0) + from[k]!;
}

/** A finite, non-negative f64. */
function count(r: BinaryReader): number {
  const v = r.finiteF64("relay report count");
  if (v < 0) throw new DecodeError("bad_value", "relay report count is negative");
  return v;
}

function writeSummary(w: FrameWriter, s: DurationSummary): void {
  w.f64(s.count).f64(s.p50).f64(s.p95).f64(s.p99).f64(s.max).f64(s.mean);
  for (const n of s.histogram.counts) w.f64(n);
}

function readSummary(r: BinaryReader): DurationSummary {
  const [c, p50, p95, p99, max, mean] = Array.from({ length: 6 }, () => count(r));
  const counts = Array.from({ length: DURATION_BUCKETS_MS.length + 1 }, () => count(r));
  return { count: c!, p50: p50!, p95: p95!, p99: p99!, max: max!, mean: mean!, histogram: { le: DURATION_BUCKETS_MS, counts } };
}

function writeCounters(w: FrameWriter, map: Readonly<Record<string, number>>): void {
  const keys = Object.keys(map);
  w.varuint(keys.length);
  for (const k of keys) w.string(k).f64(map[k]!);
}

/** At most this many counter names per map: a relay's codes are a short, fixed list. */
const MAX_COUNTERS = 64;

function readCounters(r: BinaryReader): Record<string, number> {
  const n = r.varuint();
  if (n > MAX_COUNTERS) throw new DecodeError("too_large", `relay report: ${n} counters`);
  const out: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const key = r.string(128);
    if (key === "__proto__") throw new DecodeError("bad_value", "relay report: a counter named __proto__");
    out[key] = count(r);
  }
  return out;
}

/**
 * One relay object's counters as a host's DEV_MODE stats show them, apart from the simulation's
 * (`adapter.relayObjects`): the frames, bytes and flush times are the relays', not the
 * simulation's, in a relayed room.
 */
export interface RelayObjectStats {
  /** The relay's index. */
  index: number;
  /** Open sockets. */
  sockets: number;
  /** Clients seated through it. */
  seated: number;
  /** Flushes it encoded. */
  flushes: number;
  /** Frames it sent its clients. */
  frames: number;
  /** Bytes it sent its clients. */
  bytesOut: number;
  /** Messages its clients sent. */
  messagesIn: number;
  /** Its flushes' wall time (begin to last send, across slices). */
  flush: DurationSummary;
  /** Its link's sends that failed. */
  linkFailures: number;
  /** Its errors by code (bad client messages, bad simulation messages). */
  errors: Record<string, number>;
  /** The relay object's own time (core `BusyMeter`). */
  busy: BusyReading;
}

/** A relay's own counters read now (see {@link RelayObjectStats}), with what its host knows: its index, sockets, link failures and time. */
export function relayObjectStats(relay: { readonly seatedCount: number; readonly stats: RoomStats }, host: Pick<RelayObjectStats, "index" | "sockets" | "linkFailures" | "busy">): RelayObjectStats {
  const s = relay.stats;
  return { ...host, seated: relay.seatedCount, flushes: s.flushes, frames: s.frames, bytesOut: s.bytesOut, messagesIn: s.messagesIn, flush: s.flush.summary(), errors: { ...s.errors } };
}
