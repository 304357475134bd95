/** The conditions a capacity point must meet, checked against one run's report. */
import type { Report } from "../report/report";
import { MIN_STEADY_FRAME_SHARE } from "../run/steadyWindow";

/** Limits of a passing point. */
export const CAPACITY_LIMITS = {
  /** Every client gets at least this share of the state frames its room's cadence promises. */
  minFrameShare: MIN_STEADY_FRAME_SHARE,
  gapP99Ms: 75,
  ackP99Ms: 120,
  /**
   * The room's longest flush task p99 from tk:stats (`flushSlice`: the longest slice of each
   * flush, which is the whole flush when it is not cut; not checked when the server has no
   * tk:stats). What this limit guards is a flush holding the room's one thread: a flush in
   * slices lets socket events and timers run between its slices, so its whole span (tk:stats
   * `flush`, reported beside it) includes their time; when its frames reach the clients is the
   * ack and gap limits' business.
   */
  flushP99Ms: 10,
} as const;

/** A point's verdict: failed conditions by name, and what could not be checked. */
export interface PointVerdict {
  passed: boolean;
  /** The generator could not keep up: the point says nothing about the room. */
  generatorSaturated: boolean;
  failed: string[];
  unchecked: string[];
}

/** Judges a run against {@link CAPACITY_LIMITS}; every failed condition is named with its value. */
export function judgeCapacityPoint(r: Report): PointVerdict {
  const s = r.summary;
  const L = CAPACITY_LIMITS;
  const failed: string[] = [];
  const unchecked: string[] = [];
  const c = s.clients;
  if (c.joined < c.planned) failed.push(`joined ${c.joined}/${c.planned}`);
  if (c.throttled > 0) failed.push(`${c.throttled} joins throttled`);
  if (s.unexpectedCloses > 0) failed.push(`${s.unexpectedCloses} unexpected closes`);
  const short = r.total.counters.clientsShortOfFrames ?? 0;
  if (short > 0) failed.push(`${short} clients got < ${L.minFrameShare * 100}% of expected frames (one per flush)`);
  if (s.frameGapMs.count === 0) failed.push("no state frames");
  else if (s.frameGapMs.p99 > L.gapP99Ms) failed.push(`gap p99 ${s.frameGapMs.p99} ms > ${L.gapP99Ms}`);
  if (s.ackRttMs.count === 0) failed.push("no acks");
  else if (s.ackRttMs.p99 > L.ackP99Ms) failed.push(`ack p99 ${s.ackRttMs.p99} ms > ${L.ackP99Ms}`);
  const flushTask = longestFlushTaskP99(s.roomStats);
  if (flushTask === null) unchecked.push("flush p99 (no tk:stats)");
  else if (flushTask > L.flushP99Ms) failed.push(`flush task p99 ${flushTask} ms > ${L.flushP99Ms}`);
  if (r.status !== "ok") failed.push(`generator saturated (${r.saturationReasons.join("; ")})`);
  return { passed: failed.length === 0, generatorSaturated: r.status !== "ok", failed, unchecked };
}

/**
 * The p99 of a flush's longest task: tk:stats `flushSlice` where the room reports it (rooms
 * that slice their flush), else the whole flush (rooms from before slices, where a flush was one task).
 */
export function longestFlushTaskP99(r: { flushP99Ms: number | null; flushSliceP99Ms?: number | null }): number | null {
  return r.flushSliceP99Ms ?? r.flushP99Ms;
}
